package io.lockfabric.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;
import io.lockfabric.net.TcpFabric;
import io.lockfabric.net.TcpMemoryNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code lockfabric serve}: its options, and a server in a separate process that clients use. */
class ServeCommandTest {
    private static final Pattern LISTENING = Pattern.compile("listening on (tcp://\\S+)");

    @Test
    void helpDescribesTheOptions() {
        MainTest.Outcome o = MainTest.run("serve", "--help");
        assertEquals(0, o.status(), o.err());
        for (String option : List.of("--port", "--memory", "--bind", "--table-grace", "--io-threads", "--spin", "--shm", "SIGTERM")) {
            assertTrue(o.out().contains(option), option + " in:\n" + o.out());
        }
    }

    @Test
    void benchOnAServerThatIsNotThereIsBadInput() {
        MainTest.Outcome o = MainTest.run("bench", "--fabric", "tcp://127.0.0.1:1", "--ops", "10");
        assertEquals(Main.EXIT_BAD_INPUT, o.status(), o.err());
        assertTrue(o.err().startsWith("lockfabric: no memory node answers at tcp://127.0.0.1:1"), o.err());
        MainTest.Outcome juc = MainTest.run("bench", "--fabric", "tcp://127.0.0.1:1", "--protocols", "juc", "--ops", "10");
        assertEquals(Main.EXIT_BAD_INPUT, juc.status(), juc.err());
    }

