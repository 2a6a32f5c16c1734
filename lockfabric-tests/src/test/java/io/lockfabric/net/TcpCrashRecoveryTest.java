package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client process holding a lock is killed with SIGKILL, then two clients ask for the lock: the
 * killed client's connections die with it, the directory marks it dead, and the waiters get the
 * lock through the protocol's own recovery (dslr's lease reset, shiftlock's era recovery, cql's and
 * declock's reset by a waiter that timed out). Each process is one compute node (its own node id):
 * killing it kills a whole node, which is DecLock's failure unit, so declock recovers like cql (its
 * own failure model disclaims recovery only for one crashed client of a node whose other clients
 * live, and states no bound: the bound printed for it is cql's with the same options).
 * The time from the kill to each grant is printed next to the protocol's recovery bound; the test
 * asserts the grants, the fencing order and the directory, not the time (a busy machine may exceed
 * any bound in real time).
 */
@Tag("faults")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TcpCrashRecoveryTest {
    private static final Pattern HOLDING = Pattern.compile("HOLDING (\\d+)\\.(\\d+) (-?\\d+)");
    private static final Pattern GRANTED = Pattern.compile("GRANTED (\\d+)\\.(\\d+) (-?\\d+) (-?\\d+)");
    private static final int WAITERS = 2;

    @ParameterizedTest
    @ValueSource(strings = {"dslr", "shiftlock", "cql", "declock-tf"})
    void waitersGetTheLockOfAKilledHolderProcess(String name) throws Exception {
        LockProtocol protocol = LockProtocols.byName(name);
        // cql and declock: the tcp tests' timeout and lease (TcpMutualExclusionTest; the 10 ms default
        // timeout resets locks whose holders are only slow, many times a run, on loopback TCP)
        List<String> optionPairs = tcpOptions(name);
        LockOptions options = LockOptions.parse(optionPairs).on(TcpFabric.TIMING); // what the clients run with
        FailureModel model = (name.startsWith("declock") ? LockProtocols.byName("cql") : protocol).failureModel(options);
        assertTrue(model.recoversFromCrash(), name + " recovers from crashes of a whole node");
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(1L << 20).start();
        Path log = Files.createTempFile("lockfabric-holder", ".log");
        Process holder = null;
        try (TcpFabric fabric = TcpFabric.builder().embeddedServer(server).build()) {
            Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
            holder = new ProcessBuilder(javaBin.toString(), "--sun-misc-unsafe-memory-access=allow",
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    LockHolderMain.class.getName(), server.uri(), name, "crash", "4", "2",
                    optionPairs.isEmpty() ? "-" : String.join(",", optionPairs))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            Matcher held = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (held == null && holder.isAlive() && System.nanoTime() < deadline) {
                Matcher m = HOLDING.matcher(Files.readString(log));
                if (m.find()) {
                    held = m;
                } else {
                    Thread.sleep(20);
                }
            }
            assertNotNull(held, "the holder process never took the lock: " + Files.readString(log));
            EndpointId holderId = new EndpointId(Integer.parseInt(held.group(1)), Integer.parseInt(held.group(2)));
            long holderToken = Long.parseLong(held.group(3));
            assertTrue(server.liveEndpoints().contains(holderId));

            // kill first: waiters that queued while it lived would take the lock when its lease ran out
            long killedAt = System.nanoTime();
            holder.destroyForcibly(); // SIGKILL: no goodbyes
            assertTrue(holder.waitFor(20, TimeUnit.SECONDS));
            List<Long> grantedAfterKillNs = Collections.synchronizedList(new ArrayList<>());
            List<Long> acquireNs = Collections.synchronizedList(new ArrayList<>());
            List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
            List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
            List<ClientThread> waiters = new ArrayList<>();
            for (int w = 0; w < WAITERS; w++) {
                waiters.add(fabric.spawn("waiter-" + w, () -> {
                    try (Endpoint e = fabric.newEndpoint()) {
                        LockClient c = protocol.open(e, "crash", 4, options);
                        long asked = System.nanoTime();
                        Grant g = c.acquire(2, Mode.EXCLUSIVE);
                        grantedAfterKillNs.add(System.nanoTime() - killedAt);
                        acquireNs.add(System.nanoTime() - asked);
                        tokens.add(g.fencingToken());
                        c.release(g);
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            waiters.forEach(ClientThread::join);
            assertTrue(failures.isEmpty(), "waiters failed: " + failures);
            assertEquals(WAITERS, tokens.size(), "every waiter got the lock");
            assertTrue(tokens.stream().allMatch(t -> t > holderToken) || !protocol.strictFencing(),
                    "fencing tokens after the crash exceed the dead holder's " + holderToken + ": " + tokens);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (server.liveEndpoints().contains(holderId) && System.nanoTime() < until) {
                Thread.sleep(10); // the server learns of the closed connection from the kernel, soon
            }
            assertFalse(server.liveEndpoints().contains(holderId), "the killed client is dead in the directory");
            System.out.printf("%s: kill -9 of a holder; %d waiters granted %s ms after the kill, their acquire took %s ms"
                    + " (recovery bound %.1f ms per crashed client)%n", name, WAITERS, millis(grantedAfterKillNs),
                    millis(acquireNs), model.recoveryBoundNs() / 1e6);
        } finally {
            if (holder != null) {
                holder.destroyForcibly();
            }
            Files.deleteIfExists(log);
        }
    }

    /**
     * The same crash with every client in a process of its own: the holder process is killed, then
     * two waiter processes (each one compute node) are started and each takes and releases the lock
     * once. Their grants (fencing tokens above the dead holder's, unless the protocol does not
     * promise strict fencing) are read from their output; the time from the kill to each grant is
     * printed (the host's monotonic clock, shared by its processes).
     */
    @ParameterizedTest
    @ValueSource(strings = {"dslr", "declock-tf"})
    void waiterProcessesGetTheLockOfAKilledHolderProcess(String name) throws Exception {
        LockProtocol protocol = LockProtocols.byName(name);
        List<String> optionPairs = tcpOptions(name);
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(1L << 20).start();
        List<Process> processes = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try (server) {
            Path holderLog = Files.createTempFile("lockfabric-holder", ".log");
            logs.add(holderLog);
            Process holder = startClient(server.uri(), name, optionPairs, "hold", holderLog);
            processes.add(holder);
            Matcher held = awaitLine(HOLDING, holderLog, holder);
            EndpointId holderId = new EndpointId(Integer.parseInt(held.group(1)), Integer.parseInt(held.group(2)));
            long holderToken = Long.parseLong(held.group(3));

            long killedAt = System.nanoTime();
            holder.destroyForcibly();
            assertTrue(holder.waitFor(20, TimeUnit.SECONDS));
            List<Process> waiters = new ArrayList<>();
            for (int w = 0; w < WAITERS; w++) {
                Path log = Files.createTempFile("lockfabric-waiter", ".log");
                logs.add(log);
                waiters.add(startClient(server.uri(), name, optionPairs, "once", log));
            }
            processes.addAll(waiters);
            List<Long> tokens = new ArrayList<>();
            List<Long> grantedAfterKillNs = new ArrayList<>();
            Set<Integer> waiterNodes = new HashSet<>();
            for (int w = 0; w < WAITERS; w++) {
                Process p = waiters.get(w);
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "waiter " + w + " never finished: "
                        + Files.readString(logs.get(w + 1)));
                assertEquals(0, p.exitValue(), "waiter " + w + ": " + Files.readString(logs.get(w + 1)));
                Matcher g = awaitLine(GRANTED, logs.get(w + 1), p);
                waiterNodes.add(Integer.parseInt(g.group(1)));
                tokens.add(Long.parseLong(g.group(3)));
                grantedAfterKillNs.add(Long.parseLong(g.group(4)) - killedAt);
            }
            assertEquals(WAITERS, waiterNodes.size(), "each waiter process is a node of its own");
            assertTrue(!waiterNodes.contains(holderId.node()), "and not the dead holder's");
            assertTrue(tokens.stream().allMatch(t -> t > holderToken) || !protocol.strictFencing(),
                    "fencing tokens after the crash exceed the dead holder's " + holderToken + ": " + tokens);
            assertTrue(tokens.get(0).longValue() != tokens.get(1).longValue(), "two grants, two tokens: " + tokens);
            assertFalse(server.liveEndpoints().contains(holderId), "the killed client is dead in the directory");
            System.out.printf("%s: kill -9 of a holder process; %d waiter processes (started after the kill) granted"
                    + " %s ms after it%n", name, WAITERS, millis(grantedAfterKillNs));
        } finally {
            for (Process p : processes) {
                p.destroyForcibly();
            }
            for (Path log : logs) {
                Files.deleteIfExists(log);
            }
        }
    }

    /** cql's and declock's timeout and lease on tcp (as TcpMutualExclusionTest's); defaults for the others. */
    private static List<String> tcpOptions(String name) {
        return name.equals("cql") || name.startsWith("declock") ? List.of("timeout-ns=200ms", "lease-ns=400ms")
                : List.of();
    }

    /** A {@link LockHolderMain} process on lock 2 of table "crash" (4 locks), output to {@code log}. */
    private static Process startClient(String uri, String name, List<String> optionPairs, String mode, Path log)
            throws java.io.IOException {
        Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
        return new ProcessBuilder(javaBin.toString(), "--sun-misc-unsafe-memory-access=allow",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                LockHolderMain.class.getName(), uri, name, "crash", "4", "2",
                optionPairs.isEmpty() ? "-" : String.join(",", optionPairs), mode)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** The first match of {@code line} in {@code log}, waited for while {@code p} lives (60 s at most). */
    private static Matcher awaitLine(Pattern line, Path log, Process p) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Matcher m = line.matcher(Files.readString(log));
            if (m.find()) {
                return m;
            }
            if (!p.isAlive()) {
                break;
            }
            Thread.sleep(20);
        }
        Matcher m = line.matcher(Files.readString(log));
        assertTrue(m.find(), "no '" + line.pattern() + "' from the client process: " + Files.readString(log));
        return m;
    }

    private static List<String> millis(List<Long> nanos) {
        return nanos.stream().map(n -> String.format("%.1f", n / 1e6)).toList();
    }
}
