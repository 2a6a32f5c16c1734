package io.lockfabric;

import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client API's contract, run on every real-time fabric by a subclass that says where the
 * memory node is: mutual exclusion through a pool much smaller than the number of threads,
 * j.u.c ownership, abandoning requests on timeouts and interrupts, async requests, bad input and
 * leases.
 */
@Tag("contract")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class LockSpaceContractTest {
    /** The fabric address to open. */
    abstract String address();

    /** The options of the range spaces of these tests (default: the defaults, CITRON). */
    SpaceOptions rangeOptions() {
        return SpaceOptions.DEFAULTS;
    }

    /** A lease long enough that no hold of a test outlasts it on a loaded machine. */
    static final String SAFE_LEASE = "2s";

    private final List<LockFabric> opened = new ArrayList<>();
    private String space;

    @BeforeEach
    void name(TestInfo info) {
        space = info.getTestMethod().orElseThrow().getName() + "-" + System.nanoTime();
    }

    @AfterEach
    void closeAll() {
        opened.forEach(LockFabric::close);
    }

    /** What the suite's {@link LockFabric}s are built with besides the address and the pool (default: nothing more). */
    LockFabric.Builder configure(LockFabric.Builder b) {
        return b;
    }

    LockFabric open(int poolSize) {
        LockFabric lf = configure(LockFabric.builder(address()).poolSize(poolSize)).open();
        opened.add(lf);
        return lf;
    }

    /** The fabric's default protocol with a lease that no hold of these tests outlasts. */
    static SpaceOptions safe(LockFabric lf) {
        return SpaceOptions.builder().protocol(lf.defaultProtocol()).option("lease-ns", SAFE_LEASE).build();
    }

    private static final class Counter {
        long value; // deliberately unguarded: the lock is what keeps it exact
    }

    private static void runThreads(int virtual, int platform, Runnable body) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Runnable guarded = () -> {
            try {
                body.run();
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        };
        for (int i = 0; i < virtual; i++) {
            threads.add(Thread.ofVirtual().start(guarded));
        }
        for (int i = 0; i < platform; i++) {
            threads.add(Thread.ofPlatform().start(guarded));
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("a thread failed", failure.get());
        }
    }

    @Test
    void manyMoreThreadsThanEndpointsCountExactlyUnderLock() throws Exception {
        LockFabric lf = open(4);
        LockSpace s = lf.lockSpace(space, safe(lf));
        Counter c = new Counter();
        int perThread = 20;
        runThreads(64, 8, () -> {
            Lock lock = s.lock("counter");
            for (int i = 0; i < perThread; i++) {
                lock.lock();
                try {
                    c.value++;
                } finally {
                    lock.unlock();
                }
            }
        });
        assertEquals(72L * perThread, c.value);
        LockSpaceStats st = s.stats();
        assertEquals(72L * perThread, st.acquisitions());
        assertTrue(st.waits() > 0, st.toString());
        assertTrue(st.acquireWaitP99Ns() >= st.acquireWaitP50Ns() && st.acquireWaitP50Ns() > 0, st.toString());
    }

    @Test
    void manyMoreThreadsThanEndpointsCountExactlyUnderHeld() throws Exception {
        LockFabric lf = open(4);
        LockSpace s = lf.lockSpace(space, safe(lf));
        Counter c = new Counter();
        int perThread = 20;
        runThreads(64, 8, () -> {
            for (int i = 0; i < perThread; i++) {
                try (Held _ = s.acquire("counter")) {
                    c.value++;
                }
            }
        });
        assertEquals(72L * perThread, c.value);
    }

    // ---- sessions: many locks on one endpoint

    /** Twenty distinct slots of {@code s}, from {@code prefix}. */
    private static List<String> keysOnDistinctSlots(LockSpace s, String prefix, int n) {
        List<String> keys = new ArrayList<>();
        java.util.Set<Long> slots = new java.util.HashSet<>();
        for (int i = 0; keys.size() < n; i++) {
            String k = prefix + i;
            if (slots.add(s.slotOf(k))) {
                keys.add(k);
            }
        }
        return keys;
    }

    @Test
    void aSessionHoldsManyLocksOnOneEndpointSoThreadsDoNotEmptyThePool() throws Exception {
        LockFabric lf = open(2);
        LockSpace s = lf.lockSpace(space, safe(lf));
        CountDownLatch allHold = new CountDownLatch(4);
        // four threads each holding 20 locks through a pool of 2: sessions take turns on the endpoints
        runThreads(0, 4, () -> {
            List<String> keys = keysOnDistinctSlots(s, Thread.currentThread().getName() + "-", 20);
            keys.sort(java.util.Comparator.comparingLong(s::slotOf));
            for (int round = 0; round < 5; round++) {
                try (LockSession session = s.session()) {
                    for (String k : keys) {
                        session.acquire(k, round % 2 == 0 ? Mode.EXCLUSIVE : Mode.SHARED);
                    }
                    assertEquals(20, session.heldSlots());
                }
            }
            allHold.countDown();
        });
        assertEquals(0, allHold.getCount());
        assertEquals(80L * 5, s.stats().acquisitions());
    }

    @Test
    void sessionsExcludeEachOtherAndCountExactly() throws Exception {
        LockFabric lf = open(3);
        LockSpace s = lf.lockSpace(space, safe(lf));
        Counter a = new Counter();
        Counter b = new Counter();
        List<String> keys = keysOnDistinctSlots(s, "account-", 2);
        keys.sort(java.util.Comparator.comparingLong(s::slotOf));
        int perThread = 30;
        runThreads(8, 4, () -> {
            for (int i = 0; i < perThread; i++) {
                try (LockSession session = s.session()) {
                    session.acquire(keys.get(0));
                    session.acquire(keys.get(1));
                    a.value++;
                    b.value--;
                }
            }
        });
        assertEquals(12L * perThread, a.value);
        assertEquals(-12L * perThread, b.value);
    }

    @Test
    void closingASessionReleasesAllItsLocksAndKeysOfOneSlotShareTheGrant() throws Exception {
        LockFabric lf = open(4); // the session's endpoint, and one for each try (a try waits on its own)
        LockSpace s = lf.lockSpace(space, safe(lf));
        List<String> keys = keysOnDistinctSlots(s, "k", 3);
        LockSession session = s.session();
        Held x = session.acquire(keys.get(0), Mode.EXCLUSIVE);
        Held again = session.acquire(keys.get(0), Mode.SHARED); // covered by the exclusive grant: nested
        Held r = session.acquire(keys.get(1), Mode.SHARED);
        session.acquire(keys.get(2), Mode.EXCLUSIVE);
        assertEquals(3, session.heldSlots());
        assertThrows(IllegalStateException.class, () -> session.acquire(keys.get(1), Mode.EXCLUSIVE),
                "an upgrade within the session would wait for itself");
        again.close();
        assertTrue(x.isValid(), "the slot is held until its last hold is closed");
        assertEquals(3, session.heldSlots());
        try (LockSession other = s.session()) {
            assertTrue(other.tryAcquire(keys.get(1), Mode.SHARED, Duration.ofSeconds(1)).isPresent(), "readers share");
            assertTrue(other.tryAcquire(keys.get(2), Mode.EXCLUSIVE, Duration.ofMillis(50)).isEmpty(), "held by the session");
        }
        session.close();
        assertFalse(x.isValid());
        assertFalse(r.isValid());
        assertEquals(0, session.heldSlots());
        for (String k : keys) {
            try (Held h = s.tryAcquire(k, Mode.EXCLUSIVE, Duration.ofSeconds(5)).orElseThrow(() -> new AssertionError(k + " still held"))) {
                assertTrue(h.isValid());
            }
        }
        // the session can be used again, and both its endpoints are back in the pool
        try (Held a = s.acquire("a"); Held b = s.acquire("b")) {
            assertTrue(a.isValid() && b.isValid());
        }
    }

    @Test
    void theLockIsReentrantAndOwnedByItsThread() throws Exception {
        LockFabric lf = open(4);
        LockSpace s = lf.lockSpace(space);
        Lock lock = s.lock("k");
        lock.lock();
        lock.lock();
        assertTrue(s.lock("k").tryLock(), "a second view of the same key is the same lock");
        AtomicReference<Throwable> other = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                lock.unlock();
            } catch (Throwable e) {
                other.set(e);
            }
        });
        t.join();
        assertInstanceOf(IllegalMonitorStateException.class, other.get());
        lock.unlock();
        lock.unlock();
        assertFalse(otherThreadTryLocks(lock, 100), "still held once");
        lock.unlock();
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertTrue(otherThreadTryLocks(lock, 5_000), "released");
        assertThrows(UnsupportedOperationException.class, lock::newCondition);
    }

    /** Whether another thread gets {@code lock} within {@code ms} (and releases it at once). */
    private static boolean otherThreadTryLocks(Lock lock, long ms) throws InterruptedException {
        AtomicReference<Boolean> got = new AtomicReference<>(false);
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                if (lock.tryLock(ms, TimeUnit.MILLISECONDS)) {
                    got.set(true);
                    lock.unlock();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.join();
        return got.get();
    }

    @Test
    void readersShareAndExcludeTheWriter() throws Exception {
        LockFabric lf = open(4);
        ReadWriteLock rw = lf.lockSpace(space).readWriteLock("doc");
        CountDownLatch bothIn = new CountDownLatch(2);
        CountDownLatch leave = new CountDownLatch(1);
        List<Thread> readers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            readers.add(Thread.ofPlatform().start(() -> {
                rw.readLock().lock();
                try {
                    bothIn.countDown();
                    leave.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    rw.readLock().unlock();
                }
            }));
        }
        assertTrue(bothIn.await(20, TimeUnit.SECONDS), "two readers hold the read lock at once");
        assertFalse(rw.writeLock().tryLock(100, TimeUnit.MILLISECONDS), "the writer is excluded while they read");
        leave.countDown();
        for (Thread t : readers) {
            t.join();
        }
        assertTrue(rw.writeLock().tryLock(10, TimeUnit.SECONDS));
        rw.readLock().lock(); // downgrade: held under the write lock's grant
        rw.writeLock().unlock();
        rw.readLock().unlock();
        rw.readLock().lock();
        assertThrows(IllegalStateException.class, () -> rw.writeLock().lock(), "no upgrade");
        rw.readLock().unlock();
        assertThrows(IllegalMonitorStateException.class, () -> rw.readLock().unlock());
        assertTrue(otherThreadTryLocks(rw.writeLock(), 5_000), "nothing left held");
    }

    @Test
    void aTimedOutTryAcquireLeavesNothingHeld() throws Exception {
        LockFabric lf = open(4);
        LockSpace s = lf.lockSpace(space, safe(lf));
        Held holder = s.acquire("k");
        long t0 = System.nanoTime();
        Optional<Held> none = s.tryAcquire("k", Mode.EXCLUSIVE, Duration.ofMillis(50));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(none.isEmpty());
        assertTrue(tookMs < 2_000, "returned at once after its wait, took " + tookMs + " ms");
        holder.close();
        Optional<Held> third = s.tryAcquire("k", Mode.EXCLUSIVE, Duration.ofSeconds(10));
        assertTrue(third.isPresent(), "the abandoned request was released once granted");
        third.get().close();
        assertEquals(1, s.stats().abandoned());
        assertTrue(s.tryAcquire("k", Mode.EXCLUSIVE, Duration.ofSeconds(10)).map(h -> {
            h.close();
            return true;
        }).orElse(false));
    }

    @Test
    void anInterruptedLockInterruptiblyLeavesNothingHeld() throws Exception {
        LockFabric lf = open(4);
        LockSpace s = lf.lockSpace(space, safe(lf));
        Lock lock = s.lock("k");
        Held holder = s.acquire("k");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().start(() -> {
            started.countDown();
            try {
                lock.lockInterruptibly();
                lock.unlock();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        started.await();
        Thread.sleep(50);
        t.interrupt();
        t.join(10_000);
        assertFalse(t.isAlive());
        assertInstanceOf(InterruptedException.class, thrown.get());
        holder.close();
        assertTrue(otherThreadTryLocks(lock, 10_000), "nothing left held");
        assertTrue(lock.tryLock(10, TimeUnit.SECONDS));
        lock.unlock();
    }

    @Test
    void anInterruptedLockKeepsWaitingGetsTheLockAndKeepsItsInterrupt() throws Exception {
        LockFabric lf = open(4);
        LockSpace s = lf.lockSpace(space, safe(lf));
        Lock lock = s.lock("k");
        Held holder = s.acquire("k");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch locked = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().start(() -> {
            started.countDown();
            try {
                lock.lock(); // the fast path: the protocol runs on this thread
                try {
                    interruptedAfter.set(Thread.currentThread().isInterrupted());
                    locked.countDown();
                } finally {
                    lock.unlock();
                }
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        started.await();
        for (int i = 0; i < 5; i++) {
            Thread.sleep(20);
            t.interrupt();
        }
        assertFalse(locked.await(100, TimeUnit.MILLISECONDS), "lock() does not give up when interrupted");
        holder.close();
        t.join(10_000);
        assertFalse(t.isAlive());
        assertEquals(null, thrown.get());
        assertEquals(Boolean.TRUE, interruptedAfter.get(), "the interrupt status is set again after the acquisition");

        Counter c = new Counter();
        runThreads(8, 4, () -> {
            for (int i = 0; i < 20; i++) {
                lock.lock();
                try {
                    c.value++;
                } finally {
                    lock.unlock();
                }
            }
        });
        assertEquals(12L * 20, c.value, "nothing was corrupted by the interrupts");
    }

    @Test
    void asyncRequestsCompleteWithBoundedThreads() throws Exception {
        LockFabric lf = open(2);
        LockSpace s = lf.lockSpace(space, safe(lf));
        int before = ManagementFactory.getThreadMXBean().getThreadCount();
        AtomicInteger maxThreads = new AtomicInteger(before);
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger maxInFlight = new AtomicInteger();
        Counter c = new Counter();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            all.add(s.acquireAsync("hot").thenAccept(h -> {
                maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                maxThreads.accumulateAndGet(ManagementFactory.getThreadMXBean().getThreadCount(), Math::max);
                c.value++;
                inFlight.decrementAndGet();
                h.close();
            }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(40, TimeUnit.SECONDS);
        assertEquals(100, c.value);
        assertEquals(1, maxInFlight.get(), "exclusive");
        assertTrue(maxThreads.get() - before <= 4, "platform threads grew from " + before + " to " + maxThreads.get());
        assertEquals(100, s.stats().acquisitions());
    }

    @Test
    void heldClosesOnceFromAnyThread() throws Exception {
        LockFabric lf = open(4);
        LockSpace s = lf.lockSpace(space);
        Held h = s.acquire("k", Mode.EXCLUSIVE);
        assertTrue(h.isValid());
        assertEquals(Mode.EXCLUSIVE, h.mode());
        Thread t = Thread.ofPlatform().start(h::close);
        t.join();
        assertFalse(h.isValid());
        h.close();
        h.close();
        Held again = s.tryAcquire("k", Duration.ofSeconds(10)).orElseThrow();
        again.close();
    }

    @Test
    void reopeningWithOtherOptionsIsAClearError() {
        LockFabric lf = open(2);
        LockSpace a = lf.lockSpace(space, SpaceOptions.builder().slots(64).build());
        assertEquals(64, a.slots());
        assertTrue(a == lf.lockSpace(space, SpaceOptions.builder().slots(64).build()), "same options: same space");
        SpaceMismatchException e = assertThrows(SpaceMismatchException.class,
                () -> lf.lockSpace(space, SpaceOptions.builder().slots(128).build()));
        assertTrue(e.getMessage().contains(space), e.getMessage());
    }

    @Test
    void unknownProtocolsAndOptionsAreClearErrors() {
        LockFabric lf = open(2);
        IllegalArgumentException p = assertThrows(IllegalArgumentException.class,
                () -> lf.lockSpace(space, SpaceOptions.builder().protocol("nope").build()));
        assertTrue(p.getMessage().contains("unknown protocol 'nope'"), p.getMessage());
        IllegalArgumentException o = assertThrows(IllegalArgumentException.class,
                () -> lf.lockSpace(space, SpaceOptions.builder().protocol("dslr").option("no-such", "1").build()));
        assertTrue(o.getMessage().contains("no option 'no-such'"), o.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> lf.rangeSpace(space, SpaceOptions.builder().protocol("dslr").build()));
    }

    @Test
    void aHoldPastItsLeaseIsInvalidAndReportedOnce() throws Exception {
        LockFabric lf = open(2);
        LockSpace s = lf.lockSpace(space, SpaceOptions.builder().protocol("dslr").option("lease-ns", "50ms").build());
        assertEquals(Optional.of(Duration.ofMillis(50)), s.lease());
        List<Held> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
        s.onLoss(lost::add);
        Held h = s.acquire("k");
        Thread.sleep(150);
        assertFalse(h.isValid());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (lost.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Thread.sleep(100);
        assertEquals(List.of(h), lost);
        assertEquals(1, s.stats().losses());
        h.close();
        Held quick = s.acquire("k");
        assertTrue(quick.isValid());
        quick.close();
        Thread.sleep(100);
        assertEquals(1, lost.size(), "a hold closed within its lease is not lost");
    }

    @Test
    void aLeaseTimeReleasesByItself() throws Exception {
        LockFabric lf = open(2);
        LockSpace s = lf.lockSpace(space, safe(lf));
        Held h = s.tryAcquire("k", Mode.EXCLUSIVE, Duration.ofSeconds(5), Duration.ofMillis(50)).orElseThrow();
        Held next = s.tryAcquire("k", Mode.EXCLUSIVE, Duration.ofSeconds(10)).orElseThrow();
        assertFalse(h.isValid());
        h.close();
        next.close();
    }

    @Test
    void rangesExcludeWhenTheyOverlap() throws Exception {
        LockFabric lf = open(4);
        RangeSpace file = lf.rangeSpace(space, rangeOptions());
        assertEquals("citron", file.protocol());
        try (Held r = file.acquire(4096, 8192)) {
            assertEquals("[4096, 8192)", r.key());
            assertTrue(file.tryAcquire(8000, 9000, Mode.EXCLUSIVE, Duration.ofMillis(50)).isEmpty());
            Held beside = file.tryAcquire(8192, 9000, Mode.EXCLUSIVE, Duration.ofSeconds(10)).orElseThrow();
            beside.close();
        }
        Held after = file.acquireAsync(8000, 9000, Mode.EXCLUSIVE).get(10, TimeUnit.SECONDS);
        after.close();
        assertThrows(IllegalArgumentException.class, () -> file.acquire(10, 10));
        assertTrue(file.stats().acquisitions() >= 3);
    }

    @Test
    void protocolStatisticsAreExactForEndpointsNotInUse() throws Exception {
        LockFabric lf = open(3);
        LockSpace s = lf.lockSpace(space, SpaceOptions.builder().protocol("cas").build());
        String acquires = io.lockfabric.lock.LatencyBreakdown.Part.WRITER_ACQUIRE.operationsStat();
        int done = 0;
        // fewer releases than an endpoint publishes after, then many more: stats() sees every one
        for (int round : new int[] {5, 3 * SpaceCore.StatsCell.PUBLISH_EVERY + 7}) {
            for (int i = 0; i < round; i++) {
                s.acquire("k" + (i % 5)).close();
            }
            done += round;
            assertEquals(done, s.stats().protocolStats().counter(acquires), s.stats().toString());
        }
        // an endpoint in use is left alone; what the idle ones counted is still all there
        try (Held h = s.acquire("held")) {
            assertTrue(h.isValid());
            assertTrue(s.stats().protocolStats().counter(acquires) >= done, s.stats().toString());
        }
        assertEquals(done + 1, s.stats().protocolStats().counter(acquires), s.stats().toString());
    }

    @Test
    void keysSharingASlotAreCountedAsFalseConflicts() throws Exception {
        LockFabric lf = open(4);
        LockSpace s = lf.lockSpace(space, SpaceOptions.builder().slots(1).build());
        try (Held a = s.acquire("a")) {
            assertNotNull(a);
            Optional<Held> b = s.tryAcquire("b", Mode.EXCLUSIVE, Duration.ofMillis(20));
            assertTrue(b.isEmpty(), "one slot: b waits for a");
        }
        LockSpaceStats st = s.stats();
        assertEquals(1, st.falseConflicts());
        assertEquals(1, st.falseConflictSlots());
    }

    @Test
    void falseConflictsFollowTheKeysInFlightOnASlot() throws Exception {
        LockFabric lf = open(4);
        LockSpace s = lf.lockSpace(space, SpaceOptions.builder().slots(1).build());
        Held a = s.acquire("a");
        java.util.concurrent.CompletableFuture<Held> b = s.acquireAsync("b", Mode.EXCLUSIVE); // a in flight: 1
        a.close(); // b, in flight since, is now the slot's only key
        Held hb = b.get(10, TimeUnit.SECONDS);
        java.util.concurrent.CompletableFuture<Held> c = s.acquireAsync("c", Mode.EXCLUSIVE); // b in flight: 2
        hb.close();
        Held hc = c.get(10, TimeUnit.SECONDS);
        java.util.concurrent.CompletableFuture<Held> again = s.acquireAsync("c", Mode.EXCLUSIVE); // its own key: none
        hc.close();
        again.get(10, TimeUnit.SECONDS).close();
        s.acquire("d").close(); // nothing else in flight: none
        LockSpaceStats st = s.stats();
        assertEquals(2, st.falseConflicts(), st.toString());
        assertEquals(1, st.falseConflictSlots(), st.toString());
    }

    @Test
    void aDroppedSpaceIsGoneAndItsNameMakesANewOne() throws Exception {
        LockFabric lf = open(4);
        LockSpace s = lf.lockSpace(space, safe(lf));
        Held h = s.acquire("k");
        IllegalStateException busy = assertThrows(IllegalStateException.class, () -> lf.dropSpace(space));
        assertTrue(busy.getMessage().contains("release them"), busy.getMessage());
        try (Held again = s.tryAcquire("j", Mode.EXCLUSIVE, Duration.ofSeconds(10)).orElseThrow()) {
            assertTrue(again.isValid(), "a refused drop changes nothing");
        }
        h.close();
        assertTrue(lf.dropSpace(space));
        LockFabricException gone = assertThrows(LockFabricException.class, () -> s.acquire("k"));
        assertTrue(gone.getMessage().contains("was dropped"), gone.getMessage());
        assertFalse(lf.dropSpace(space), "nothing left to drop");
        LockSpace fresh = lf.lockSpace(space, safe(lf));
        assertNotSame(s, fresh);
        try (Held k = fresh.tryAcquire("k", Mode.EXCLUSIVE, Duration.ofSeconds(10)).orElseThrow()) {
            assertTrue(k.isValid());
        }
        RangeSpace r = lf.rangeSpace(space, rangeOptions());
        r.acquire(0, 10).close();
        assertTrue(lf.dropRangeSpace(space));
        assertThrows(LockFabricException.class, () -> r.acquire(0, 10));
    }

    @Test
    void closingTheLockFabricReleasesAnOpenSessionsLocksWithoutWaitingOutTheGrace() {
        LockFabric lf = open(2);
        LockSpace s = lf.lockSpace(space, safe(lf));
        List<String> keys = keysOnDistinctSlots(s, "k", 3);
        keys.sort(java.util.Comparator.comparingLong(s::slotOf));
        LockSession session = s.session();
        List<Held> held = new ArrayList<>();
        for (String k : keys) {
            held.add(session.acquire(k, Mode.EXCLUSIVE));
        }
        long t0 = System.nanoTime();
        lf.close(); // the session's thread (this one) never closes it first
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 3_000, "the session's locks were released and its endpoint given back at once, not after the "
                + "pool's 5 s grace: " + ms + " ms");
        for (Held h : held) {
            assertFalse(h.isValid(), h + " released by the close");
        }
        session.close(); // nothing left to release
        assertEquals(0, session.heldSlots());
    }

    /**
     * For fabrics two {@code LockFabric}s share (tcp, shm): a space another one has open is refused
     * with {@link SpaceInUseException} ({@code inUse} in its message) and left as it was; once the
     * other has closed (as the memory node sees it: it may take a moment on tcp), the drop goes
     * through and the old space refuses requests.
     */
    void aSpaceOpenElsewhereIsNotDroppedUntilItCloses(String inUse) {
        try (LockFabric first = LockFabric.builder(address()).poolSize(2).open()) {
            LockSpace mine = first.lockSpace("dropped-shared", SpaceOptions.builder().slots(8).build());
            mine.acquire("k").close();
            try (LockFabric second = LockFabric.builder(address()).poolSize(1).open()) {
                LockSpace theirs = second.lockSpace("dropped-shared", SpaceOptions.builder().slots(8).build());
                theirs.acquire("k").close();
                SpaceInUseException e = assertThrows(SpaceInUseException.class, () -> first.dropSpace("dropped-shared"));
                assertTrue(e.getMessage().contains(inUse), e.getMessage());
                mine.acquire("k").close(); // refused: nothing changed
                theirs.acquire("k").close();
            }
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                try {
                    assertTrue(first.dropSpace("dropped-shared"));
                    break;
                } catch (SpaceInUseException stillClosing) {
                    assertTrue(System.nanoTime() < until, "the memory node never saw the other client go");
                    Thread.onSpinWait();
                }
            }
            assertThrows(LockFabricException.class, () -> mine.acquire("k"));
        }
    }
}
