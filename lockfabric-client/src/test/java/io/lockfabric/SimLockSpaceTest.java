package io.lockfabric;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.Mode;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimProcess;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client API's contract on the simulator, where it applies: the application's threads are
 * simulated processes ({@code Fabric.spawn}) and every wait of the API is a wait in virtual time
 * ({@code LockFabric.builder(Fabric)}). Mutual exclusion through a pool much smaller than the number
 * of threads, j.u.c ownership, timeouts, async requests, a run that is a function of its seed, and
 * the case only the simulator can stage exactly: a holder stopped (a stop-the-world pause) past its
 * lease is told, and its fencing token is older than the next holder's. Thread interrupts do not
 * reach a simulated process's waits; the interrupt cases run on local and tcp
 * ({@link LockSpaceContractTest}).
 */
@Tag("contract")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SimLockSpaceTest {
    private static SimFabric simulator(long seed) {
        return new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(seed).build());
    }

    private static LockSpace space(LockFabric lf, String protocol, String lease) {
        SpaceOptions.Builder o = SpaceOptions.builder().protocol(protocol).slots(64);
        if (lease != null) {
            o.option("lease-ns", lease);
        }
        return lf.lockSpace("s", o.build());
    }

    /** Application work in virtual time, inside a simulated process. */
    private static void work(Fabric fabric, long nanos) {
        fabric.clientRuntime().parker().parkNanos(nanos);
    }

    /** Spawns the bodies as simulated processes, runs the simulation until all end, and fails with the first failure. */
    private static void runAll(SimFabric fabric, List<Runnable> bodies) {
        List<ClientThread> threads = new ArrayList<>();
        for (int i = 0; i < bodies.size(); i++) {
            threads.add(fabric.spawn("app-" + i, bodies.get(i)));
        }
        for (ClientThread t : threads) {
            t.join();
        }
        for (ClientThread t : threads) {
            Throwable failure = ((SimProcess) t).failure();
            if (failure != null) {
                throw new AssertionError(t.name() + " failed", failure);
            }
        }
    }

    private static final class Counter {
        long value; // deliberately unguarded, and read and written with simulated work in between
    }

    /** The end state of one counting run: the count, and what identifies the run. */
    private record Run(long count, long virtualNs, long historyHash, LockSpaceStats stats) {
    }

    private static Run count(String protocol, long seed, int threads, int perThread, int pool) {
        return count(simulator(seed), protocol, threads, perThread, pool, 0);
    }

    private static Run count(SimFabric sim, String protocol, int threads, int perThread, int pool, int localHandovers) {
        try (SimFabric fabric = sim;
             LockFabric lf = LockFabric.builder(fabric).poolSize(pool).localHandovers(localHandovers).open()) {
            LockSpace s = space(lf, protocol, null);
            Counter c = new Counter();
            List<Runnable> bodies = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                boolean useLock = t % 2 == 0;
                bodies.add(() -> {
                    Lock lock = s.lock("counter");
                    for (int i = 0; i < perThread; i++) {
                        if (useLock) {
                            lock.lock();
                        }
                        try (Held _ = useLock ? null : s.acquire("counter")) {
                            long v = c.value;
                            work(fabric, 300);
                            c.value = v + 1;
                        } finally {
                            if (useLock) {
                                lock.unlock();
                            }
                        }
                        work(fabric, 200);
                    }
                });
            }
            runAll(fabric, bodies);
            return new Run(c.value, fabric.simulation().now(), fabric.simulation().historyHash(), s.stats());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"cas", "dslr", "shiftlock", "cql", "declock-tf", "mcs"})
    void manyMoreProcessesThanEndpointsCountExactly(String protocol) {
        Run r = count(protocol, 11, 24, 10, 3);
        assertEquals(240, r.count());
        assertEquals(240, r.stats().acquisitions(), r.stats().toString());
        assertTrue(r.stats().waits() > 0, r.stats().toString());
    }

    /**
     * Local handovers on the simulator, over seeds, with network jitter and drifting clocks: the
     * count stays exact, grants pass, and a run is still a function of its seed.
     */
    @ParameterizedTest
    @ValueSource(strings = {"cas", "rpc", "dslr", "shiftlock", "mcs", "declock-tf"})
    void localHandoversCountExactlyOverSeeds(String protocol) {
        long passed = 0;
        for (long seed = 1; seed <= 6; seed++) {
            Run r = count(jittery(seed), protocol, 16, 10, 3, 3);
            assertEquals(160, r.count(), "seed " + seed);
            assertEquals(160, r.stats().acquisitions(), "seed " + seed + ": " + r.stats());
            passed += r.stats().localHandovers();
        }
        assertTrue(passed > 0, "16 processes on one key with 3 endpoints pass grants");
        Run a = count(jittery(9), protocol, 12, 6, 3, 3);
        Run b = count(jittery(9), protocol, 12, 6, 3, 3);
        assertEquals(a.historyHash(), b.historyHash());
        assertEquals(a.stats().localHandovers(), b.stats().localHandovers());
    }

    private static SimFabric jittery(long seed) {
        return new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(seed)
                .networkJitterNs(2_000).clockDrift(1e-4).build());
    }

    @Test
    void queueProtocolsCountTheirHandovers() {
        assertTrue(count("mcs", 5, 12, 10, 4).stats().handovers() > 0, "mcs hands every contended grant over");
        assertTrue(count("cql", 5, 12, 10, 4).stats().handovers() > 0, "cql notifies its queued waiters");
        assertTrue(count("shiftlock", 5, 12, 10, 4).stats().handovers() > 0, "shiftlock hands over writer to writer");
        assertTrue(count("declock-tf", 5, 12, 10, 4).stats().handovers() > 0, "declock hands over within a node");
        assertEquals(0, count("cas", 5, 12, 10, 4).stats().handovers(), "cas has no queue to hand over in");
    }

    @Test
    void aRunIsAFunctionOfItsSeed() {
        Run a = count("declock-tf", 21, 12, 8, 3);
        Run b = count("declock-tf", 21, 12, 8, 3);
        Run c = count("declock-tf", 22, 12, 8, 3);
        assertEquals(a.historyHash(), b.historyHash());
        assertEquals(a.virtualNs(), b.virtualNs());
        assertEquals(a.stats().acquireWaitP99Ns(), b.stats().acquireWaitP99Ns());
        assertNotEquals(a.historyHash(), c.historyHash(), "another seed, another run");
    }

    @Test
    void reentrantAndThreadOwned() {
        try (SimFabric fabric = simulator(3); LockFabric lf = LockFabric.builder(fabric).poolSize(2).open()) {
            LockSpace s = space(lf, "dslr", null);
            Lock lock = s.lock("k");
            long[] at = new long[2];
            runAll(fabric, List.of(() -> {
                lock.lock();
                lock.lock(); // reentrant: no second endpoint (the pool has two), no deadlock
                work(fabric, 3_000_000);
                lock.unlock();
                work(fabric, 3_000_000); // still held: one unlock of two
                at[0] = fabric.simulation().now();
                lock.unlock();
            }, () -> {
                work(fabric, 1_000_000);
                assertThrows(IllegalMonitorStateException.class, lock::unlock, "not this process's lock");
                assertFalse(lock.tryLock(), "held by the other process");
                lock.lock();
                at[1] = fabric.simulation().now();
                lock.unlock();
            }));
            assertTrue(at[1] >= at[0], "granted after the owner's second unlock: " + at[1] + " < " + at[0]);
        }
    }

    @Test
    void aTryAcquireTimesOutInVirtualTimeAndAnotherWaitsLongEnough() {
        try (SimFabric fabric = simulator(4); LockFabric lf = LockFabric.builder(fabric).poolSize(4).open()) {
            LockSpace s = space(lf, "cql", null);
            long[] at = new long[4];
            runAll(fabric, List.of(() -> {
                try (Held _ = s.acquire("k")) {
                    work(fabric, 20_000_000); // 20 ms
                    at[0] = fabric.simulation().now();
                }
            }, () -> {
                work(fabric, 100_000);
                long from = fabric.simulation().now();
                Optional<Held> none = s.tryAcquire("k", Mode.EXCLUSIVE, Duration.ofMillis(5));
                assertTrue(none.isEmpty());
                at[1] = fabric.simulation().now() - from;
                Optional<Held> some = s.tryAcquire("k", Mode.EXCLUSIVE, Duration.ofMillis(50));
                assertTrue(some.isPresent());
                at[2] = fabric.simulation().now();
                some.get().close();
            }));
            assertTrue(at[1] >= 5_000_000 && at[1] < 6_000_000, "gave up after its 5 ms: " + at[1]);
            assertTrue(at[2] >= at[0], "granted after the holder released");
            assertEquals(1, s.stats().abandoned());
        }
    }

    @Test
    void anAsyncRequestCompletesWhenTheHolderReleasesWithoutAThreadOfItsOwn() {
        try (SimFabric fabric = simulator(5); LockFabric lf = LockFabric.builder(fabric).poolSize(4).open()) {
            LockSpace s = space(lf, "declock-tf", null);
            long[] at = new long[3];
            runAll(fabric, List.of(() -> {
                try (Held _ = s.acquire("k")) {
                    work(fabric, 2_000_000);
                    at[0] = fabric.simulation().now();
                }
            }, () -> {
                work(fabric, 10_000);
                CompletableFuture<Held> f = s.acquireAsync("k", Mode.EXCLUSIVE);
                CompletableFuture<Long> closed = f.thenApply(h -> {
                    at[1] = fabric.simulation().now();
                    h.close();
                    return h.fencingToken();
                });
                CompletableFuture<Held> cancelled = s.acquireAsync("k", Mode.SHARED);
                assertTrue(cancelled.cancel(false), "given up while it waits");
                while (!closed.isDone()) {
                    work(fabric, 100_000);
                }
                at[2] = 1;
            }));
            assertTrue(at[1] >= at[0], "granted after the release");
            assertEquals(1, at[2]);
            assertEquals(1, s.stats().abandoned());
            assertEquals(2, s.stats().acquisitions());
        }
    }

    /**
     * A holder is stopped for 30 ms (the simulator's stop-the-world pause) with a lease of 2 ms:
     * another process takes the lock through the protocol's recovery meanwhile, the space's listener
     * is told of the loss while the holder is still stopped, the holder sees {@code isValid()} turn
     * false when it resumes, and its fencing token is older than the new holder's, so a store that
     * checks tokens refuses its late write. The new holder releases within its lease: it is not told.
     */
    @ParameterizedTest
    @ValueSource(strings = {"cql", "declock-tf"})
    void aHolderPausedPastItsLeaseIsToldAndItsTokenIsStale(String protocol) {
        try (SimFabric fabric = simulator(9); LockFabric lf = LockFabric.builder(fabric).poolSize(4).open()) {
            LockSpace s = space(lf, protocol, "2ms");
            List<Long> toldAt = new ArrayList<>();
            List<Long> toldTokens = new ArrayList<>();
            s.onLoss(h -> {
                toldAt.add(fabric.simulation().now());
                toldTokens.add(h.fencingToken());
            });
            long[] tokens = new long[2];
            boolean[] validAfterPause = {true};
            long[] newGrantAt = new long[1];
            long pauseAt = 1_000_000;
            long pause = 30_000_000;
            FencedStore store = new FencedStore();
            Consumer<Held> writeAs = h -> store.write(h.fencingToken());
            List<ClientThread> threads = new ArrayList<>();
            threads.add(fabric.spawn("holder", () -> {
                Held h = s.acquire("k");
                tokens[0] = h.fencingToken();
                assertTrue(h.isValid());
                work(fabric, 1_500_000); // stopped at 1 ms, for 30 ms, in the middle of this
                validAfterPause[0] = h.isValid();
                assertFalse(store.accepts(h.fencingToken()), "a late write with the old token is refused");
                h.close(); // a late release changes nothing for the new holder
            }));
            threads.add(fabric.spawn("next", () -> {
                work(fabric, 500_000);
                try (Held h = s.acquire("k")) {
                    newGrantAt[0] = fabric.simulation().now();
                    tokens[1] = h.fencingToken();
                    writeAs.accept(h);
                    work(fabric, 1_000_000); // within its own lease
                }
            }));
            fabric.pauseAt((SimProcess) threads.get(0), pauseAt, pause);
            threads.forEach(ClientThread::join);
            threads.forEach(t -> assertNull(((SimProcess) t).failure(), () -> t.name() + ": " + ((SimProcess) t).failure()));
            assertEquals(List.of(tokens[0]), toldTokens, "told once, of the holder's grant");
            assertTrue(toldAt.get(0) < pauseAt + pause, "told while the holder was stopped: " + toldAt);
            assertFalse(validAfterPause[0], "the holder sees its hold is gone when it resumes");
            assertTrue(newGrantAt[0] < pauseAt + pause, "recovery gave the lock away during the pause");
            assertTrue(tokens[1] > tokens[0], "the new holder's token " + tokens[1] + " is newer than " + tokens[0]);
            assertEquals(1, s.stats().losses());
            // and the lock still works for everyone after it
            runAll(fabric, List.of(() -> s.acquire("k").close(), () -> s.acquire("k", Mode.SHARED).close()));
        }
    }

    /**
     * A hold's lease counts from its protocol's lease start, not from the moment the grant reached
     * the holder. On cql that is the enqueueing FAA: a request that waited 1.5 ms in the queue of a
     * busy lock with a 4 ms lease is valid until 4 ms (less the 2% clock allowance) after it was
     * made, and is told lost by then. A reset waits a lease from its flag, which may be set after
     * that FAA and before the grant reaches the holder; counting from the grant, as before, let
     * {@code isValid()} say true after the resetter could give the lock away.
     */
    @Test
    void aCqlHoldsLeaseCountsFromItsEnqueueNotItsGrant() {
        try (SimFabric fabric = simulator(12); LockFabric lf = LockFabric.builder(fabric).poolSize(4).open()) {
            LockSpace s = space(lf, "cql", "4ms");
            long validFor = Leases.validForNs(4_000_000);
            List<Long> toldAt = new ArrayList<>();
            s.onLoss(h -> toldAt.add(fabric.simulation().now()));
            long[] at = new long[3];
            boolean[] valid = new boolean[3];
            runAll(fabric, List.of(() -> {
                try (Held _ = s.acquire("k")) {
                    work(fabric, 1_600_000);
                }
            }, () -> {
                work(fabric, 100_000);
                at[0] = fabric.simulation().now();
                Held h = s.acquire("k");
                at[1] = fabric.simulation().now();
                valid[0] = h.isValid();
                work(fabric, at[0] + validFor - fabric.simulation().now() - 50_000);
                valid[1] = h.isValid(); // 50 us before the end: still valid
                work(fabric, 150_000);
                at[2] = fabric.simulation().now();
                valid[2] = h.isValid();
                h.close();
            }));
            assertTrue(at[1] - at[0] > 1_000_000, "the request waited for the busy lock: " + (at[1] - at[0]));
            assertTrue(valid[0] && valid[1], "valid from the grant until its lease from the enqueue ran out");
            assertFalse(valid[2], "invalid " + (at[2] - at[0]) + " ns after the request, granted "
                    + (at[1] - at[0]) + " ns after it, with a lease of 4 ms");
            assertEquals(1, toldAt.size(), "told once: " + toldAt);
            // the sweep runs on the virtual clock, the lease on the endpoint's, which drifts by 1e-4 at most
            assertTrue(toldAt.get(0) <= at[0] + validFor + validFor / 1000 + 1_000,
                    "told by the end of the lease counted from the request: " + (toldAt.get(0) - at[0]));
            assertTrue(toldAt.get(0) >= at[0] + validFor - validFor / 1000, "not before it: " + (toldAt.get(0) - at[0]));
        }
    }

    /**
     * A DecLock local handover is made under the node's CQL grant, and a reset of that grant waits a
     * lease from its flag, which may come before the handover (even before the request that gets
     * it): so the local holder's lease counts from the node's CQL acquisition, not from its own
     * request, let alone its grant. One compute node: the second process's hold, handed over
     * locally, is invalid a lease after the first process acquired.
     */
    @Test
    void aDecLockLocalHandoverCountsFromTheNodesCqlAcquisition() {
        SimFabric sim = new SimFabric(SimConfig.builder().computeNodes(1).clientsPerComputeNode(4).seed(13).build());
        try (SimFabric fabric = sim; LockFabric lf = LockFabric.builder(fabric).poolSize(4).open()) {
            LockSpace s = space(lf, "declock-tf", "8ms");
            long validFor = Leases.validForNs(8_000_000);
            long[] at = new long[3];
            boolean[] valid = new boolean[2];
            runAll(fabric, List.of(() -> {
                try (Held _ = s.acquire("k")) {
                    at[0] = fabric.simulation().now(); // the CQL acquisition began before this
                    work(fabric, 900_000);
                }
            }, () -> {
                work(fabric, 400_000);
                at[1] = fabric.simulation().now();
                Held h = s.acquire("k"); // handed over locally at the first's release (within its budget, 2 ms)
                at[2] = fabric.simulation().now();
                valid[0] = h.isValid();
                work(fabric, at[0] + validFor + 50_000 - fabric.simulation().now());
                valid[1] = h.isValid();
                h.close();
            }));
            assertTrue(s.stats().handovers() > 0, "handed over locally: " + s.stats());
            assertTrue(at[2] - at[1] > 400_000, "the second waited for the first: " + (at[2] - at[1]));
            assertTrue(valid[0], "valid when granted");
            assertFalse(valid[1], "invalid a lease after the node's CQL acquisition, "
                    + (at[0] + validFor + 50_000 - at[1]) + " ns after its own request (lease 8 ms)");
        }
    }

    /**
     * DrTM's readers hold a time lease that a writer waits out ({@code tx-time-ns} of it is theirs):
     * a shared hold is invalid, and told lost, no later than a writer is granted the lock after it,
     * although drtm recovers nothing (a hold of it never expired before).
     */
    @Test
    void aDrTmSharedHoldIsInvalidOnceAWriterMayTakeItsLease() {
        try (SimFabric fabric = simulator(14); LockFabric lf = LockFabric.builder(fabric).poolSize(4).open()) {
            LockSpace s = lf.lockSpace("s", SpaceOptions.builder().protocol("drtm").slots(64)
                    .option("lease-ns", "2ms").option("tx-time-ns", "1ms").build());
            List<Long> toldAt = new ArrayList<>();
            s.onLoss(h -> toldAt.add(fabric.simulation().now()));
            long[] writerAt = new long[1];
            boolean[] readerValid = {true, false};
            Held[] reader = new Held[1];
            runAll(fabric, List.of(() -> {
                reader[0] = s.acquire("k", Mode.SHARED);
                readerValid[1] = reader[0].isValid();
                work(fabric, 5_000_000); // longer than its tx-time: a writer takes the lease meanwhile
                reader[0].close();
            }, () -> {
                work(fabric, 100_000);
                try (Held _ = s.acquire("k", Mode.EXCLUSIVE)) {
                    writerAt[0] = fabric.simulation().now();
                    readerValid[0] = reader[0].isValid();
                }
            }));
            assertTrue(readerValid[1], "valid when granted");
            assertTrue(writerAt[0] > 0 && writerAt[0] < 5_000_000, "the writer took the lock while the reader held: " + writerAt[0]);
            assertFalse(readerValid[0], "the reader's hold is invalid when the writer is granted");
            assertEquals(1, toldAt.size(), "told once: " + toldAt);
            assertTrue(toldAt.get(0) <= writerAt[0], "told no later than the writer's grant: " + toldAt + " vs " + writerAt[0]);
        }
    }

    /**
     * A session's holds expire as plain holds do: a session holding two slots (one of them through
     * two keys) is stopped for 30 ms with a 2 ms lease; another process takes one of its locks
     * through the protocol's recovery meanwhile, each of the three holds is told lost once while the
     * session is stopped and is invalid when it resumes, and closing them tells nothing more.
     */
    @ParameterizedTest
    @ValueSource(strings = {"cql", "declock-tf"})
    void aSessionHoldPastItsLeaseIsToldOnceAndInvalid(String protocol) {
        try (SimFabric fabric = simulator(9); LockFabric lf = LockFabric.builder(fabric).poolSize(4).open()) {
            LockSpace s = space(lf, protocol, "2ms");
            String a = "a";
            String b = "b";
            String a2 = null;
            for (int i = 0; a2 == null || s.slotOf(b) == s.slotOf(a); i++) { // two keys of a's slot, one of another
                String k = "k" + i;
                if (s.slotOf(k) == s.slotOf(a) && a2 == null) {
                    a2 = k;
                } else if (s.slotOf(k) != s.slotOf(a)) {
                    b = k;
                }
            }
            String nestedKey = a2;
            String otherKey = b;
            List<String> told = new ArrayList<>();
            List<Long> toldAt = new ArrayList<>();
            s.onLoss(h -> {
                told.add(h.key());
                toldAt.add(fabric.simulation().now());
            });
            long pauseAt = 1_000_000;
            long pause = 30_000_000;
            boolean[] validAfterPause = {true, true, true};
            long[] newGrantAt = new long[1];
            int[] toldBeforeClose = new int[1];
            List<ClientThread> threads = new ArrayList<>();
            threads.add(fabric.spawn("session", () -> {
                try (LockSession session = s.session()) {
                    Held ha = session.acquire(a);
                    Held hn = session.acquire(nestedKey); // same slot: nested in a's grant
                    Held hb = session.acquire(otherKey, Mode.SHARED);
                    assertEquals(2, session.heldSlots());
                    assertTrue(ha.isValid() && hn.isValid() && hb.isValid());
                    work(fabric, 1_500_000); // stopped at 1 ms, for 30 ms, in the middle of this
                    validAfterPause[0] = ha.isValid();
                    validAfterPause[1] = hn.isValid();
                    validAfterPause[2] = hb.isValid();
                    toldBeforeClose[0] = told.size();
                    hn.close();
                } // closes the rest
            }));
            threads.add(fabric.spawn("next", () -> {
                work(fabric, 500_000);
                try (Held _ = s.acquire(a)) {
                    newGrantAt[0] = fabric.simulation().now();
                    work(fabric, 500_000);
                }
            }));
            fabric.pauseAt((SimProcess) threads.get(0), pauseAt, pause);
            threads.forEach(ClientThread::join);
            threads.forEach(t -> assertNull(((SimProcess) t).failure(), () -> t.name() + ": " + ((SimProcess) t).failure()));
            assertTrue(newGrantAt[0] > 0 && newGrantAt[0] < pauseAt + pause, "recovery gave the lock away during the pause");
            assertEquals(List.of(false, false, false), List.of(validAfterPause[0], validAfterPause[1], validAfterPause[2]),
                    "every hold of the session is invalid when it resumes");
            assertEquals(3, told.size(), "each hold told once: " + told);
            assertEquals(java.util.Set.of(a, nestedKey, otherKey), java.util.Set.copyOf(told));
            assertEquals(3, toldBeforeClose[0], "told before they were closed");
            assertTrue(toldAt.stream().allMatch(t -> t < pauseAt + pause), "told while the session was stopped: " + toldAt);
            assertTrue(toldAt.stream().allMatch(t -> t <= newGrantAt[0]),
                    "told no later than the lock was granted to another: " + toldAt + " vs " + newGrantAt[0]);
            assertEquals(3, s.stats().losses());
        }
    }

    /**
     * The lease's promise under faults: whenever a process is granted a lock, every other open hold
     * that conflicts with it already says {@code isValid() == false}. Eight processes take two keys
     * in random modes with a 4 ms lease (dslr's least for its 1 ms poll cap), and holders are stopped
     * at random (stop-the-world pauses of 2 to 10 ms, holds of up to 3 ms), so that recovery gives
     * locks away from stalled holders; each protocol over three seeds.
     */
    @ParameterizedTest
    @ValueSource(strings = {"cql", "declock-tf", "dslr", "shiftlock"})
    void noConflictingHoldIsValidWhenAnotherIsGranted(String protocol) {
        long losses = 0;
        for (long seed = 1; seed <= 3; seed++) {
            try (SimFabric fabric = simulator(seed); LockFabric lf = LockFabric.builder(fabric).poolSize(8).open()) {
                LockSpace s = space(lf, protocol, "4ms");
                record Open(String key, Held held) {
                }
                List<Open> open = new java.util.concurrent.CopyOnWriteArrayList<>();
                List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
                int[] grants = new int[1];
                long end = 40_000_000;
                List<ClientThread> threads = new ArrayList<>();
                for (int p = 0; p < 8; p++) {
                    java.util.SplittableRandom r = new java.util.SplittableRandom(seed * 100 + p);
                    threads.add(fabric.spawn("app-" + p, () -> {
                        while (fabric.simulation().now() < end) {
                            String key = r.nextBoolean() ? "a" : "b";
                            Mode mode = r.nextInt(3) == 0 ? Mode.SHARED : Mode.EXCLUSIVE;
                            Held h;
                            try {
                                h = s.acquire(key, mode);
                            } catch (LockFabricException gaveUp) {
                                continue; // restarts exhausted by resets: a liveness matter, not this test's
                            }
                            grants[0]++;
                            for (Open o : open) {
                                boolean conflict = o.key().equals(key)
                                        && (h.mode() == Mode.EXCLUSIVE || o.held().mode() == Mode.EXCLUSIVE);
                                if (conflict && o.held().isValid()) {
                                    violations.add(h + " granted at " + fabric.simulation().now() + " while " + o.held()
                                            + " was still valid");
                                }
                            }
                            Open mine = new Open(key, h);
                            open.add(mine);
                            work(fabric, r.nextInt(4) == 0 ? 3_000_000 : r.nextLong(50_000, 300_000));
                            open.remove(mine);
                            h.close();
                            work(fabric, r.nextLong(10_000, 200_000));
                        }
                    }));
                }
                java.util.SplittableRandom faults = new java.util.SplittableRandom(seed);
                for (int i = 0; i < 12; i++) {
                    fabric.pauseAt((SimProcess) threads.get(faults.nextInt(threads.size())), faults.nextLong(end),
                            faults.nextLong(2_000_000, 10_000_000));
                }
                threads.forEach(ClientThread::join);
                threads.forEach(t -> assertNull(((SimProcess) t).failure(), () -> t.name() + ": " + ((SimProcess) t).failure()));
                assertTrue(grants[0] > 40, protocol + " seed " + seed + ": only " + grants[0] + " grants");
                assertEquals(List.of(), violations, protocol + " seed " + seed);
                losses += s.stats().losses();
            }
        }
        assertTrue(losses > 0, "stalled holders lost their locks to their leases");
    }

    /** A resource that refuses writes with a fencing token older than the newest it accepted. */
    private static final class FencedStore {
        private long newest = Long.MIN_VALUE;

        void write(long token) {
            if (!accepts(token)) {
                throw new IllegalStateException("stale token " + token + " < " + newest);
            }
            newest = token;
        }

        boolean accepts(long token) {
            return token >= newest;
        }
    }

    @Test
    void theApiOutsideASimulatedProcessSaysWhereItMustRun() {
        try (SimFabric fabric = simulator(1); LockFabric lf = LockFabric.builder(fabric).poolSize(1).open()) {
            LockSpace s = space(lf, "cas", null);
            Held h = s.acquire("k"); // outside the simulation verbs run at once: fine for setup
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> s.tryAcquire("k", Mode.EXCLUSIVE, Duration.ofMillis(1)));
            assertTrue(e.getMessage().contains("inside a simulated process"), e.getMessage());
            h.close();
        }
    }
}
