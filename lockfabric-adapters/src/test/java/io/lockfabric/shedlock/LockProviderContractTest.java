package io.lockfabric.shedlock;

import io.lockfabric.LockFabric;
import io.lockfabric.LockSpace;
import io.lockfabric.SpaceOptions;

import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockingTaskExecutor.TaskResult;
import net.javacrumbs.shedlock.core.SimpleLock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LockFabricLockProvider} used as ShedLock uses a provider: a {@link DefaultLockingTaskExecutor}
 * running tasks by name from many threads at once, skipping a task whose lock is held, keeping a lock
 * for {@code lockAtLeastFor} and letting it go after {@code lockAtMostFor}. Run on every real-time
 * fabric by a subclass that says where the memory node is.
 */
@Tag("contract")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class LockProviderContractTest {
    /** The fabric address to open. */
    abstract String address();

    /** The lease of the spaces of these tests: every {@code lockAtMostFor} below fits in it. */
    static final Duration LEASE = Duration.ofSeconds(5);

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

    private LockSpace space(int poolSize, long slots) {
        LockFabric lf = LockFabric.builder(address()).poolSize(poolSize).open();
        opened.add(lf);
        return lf.lockSpace(spaceName, SpaceOptions.builder().protocol(lf.defaultProtocol()).slots(slots)
                .option("lease-ns", LEASE.toMillis() + "ms").build());
    }

    private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(Instant.now(), name, atMost, atLeast);
    }

    /** How long a free lock may take to be granted here (a cold endpoint, a busy machine). */
    private static final long FREE_LOCK_DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);

    /**
     * Runs {@code task} as {@code name} until it is executed, as a free lock may be reported taken when
     * the fabric is slower than the provider's wait; the configuration of the run that executed.
     */
    private static LockConfiguration runUntilExecuted(LockingTaskExecutor executor, String name, Duration atMost,
                                                      Duration atLeast, LockingTaskExecutor.Task task) throws Throwable {
        long deadline = System.nanoTime() + FREE_LOCK_DEADLINE_NS;
        while (true) {
            LockConfiguration c = config(name, atMost, atLeast);
            if (executor.executeWithLock(() -> {
                task.call();
                return null;
            }, c).wasExecuted()) {
                return c;
            }
            assertTrue(System.nanoTime() < deadline, "the lock of " + name + " was never granted");
        }
    }

    /** {@link LockFabricLockProvider#lock} until it grants a lock that should be free. */
    private static SimpleLock lockUntilGranted(LockFabricLockProvider provider, String name) {
        long deadline = System.nanoTime() + FREE_LOCK_DEADLINE_NS;
        while (true) {
            var lock = provider.lock(config(name, Duration.ofSeconds(1), Duration.ZERO));
            if (lock.isPresent()) {
                return lock.get();
            }
            assertTrue(System.nanoTime() < deadline, "the lock of " + name + " was never granted");
        }
    }

    private static final class Counter {
        long value; // deliberately unguarded: the lock is what keeps it exact
    }

    @Test
    void manyThreadsRunATaskOneAtATimeAndSkipItWhileItRuns() throws Throwable {
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(new LockFabricLockProvider(space(4, 4096)));
        Counter counter = new Counter();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        AtomicLong executed = new AtomicLong();
        AtomicLong skipped = new AtomicLong();
        AtomicInteger failures = new AtomicInteger();
        int rounds = 10;
        Runnable body = () -> {
            for (int i = 0; i < rounds; i++) {
                try {
                    TaskResult<Void> r = executor.executeWithLock(() -> {
                        maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                        counter.value++;
                        Thread.sleep(5); // long enough for others to find it running
                        running.decrementAndGet();
                        return null;
                    }, config("report", Duration.ofSeconds(2), Duration.ZERO));
                    (r.wasExecuted() ? executed : skipped).incrementAndGet();
                } catch (Throwable t) {
                    failures.incrementAndGet();
                }
            }
        };
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            threads.add((i % 2 == 0 ? Thread.ofVirtual() : Thread.ofPlatform()).unstarted(body));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(0, failures.get());
        assertEquals(1, maxRunning.get(), "two runs of the task overlapped");
        assertEquals(executed.get(), counter.value);
        assertEquals(12L * rounds, executed.get() + skipped.get());
        assertTrue(executed.get() > 0, executed + " executed, " + skipped + " skipped");
        runUntilExecuted(executor, "report", Duration.ofSeconds(2), Duration.ZERO, () -> { }); // free once every run ended
    }

    @Test
    void aSecondAttemptWhileTheTaskRunsIsSkipped() throws Throwable {
        LockSpace space = space(4, 4096);
        assertNotEquals(space.slotOf("import"), space.slotOf("cleanup"));
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(new LockFabricLockProvider(space));
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<LockConfiguration> first = CompletableFuture.supplyAsync(() -> {
            try {
                return runUntilExecuted(executor, "import", Duration.ofSeconds(4), Duration.ZERO, () -> {
                    started.countDown();
                    finish.await();
                });
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }, r -> Thread.ofPlatform().start(r));
        assertTrue(started.await(20, TimeUnit.SECONDS));
        assertFalse(executor.executeWithLock(() -> "again", config("import", Duration.ofSeconds(4), Duration.ZERO))
                .wasExecuted(), "skipped while it runs");
        runUntilExecuted(executor, "cleanup", Duration.ofSeconds(4), Duration.ZERO, () -> { }); // another lock
        assertFalse(executor.executeWithLock(() -> "again", config("import", Duration.ofSeconds(4), Duration.ZERO))
                .wasExecuted(), "still skipped while it runs");
        finish.countDown();
        first.get(20, TimeUnit.SECONDS);
        runUntilExecuted(executor, "import", Duration.ofSeconds(4), Duration.ZERO, () -> { }); // once the first run ended
    }

    @Test
    void lockAtLeastForKeepsTheLockAfterAShortTask() throws Throwable {
        checkLockAtLeastFor(new LockFabricLockProvider(space(4, 4096)));
    }

    @Test
    void lockAtLeastForOnAnInjectedScheduler() throws Throwable {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try {
            checkLockAtLeastFor(LockFabricLockProvider.builder(space(4, 4096)).scheduler(scheduler).build());
        } finally {
            scheduler.shutdownNow();
        }
    }

    private static void checkLockAtLeastFor(LockFabricLockProvider provider) throws Throwable {
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
        Duration atLeast = Duration.ofMillis(600); // longer than the provider's wait, as the provider's javadoc asks
        LockConfiguration first = runUntilExecuted(executor, "digest", Duration.ofSeconds(3), atLeast, () -> { });
        assertFalse(executor.executeWithLock(() -> "again", config("digest", Duration.ofSeconds(3), Duration.ZERO))
                .wasExecuted(), "skipped: the first run's lockAtLeastFor has not passed");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!executor.executeWithLock(() -> "again", config("digest", Duration.ofSeconds(3), Duration.ZERO)).wasExecuted()) {
            assertTrue(System.nanoTime() < deadline, "the lock was never released after lockAtLeastFor");
            Thread.sleep(10);
        }
        Duration after = Duration.between(first.getLockAtLeastUntil(), Instant.now());
        assertFalse(after.isNegative(), "ran again " + after.negated() + " before lockAtLeastUntil");
    }

    @Test
    void lockAtMostForReleasesTheLockOfATaskThatRunsOn() throws Throwable {
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(new LockFabricLockProvider(space(4, 4096)));
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<LockConfiguration> first = CompletableFuture.supplyAsync(() -> {
            try {
                return runUntilExecuted(executor, "sync", Duration.ofMillis(300), Duration.ZERO, () -> {
                    started.countDown();
                    finish.await();
                });
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }, r -> Thread.ofPlatform().start(r));
        assertTrue(started.await(20, TimeUnit.SECONDS));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!executor.executeWithLock(() -> "next", config("sync", Duration.ofSeconds(3), Duration.ZERO)).wasExecuted()) {
            assertTrue(System.nanoTime() < deadline, "lockAtMostFor never released the lock");
            Thread.sleep(10);
        }
        Instant taken = Instant.now();
        finish.countDown();
        LockConfiguration hung = first.get(20, TimeUnit.SECONDS); // its unlock, after its lock went, is quiet
        assertFalse(taken.isBefore(hung.getLockAtMostUntil()), "taken before lockAtMostUntil");
    }

    @Test
    void aLockAtMostForLongerThanTheLeaseIsRefused() {
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(new LockFabricLockProvider(space(2, 4096)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> executor.executeWithLock((Runnable) () -> { }, config("long", LEASE.plusSeconds(1), Duration.ZERO)));
        assertTrue(e.getMessage().contains("lease-ns"), e.getMessage());
    }

    @Test
    void twoNamesOfOneSlotAreRefused() {
        LockSpace space = space(2, 2);
        String a = "task-0";
        String b = null;
        for (int i = 1; b == null; i++) {
            if (space.slotOf("task-" + i) == space.slotOf(a)) {
                b = "task-" + i;
            }
        }
        LockFabricLockProvider provider = new LockFabricLockProvider(space);
        lockUntilGranted(provider, a).unlock();
        String other = b;
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> provider.lock(config(other, Duration.ofSeconds(1), Duration.ZERO)));
        assertTrue(e.getMessage().contains(a) && e.getMessage().contains(b), e.getMessage());
        lockUntilGranted(provider, a).unlock();
    }

    @Test
    void aLockIsUnlockedOnceAndCannotBeExtended() {
        LockFabricLockProvider provider = new LockFabricLockProvider(space(2, 4096));
        SimpleLock lock = lockUntilGranted(provider, "once");
        assertTrue(provider.lock(config("once", Duration.ofSeconds(1), Duration.ZERO)).isEmpty(), "held");
        assertThrows(UnsupportedOperationException.class, () -> lock.extend(Duration.ofSeconds(1), Duration.ZERO));
        lock.unlock();
        assertThrows(IllegalStateException.class, lock::unlock);
        lockUntilGranted(provider, "once").unlock();
    }
}
