package io.lockfabric.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.net.TcpMemoryNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A benchmark on a real-time fabric ends when it should, whatever its peers do: a run whose clients
 * wait for a peer process that was killed ends at its duration plus a grace, names its stuck clients
 * and exits 3; SIGTERM during a run prints what was measured, marked partial, and exits 3.
 */
@Tag("faults")
class BenchDeadlineTest {
    private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aRunWhoseClientsWaitOnAPeerThatNeverReleasesEndsAtItsDeadlineNamesThemAndExits3() throws Exception {
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).start()) {
            Path log = Files.createTempFile("lockfabric-holder", ".log");
            // a peer process takes the one lock of the shared table and keeps it
            Process holder = start(log, LockHolderProcess.class.getName(), server.uri(), "mcs", "bench-mcs-held", "1");
            try {
                awaitTrue(() -> read(log).contains("held"), holder, log);

                long started = System.nanoTime();
                MainTest.Outcome o = MainTest.run("bench", "--fabric", server.uri(), "--protocols", "mcs",
                        "--clients", "2", "--locks", "1", "--shared-table", "held", "--warmup", "0s",
                        "--duration", "1s", "--format", "csv");
                long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

                assertEquals(Main.EXIT_RUN_FAILED, o.status(), o.out() + o.err());
                assertTrue(tookMs < 30_000, "the run ended " + tookMs + " ms after it began, for 1s planned");
                for (int client = 0; client < 2; client++) {
                    assertTrue(o.err().contains("mcs: client " + client + " is stuck"), o.err());
                }
                assertTrue(o.err().contains("cut off at its deadline"), o.err());
                assertTrue(o.err().contains("run incomplete: 2 stuck client(s)"), o.err());
                List<String> rows = o.out().strip().lines().toList();
                assertEquals(2, rows.size(), "a header and the run's row: " + o.out());
                assertTrue(rows.get(1).startsWith("mcs,"), o.out());

                holder.destroyForcibly(); // kill -9: the queue it headed is broken for good (mcs has no recovery)
                assertTrue(holder.waitFor(20, TimeUnit.SECONDS), "the holder did not die");
                MainTest.Outcome after = MainTest.run("bench", "--fabric", server.uri(), "--protocols", "mcs",
                        "--clients", "2", "--locks", "1", "--shared-table", "held", "--warmup", "0s",
                        "--duration", "1s", "--format", "csv");
                assertEquals(Main.EXIT_RUN_FAILED, after.status(), "a run on the broken lock: " + after.out() + after.err());
            } finally {
                holder.destroyForcibly();
                Files.deleteIfExists(log);
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void sigtermDuringARunPrintsWhatWasMeasuredAndExits3() throws Exception {
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).start()) {
            Path out = Files.createTempFile("lockfabric-bench", ".out");
            Path err = Files.createTempFile("lockfabric-bench", ".err");
            Process bench = new ProcessBuilder(JAVA.toString(), "--sun-misc-unsafe-memory-access=allow",
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    Main.class.getName(), "bench", "--fabric", server.uri(), "--protocols", "cas,mcs",
                    "--clients", "2", "--locks", "8", "--shared-table", "sig", "--warmup", "0s", "--duration", "60s")
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            try {
                // the table exists once the first run's clients have opened it: the run is under way
                awaitTrue(() -> server.memory().table("bench-cas-sig") != null, bench, err);
                Thread.sleep(500);
                bench.destroy(); // SIGTERM
                assertTrue(bench.waitFor(30, TimeUnit.SECONDS), "bench did not end on SIGTERM");
                String stdout = read(out);
                String stderr = read(err);
                assertEquals(Main.EXIT_RUN_FAILED, bench.exitValue(), stdout + stderr);
                assertTrue(stdout.lines().anyMatch(l -> l.startsWith("cas ")), "the run's row: " + stdout);
                assertTrue(stdout.contains("PARTIAL: interrupted (SIGTERM or Ctrl-C)"), stdout);
                assertTrue(stderr.contains("not run: mcs"), stderr);
                assertTrue(stderr.contains("run incomplete: interrupted"), stderr);
            } finally {
                bench.destroyForcibly();
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        }
    }

    private static Process start(Path log, String mainClass, String... args) throws IOException {
        List<String> command = new java.util.ArrayList<>(List.of(JAVA.toString(), "--sun-misc-unsafe-memory-access=allow",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static void awaitTrue(BooleanSupplier condition, Process process, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertTrue(process.isAlive(), "the process ended early: " + read(log));
            assertTrue(System.nanoTime() < deadline, "the process never got going: " + read(log));
            Thread.sleep(50);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
