package io.lockfabric;

import io.lockfabric.net.TcpMemoryNode;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two JVM processes ({@link FileCounterMain}) on one memory node (in this JVM) increment a number
 * kept in a plain file under {@code lock("c")}, with the client API's defaults: the file ends at the
 * exact total, so no two increments overlapped, within a process or across the two.
 */
@Tag("stress")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TwoProcessFileCounterTest {
    private static final int PROCESSES = 2;
    private static final int THREADS = 2;
    private static final int INCREMENTS = 250;

    @TempDir
    Path dir;

    @Test
    void twoProcessesCountExactlyInAPlainFile() throws Exception {
        Path file = dir.resolve("counter.txt");
        Files.writeString(file, "0", StandardCharsets.UTF_8);
        java.util.logging.Logger.getLogger(TcpMemoryNode.class.getName()).setLevel(java.util.logging.Level.WARNING);
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).start();
        List<JavaProcess> processes = new ArrayList<>();
        try {
            long startNs = System.nanoTime();
            for (int p = 0; p < PROCESSES; p++) {
                processes.add(JavaProcess.start(FileCounterMain.class, server.uri(), file.toString(),
                        Integer.toString(INCREMENTS), Integer.toString(THREADS)));
            }
            for (JavaProcess p : processes) {
                assertEquals(0, p.waitFor(60), p.output());
                System.out.print(p.output());
            }
            System.out.printf("%d increments by %d processes in %.1f s (JVM starts included)%n",
                    PROCESSES * THREADS * INCREMENTS, PROCESSES, (System.nanoTime() - startNs) / 1e9);
            assertEquals(Long.toString((long) PROCESSES * THREADS * INCREMENTS),
                    Files.readString(file, StandardCharsets.UTF_8).strip(),
                    processes.getFirst().output() + processes.getLast().output());
        } finally {
            processes.forEach(JavaProcess::close);
            server.close();
        }
    }

    /** The same on the shm fabric: the memory node is a file both processes map, and nothing serves it. */
    @Test
    void twoProcessesCountExactlyInAPlainFileOnOneShmFile() throws Exception {
        // a 5 s lease, not the API's 1 s: this test is about exclusion across processes, and a CI run with other
        // jobs on the 2 cores once stalled a holder past 2 s (its node-mate took it for dead, and the holder
        // reported its hold outlived the lease, as it must); the stall test below is the one about leases
        countOnShm(INCREMENTS, "0:0", "5s");
    }

    /**
     * On shm, with every 10th hold of each thread stalled for 150 ms inside its critical section: the
     * other process's waiters time out (10 ms) and reset the lock while it is held, the holder's
     * node-mates look at it (every lease/8 = 125 ms), and the resets must wait for the stalled holder,
     * which stays within its lease (1 s).
     */
    @Test
    void twoProcessesCountExactlyOnOneShmFileWhileHoldersStall() throws Exception {
        countOnShm(20, "10:150");
    }

    private void countOnShm(int increments, String... stall) throws Exception {
        Path file = dir.resolve("counter.txt");
        Files.writeString(file, "0", StandardCharsets.UTF_8);
        Path shm = (Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : dir)
                .resolve("lockfabric-counter-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        List<JavaProcess> processes = new ArrayList<>();
        try {
            for (int p = 0; p < PROCESSES; p++) {
                List<String> args = new ArrayList<>(List.of("shm:" + shm, file.toString(), Integer.toString(increments),
                        Integer.toString(THREADS)));
                args.addAll(List.of(stall));
                processes.add(JavaProcess.start(FileCounterMain.class, args.toArray(String[]::new)));
            }
            int[] exits = new int[PROCESSES];
            for (int p = 0; p < PROCESSES; p++) {
                exits[p] = processes.get(p).waitFor(60);
            }
            // every process's output (its stats and DecLock's counters), not only the failing one's
            String outputs = processes.stream().map(JavaProcess::output).reduce("", (a, b) -> a + "\n---\n" + b);
            for (int exit : exits) {
                assertEquals(0, exit, outputs);
            }
            assertEquals(Long.toString((long) PROCESSES * THREADS * increments),
                    Files.readString(file, StandardCharsets.UTF_8).strip(), outputs);
        } finally {
            processes.forEach(JavaProcess::close);
            Files.deleteIfExists(shm);
        }
    }
}
