package io.lockfabric.spring;

import io.lockfabric.LockFabric;
import io.lockfabric.LockSpace;
import io.lockfabric.SpaceOptions;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LockFabricLockRegistry} used as Spring Integration uses a {@link LockRegistry}: locks
 * obtained by key and taken from many threads, {@code tryLock} with a timeout, {@code executeLocked},
 * and leader election by {@link LockRegistryLeaderInitiator}. Run on every real-time fabric by a
 * subclass that says where the memory node is.
 */
@Tag("contract")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class LockRegistryContractTest {
    /** The fabric address to open. */
    abstract String address();

    private final List<LockFabric> opened = new ArrayList<>();
    private String spaceName;

    @BeforeEach
    void name(TestInfo info) {
        spaceName = info.getTestMethod().orElseThrow().getName() + "-" + System.nanoTime();
    }

    @AfterEach
    void closeAll() {
        opened.forEach(LockFabric::close);
    }

    /** A registry on a new space of a new {@link LockFabric}, with a lease no hold of these tests outlasts. */
    private LockFabricLockRegistry registry(int poolSize) {
        LockFabric lf = LockFabric.builder(address()).poolSize(poolSize).open();
        opened.add(lf);
        LockSpace space = lf.lockSpace(spaceName,
                SpaceOptions.builder().protocol(lf.defaultProtocol()).option("lease-ns", "5s").build());
        return new LockFabricLockRegistry(space);
    }

    private static final class Counter {
        long value; // deliberately unguarded: the lock is what keeps it exact
    }

    private static void runThreads(int virtual, int platform, Runnable body) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < virtual + platform; i++) {
            threads.add((i < virtual ? Thread.ofVirtual() : Thread.ofPlatform()).unstarted(body));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
    }

    /** Runs {@code body} on another thread and returns its result. */
    private static <T> T onOtherThread(java.util.concurrent.Callable<T> body) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {
            try {
                f.complete(body.call());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        try {
            return f.get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    @Test
    void locksObtainedFromManyThreadsKeepAnUnguardedCounterExact() throws Exception {
        LockFabricLockRegistry registry = registry(4);
        Counter counter = new Counter();
        int rounds = 25;
        runThreads(16, 8, () -> {
            for (int i = 0; i < rounds; i++) {
                Lock lock = registry.obtain("counter"); // obtained anew each time, as integration components do
                lock.lock();
                try {
                    counter.value++;
                } finally {
                    lock.unlock();
                }
            }
        });
        assertEquals(24L * rounds, counter.value);
        assertEquals(24L * rounds, registry.space().stats().acquisitions());
    }

    @Test
    void aLockIsReentrantAndOwnedByItsThread() throws Exception {
        LockFabricLockRegistry registry = registry(4);
        Lock lock = registry.obtain("owned");
        lock.lock();
        assertTrue(lock.tryLock(), "reentrant");
        assertThrows(IllegalMonitorStateException.class, () -> onOtherThread(() -> {
            registry.obtain("owned").unlock();
            return null;
        }));
        assertFalse(onOtherThread(() -> registry.obtain("owned").tryLock(20, TimeUnit.MILLISECONDS)));
        lock.unlock();
        assertFalse(onOtherThread(() -> registry.obtain("owned").tryLock(20, TimeUnit.MILLISECONDS)),
                "still held once");
        lock.unlock();
        assertTrue(onOtherThread(() -> {
            Lock l = registry.obtain("owned");
            boolean got = l.tryLock(5, TimeUnit.SECONDS);
            l.unlock();
            return got;
        }));
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertThrows(UnsupportedOperationException.class, lock::newCondition);
    }

    @Test
    void tryLockWithATimeoutGivesUpOrGetsTheLockWhenReleased() throws Exception {
        LockFabricLockRegistry registry = registry(4);
        Lock lock = registry.obtain("timeout");
        lock.lock();
        long t0 = System.nanoTime();
        assertFalse(onOtherThread(() -> registry.obtain("timeout").tryLock(100, TimeUnit.MILLISECONDS)));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(100), "waited the timeout");

        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
            Lock l = registry.obtain("timeout");
            waiting.countDown();
            try {
                boolean got = l.tryLock(10, TimeUnit.SECONDS);
                if (got) {
                    l.unlock();
                }
                return got;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, r -> Thread.ofPlatform().start(r));
        assertTrue(waiting.await(10, TimeUnit.SECONDS));
        Thread.sleep(50);
        lock.unlock();
        assertTrue(other.get(30, TimeUnit.SECONDS), "granted within the timeout once released");
    }

    @Test
    void keysAreStringsOrIntegers() throws Exception {
        LockFabricLockRegistry registry = registry(2);
        Lock byLong = registry.obtain(42L);
        byLong.lock();
        try {
            assertFalse(onOtherThread(() -> registry.obtain("42").tryLock(20, TimeUnit.MILLISECONDS)),
                    "42L is the key \"42\"");
        } finally {
            byLong.unlock();
        }
        assertThrows(IllegalArgumentException.class, () -> registry.obtain(new Object()));
        assertThrows(IllegalArgumentException.class, () -> registry.obtain(null));
    }

    @Test
    void executeLockedRunsUnderTheLockAndTimesOutWhenHeld() throws Exception {
        LockFabricLockRegistry registry = registry(4);
        Counter counter = new Counter();
        runThreads(8, 4, () -> {
            for (int i = 0; i < 20; i++) {
                try {
                    registry.executeLocked("job", () -> {
                        counter.value++;
                    });
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        assertEquals(12 * 20, counter.value);

        Lock held = registry.obtain("job");
        held.lock();
        try {
            assertThrows(TimeoutException.class, () -> onOtherThread(() ->
                    registry.executeLocked("job", Duration.ofMillis(50), () -> "ran")));
        } finally {
            held.unlock();
        }
        assertEquals("ran", onOtherThread(() -> registry.executeLocked("job", Duration.ofSeconds(5), () -> "ran")));
    }

    @Test
    void aLockPastItsTimeToLiveIsLostAndTakenAgainWhenFree() throws Exception {
        LockFabricLockRegistry registry = registry(4);
        DistributedLock mine = registry.obtain("ttl");
        assertTrue(mine.tryLock(Duration.ofSeconds(5), Duration.ofMillis(100)));
        Thread.sleep(150);
        CountDownLatch othersHolds = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
            DistributedLock l = registry.obtain("ttl");
            try {
                boolean got = l.tryLock(5, TimeUnit.SECONDS);
                othersHolds.countDown();
                done.await();
                if (got) {
                    l.unlock();
                }
                return got;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, r -> Thread.ofPlatform().start(r));
        assertTrue(othersHolds.await(10, TimeUnit.SECONDS));
        assertFalse(mine.tryLock(20, TimeUnit.MILLISECONDS), "lost: another thread holds it now");
        done.countDown();
        assertTrue(other.get(10, TimeUnit.SECONDS), "the time to live let the other thread in");
        assertTrue(mine.tryLock(5, TimeUnit.SECONDS), "granted again once free, under the holds already counted");
        mine.unlock();
        mine.unlock();
        assertThrows(IllegalMonitorStateException.class, mine::unlock);
        assertThrows(IllegalArgumentException.class, () -> mine.lock(Duration.ZERO));
    }

    /** A candidate that counts its grants and revocations. */
    private static final class CountingCandidate extends DefaultCandidate {
        final AtomicInteger granted = new AtomicInteger();
        final AtomicInteger revoked = new AtomicInteger();

        CountingCandidate(String id) {
            super(id, "leader");
        }

        @Override
        public void onGranted(Context ctx) {
            granted.incrementAndGet();
        }

        @Override
        public void onRevoked(Context ctx) {
            revoked.incrementAndGet();
        }
    }

    @Test
    void leaderInitiatorsElectOneLeaderAndHandOverWhenItStops() throws Exception {
        LockFabricLockRegistry registry = registry(4);
        List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();
        List<CountingCandidate> candidates = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                CountingCandidate c = new CountingCandidate("node-" + i);
                LockRegistryLeaderInitiator init = new LockRegistryLeaderInitiator(registry, c);
                init.setHeartBeatMillis(20);
                init.setBusyWaitMillis(10);
                candidates.add(c);
                initiators.add(init);
                init.start();
            }
            int leader = awaitOneLeader(initiators, -1);
            assertEquals(1, candidates.get(leader).granted.get());

            initiators.get(leader).stop();
            int next = awaitOneLeader(initiators, leader);
            assertTrue(next != leader);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (candidates.get(leader).revoked.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(1, candidates.get(leader).revoked.get(), "the stopped leader was revoked");
        } finally {
            for (LockRegistryLeaderInitiator init : initiators) {
                init.destroy();
            }
        }
    }

    /**
     * Waits until exactly one running initiator other than {@code stopped} leads, then checks that it
     * stays the only leader over several heartbeats; returns its index.
     */
    private static int awaitOneLeader(List<LockRegistryLeaderInitiator> initiators, int stopped) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int leader = -1;
        while (leader < 0) {
            assertTrue(System.nanoTime() < deadline, "no leader was elected");
            List<Integer> leaders = leaders(initiators, stopped);
            assertTrue(leaders.size() <= 1, "two leaders at once: " + leaders);
            leader = leaders.isEmpty() ? -1 : leaders.getFirst();
            Thread.sleep(5);
        }
        for (int i = 0; i < 20; i++) {
            Thread.sleep(10);
            assertEquals(List.of(leader), leaders(initiators, stopped), "leadership moved or doubled");
        }
        return leader;
    }

    private static List<Integer> leaders(List<LockRegistryLeaderInitiator> initiators, int stopped) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < initiators.size(); i++) {
            if (i != stopped && initiators.get(i).getContext().isLeader()) {
                out.add(i);
            }
        }
        return out;
    }
}
