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
import io.lockfabric.lock.LockProtocols;
import io.lockfabric.lock.Mode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TcpCrashRecoveryTest {
    private static final Pattern HOLDING = Pattern.compile("HOLDING (\\d+)\\.(\\d+) (-?\\d+)");
    private static final int WAITERS = 2;

    @ParameterizedTest
    @ValueSource(strings = {"dslr", "shiftlock", "cql", "declock-tf"})
    void waitersGetTheLockOfAKilledHolderProcess(String name) throws Exception {
        LockProtocol protocol = LockProtocols.byName(name);
        // cql and declock: the tcp tests' timeout and lease (TcpMutualExclusionTest; the 10 ms default
        // timeout resets locks whose holders are only slow, many times a run, on loopback TCP)
        List<String> optionPairs = name.equals("cql") || name.startsWith("declock")
                ? List.of("timeout-ns=200ms", "lease-ns=400ms") : List.of();
        LockOptions options = LockOptions.parse(optionPairs);
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

    private static List<String> millis(List<Long> nanos) {
        return nanos.stream().map(n -> String.format("%.1f", n / 1e6)).toList();
    }
}