    @Test
    void badInputIsOneLineAndExitStatus2() {
        for (String[] args : List.of(new String[] {"serve", "--port", "70000"}, new String[] {"serve", "--memory", "0"},
                new String[] {"serve", "--memory", "lots"}, new String[] {"serve", "--bind", "no.such.host.invalid"},
                new String[] {"serve", "--shm", "relative/file"}, new String[] {"serve", "--spin", "1s"},
                new String[] {"serve", "--spin", "soon"}, new String[] {"serve", "--io-threads", "0"})) {
            MainTest.Outcome o = MainTest.run(args);
            assertEquals(Main.EXIT_BAD_INPUT, o.status(), String.join(" ", args) + ": " + o.err());
            assertTrue(o.err().startsWith("lockfabric: "), o.err());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void benchesGivenOneSharedTableContendForTheSameLocks() throws Exception {
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).start()) {
            String uri = server.uri();
            List<MainTest.Outcome> outcomes = Collections.synchronizedList(new ArrayList<>());
            List<Thread> benches = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                String seed = Integer.toString(i + 1);
                benches.add(Thread.ofPlatform().start(() -> outcomes.add(MainTest.run("bench", "--fabric", uri,
                        "--protocols", "cas", "--clients", "2", "--locks", "4", "--ops", "300", "--seed", seed,
                        "--shared-table", "both", "--format", "csv"))));
            }
            for (Thread t : benches) {
                t.join();
            }
            for (MainTest.Outcome o : outcomes) {
                assertEquals(Main.EXIT_OK, o.status(), o.err());
            }
            assertNotNull(server.memory().table("bench-cas-both"), "one table for both");
            MainTest.Outcome other = MainTest.run("bench", "--fabric", uri, "--protocols", "cas", "--locks", "8",
                    "--ops", "10", "--shared-table", "both");
            assertEquals(Main.EXIT_BAD_INPUT, other.status(), other.err());
            assertTrue(other.err().contains("another shape"), other.err());
            MainTest.Outcome processes = MainTest.run("bench", "--fabric", uri, "--ops", "10", "--check",
                    "--processes", "2");
            assertEquals(Main.EXIT_BAD_INPUT, processes.status(), processes.err());
            assertTrue(processes.err().contains("--processes counts the processes of a --shared-table run"),
                    processes.err());
            MainTest.Outcome local = MainTest.run("bench", "--ops", "10", "--shared-table", "x");
            assertEquals(Main.EXIT_BAD_INPUT, local.status(), local.err());
            assertTrue(local.err().contains("tcp"), local.err());
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aServerProcessServesLockClientsAndStopsOnSigterm() throws Exception {
        Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
        Path log = Files.createTempFile("lockfabric-serve", ".log");
        Process server = new ProcessBuilder(javaBin.toString(), "--sun-misc-unsafe-memory-access=allow",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "serve", "--port", "0", "--memory", "16m")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            String uri = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (uri == null && server.isAlive() && System.nanoTime() < deadline) {
                Matcher m = LISTENING.matcher(Files.readString(log));
                if (m.find()) {
                    uri = m.group(1);
                } else {
                    Thread.sleep(50);
                }
            }
            assertNotNull(uri, "the server never said where it listens: " + Files.readString(log));

            // a long lease: both JVMs are cold and share two cores, so a holder may stall for long
            int clients = 4;
            int cycles = 200;
            try (TcpFabric fabric = TcpFabric.connect(uri)) {
                List<ClientThread> threads = new ArrayList<>();
                List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
                for (int c = 0; c < clients; c++) {
                    threads.add(fabric.spawn("client-" + c, () -> {
                        try (Endpoint e = fabric.newEndpoint()) {
                            LockClient lock = LockProtocols.byName("dslr").open(e, "locks", 1,
                                    LockOptions.parse(List.of("lease-ns=500ms")));
                            Table counter = e.openTable(new TableSpec("counter", "test", 1, 8));
                            QueuePair qp = e.queuePair(0);
                            for (int i = 0; i < cycles; i++) {
                                Grant g = lock.acquire(0, Mode.EXCLUSIVE);
                                qp.write8(counter.at(0), qp.read8(counter.at(0)) + 1);
                                lock.release(g);
                            }
                        } catch (Throwable t) {
                            failures.add(t);
                        }
                    }));
                }
                threads.forEach(ClientThread::join);
                assertTrue(failures.isEmpty(), "client failures: " + failures);
                Endpoint check = fabric.newEndpoint();
                Table counter = check.openTable(new TableSpec("counter", "test", 1, 8));
                assertEquals((long) clients * cycles, check.queuePair(0).read8(counter.at(0)),
                        "every increment under the lock landed: no two holders at once");
            }
            // protocols without leases (a cold JVM stalls past dslr's); rpc's service is built by the server
            MainTest.Outcome bench = MainTest.run("bench", "--fabric", uri, "--protocols", "cas,rpc", "--clients", "2",
                    "--ops", "400", "--locks", "8", "--format", "csv", "--check");
            assertEquals(Main.EXIT_OK, bench.status(), bench.err());
            List<String> rows = bench.out().strip().lines().toList();
            assertEquals(3, rows.size(), bench.out());
            assertTrue(rows.get(1).startsWith("cas," + uri + ",2,8,") && rows.get(2).startsWith("rpc," + uri + ",2,8,"),
                    bench.out());
            MainTest.Outcome again = MainTest.run("bench", "--fabric", uri, "--protocols", "cas", "--clients", "2",
                    "--ops", "200", "--format", "csv", "--check");
            assertEquals(Main.EXIT_OK, again.status(), "a second bench on the same server: " + again.err());

            server.destroy(); // SIGTERM
            assertTrue(server.waitFor(20, TimeUnit.SECONDS), "the server did not stop on SIGTERM");
            String output = Files.readString(log);
            assertTrue(output.contains("lockfabric serve: stopped"), "it says it stopped (exit status "
                    + server.exitValue() + "): " + output);
            assertTrue(output.contains("disconnected; dead in the directory"), "it logs clients leaving: " + output);
        } finally {
            server.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }

    private static void awaitLine(Path log, Process process, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.readString(log).contains(text) && process.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(Files.readString(log).contains(text), "no '" + text + "' in: " + Files.readString(log));
    }

    /**
     * {@code serve --shm PATH}: the rpcs of a shm file served from a process of its own; a second one
     * stands by and takes over when the first is killed with SIGKILL; stopped by SIGTERM.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aShmServeProcessServesTheFilesRpcsAndStopsOnSigterm() throws Exception {
        Path shmDir = Path.of("/dev/shm");
        Path dir = Files.isDirectory(shmDir) ? Files.createTempDirectory(shmDir, "lockfabric-test-")
                : Files.createTempDirectory("lockfabric-test-");
        Path file = dir.resolve("serve.shm");
        Path log = Files.createTempFile("lockfabric-serve-shm", ".log");
        Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
        Process server = new ProcessBuilder(javaBin.toString(), "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve", "--shm", file.toString(),
                "--memory", "64m").redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!Files.readString(log).contains("serving the rpcs of shm:") && server.isAlive()
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(Files.readString(log).contains("serving the rpcs of shm:" + file), Files.readString(log));
            MainTest.Outcome bench = MainTest.run("bench", "--fabric", "shm:" + file, "--protocols", "cas,rpc", "--clients",
                    "2", "--ops", "400", "--locks", "8", "--format", "csv", "--check");
            assertEquals(Main.EXIT_OK, bench.status(), bench.err());
            assertEquals(3, bench.out().strip().lines().count(), bench.out());
            Path secondLog = Files.createTempFile("lockfabric-serve-shm-standby", ".log");
            Process second = new ProcessBuilder(javaBin.toString(), "--sun-misc-unsafe-memory-access=allow",
                    "-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve", "--shm", file.toString())
                    .redirectErrorStream(true).redirectOutput(secondLog.toFile()).start();
            try {
                awaitLine(secondLog, second, "standing by to take over");
                assertTrue(Files.readString(secondLog).contains("process " + server.pid() + " serves the rpcs of shm:"),
                        Files.readString(secondLog));
                server.destroyForcibly().waitFor(20, TimeUnit.SECONDS); // kill -9
                awaitLine(secondLog, second, "took over from process " + server.pid());
                MainTest.Outcome afterTakeover = MainTest.run("bench", "--fabric", "shm:" + file, "--protocols", "rpc",
                        "--clients", "2", "--ops", "200", "--locks", "8", "--format", "csv", "--check");
                assertEquals(Main.EXIT_OK, afterTakeover.status(), afterTakeover.err());
            } catch (Throwable t) {
                second.destroyForcibly();
                Files.deleteIfExists(secondLog);
                throw t;
            }
            server = second; // the SIGTERM below goes to the one that took over
            Files.deleteIfExists(log);
            log = secondLog;

            server.destroy(); // SIGTERM
            assertTrue(server.waitFor(20, TimeUnit.SECONDS), "the server did not stop on SIGTERM");
            assertTrue(Files.readString(log).contains("lockfabric serve: stopped"), Files.readString(log));
            MainTest.Outcome orphan = MainTest.run("bench", "--fabric", "shm:" + file, "--protocols", "rpc", "--clients",
                    "1", "--ops", "10");
            assertTrue(orphan.status() != Main.EXIT_OK && orphan.err().contains("lockfabric serve --shm"),
                    "an rpc protocol with the server gone: " + orphan.err());
        } finally {
            server.destroyForcibly();
            Files.deleteIfExists(log);
            Files.deleteIfExists(file);
            Files.deleteIfExists(dir);
        }
    }
}
