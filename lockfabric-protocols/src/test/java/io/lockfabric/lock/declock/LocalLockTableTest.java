package io.lockfabric.lock.declock;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.protocols.LockProtocols;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A compute node's {@link LocalLockTable} holds the locks in use and at most {@link
 * LocalLockTable#KEEP_IDLE} idle ones, not every lock the node ever touched: after acquisitions of
 * many more locks, each released, it holds no more than that, also after clients of the node met on
 * a few hot locks (local queues, handovers, shared holds) and went over cold ones, with mutual
 * exclusion checked; and a table of few locks keeps them.
 */
class LocalLockTableTest {
    private static final int LOCKS = 5 * LocalLockTable.KEEP_IDLE;

    @Test
    void releasedLocksLeaveTheTable() {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint e = fabric.newEndpoint()) {
            DecLockClient c = open(e);
            List<Grant> held = new ArrayList<>();
            for (int lock = 0; lock < 5; lock++) {
                held.add(c.acquire(lock, Mode.EXCLUSIVE));
            }
            assertEquals(5, c.localTable().size(), "the locks held are in the table");
            held.forEach(c::release);
            assertEquals(5, c.localTable().size(), "a small table keeps its idle locks");
            for (int lock = 0; lock < LOCKS; lock++) {
                c.release(c.acquire(lock, lock % 3 == 0 ? Mode.SHARED : Mode.EXCLUSIVE));
            }
            assertTrue(c.localTable().size() <= LocalLockTable.KEEP_IDLE,
                    "every lock of " + LOCKS + " taken and released once, and the table holds " + c.localTable().size());
        }
    }

    @Test
    void clientsOfOneNodeMeetingOnHotLocksLeaveItEmpty() throws Exception {
        int threads = 4;
        int hot = 3;
        int rounds = 3_000;
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            List<Endpoint> endpoints = new ArrayList<>();
            List<DecLockClient> clients = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Endpoint e = fabric.newEndpoint();
                endpoints.add(e);
                clients.add(open(e));
            }
            long[] counters = new long[hot];
            java.util.concurrent.atomic.AtomicIntegerArray inside = new java.util.concurrent.atomic.AtomicIntegerArray(hot);
            AtomicLong violations = new AtomicLong();
            AtomicLong exclusive = new AtomicLong();
            List<Thread> running = new ArrayList<>();
            List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int t = 0; t < threads; t++) {
                DecLockClient c = clients.get(t);
                int seed = t;
                running.add(Thread.ofPlatform().start(() -> {
                    try {
                        java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
                        for (int i = 0; i < rounds; i++) {
                            int lock = r.nextInt(hot);
                            Mode mode = r.nextInt(4) == 0 ? Mode.SHARED : Mode.EXCLUSIVE;
                            Grant g = c.acquire(lock, mode);
                            if (mode == Mode.EXCLUSIVE) {
                                if (inside.incrementAndGet(lock) != 1) {
                                    violations.incrementAndGet();
                                }
                                counters[lock]++;
                                exclusive.incrementAndGet();
                                inside.decrementAndGet(lock);
                            }
                            c.release(g);
                            if (i % 2 == 0) { // a cold lock every other round: the table outgrows KEEP_IDLE, and idle locks (hot ones too) are dropped
                                c.release(c.acquire(hot + r.nextInt(LOCKS - hot), Mode.EXCLUSIVE));
                            }
                        }
                    } catch (Throwable x) {
                        failures.add(x);
                    }
                }));
            }
            for (Thread t : running) {
                t.join(120_000);
                assertTrue(!t.isAlive(), "a client thread did not finish in 120 s");
            }
            assertTrue(failures.isEmpty(), "client failures: " + failures);
            assertEquals(0, violations.get(), "two exclusive holders of one lock at once");
            assertEquals(exclusive.get(), total(counters, violations), "an exclusive hold's increment was lost");
            int left = clients.getFirst().localTable().size();
            assertTrue(left <= LocalLockTable.KEEP_IDLE, "every lock released, and the node's table holds " + left);
            for (Endpoint e : endpoints) {
                e.close();
            }
        }
    }

    /** The exclusive holds counted, if none overlapped; -1 otherwise. */
    private static long total(long[] counters, AtomicLong violations) {
        return violations.get() == 0 ? java.util.Arrays.stream(counters).sum() : -1;
    }

    private static DecLockClient open(Endpoint e) {
        LockClient c = LockProtocols.byName("declock-tf").open(e, "llt", LOCKS, LockOptions.DEFAULTS);
        return (DecLockClient) c;
    }
}
