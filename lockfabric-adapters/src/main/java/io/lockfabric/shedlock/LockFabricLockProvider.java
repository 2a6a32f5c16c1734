package io.lockfabric.shedlock;

import io.lockfabric.Held;
import io.lockfabric.LockFabricException;
import io.lockfabric.LockSpace;
import io.lockfabric.lock.Mode;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;

import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A ShedLock {@link LockProvider} on a {@link LockSpace}: a scheduled task's lock is the exclusive
 * lock of its name in the space, the same for every process that opens the space on the same memory
 * node. Give it to ShedLock's {@code DefaultLockingTaskExecutor} or to its Spring integration
 * ({@code @EnableSchedulerLock}).
 *
 * <pre>{@code
 * LockSpace tasks = lf.lockSpace("shedlock", SpaceOptions.builder().option("lease-ns", "10m").build());
 * LockingTaskExecutor executor = new DefaultLockingTaskExecutor(new LockFabricLockProvider(tasks));
 * executor.executeWithLock(this::report, new LockConfiguration(Instant.now(), "report",
 *         Duration.ofMinutes(10), Duration.ofSeconds(30)));
 * }</pre>
 *
 * <p><b>Locking.</b> {@link #lock} asks the memory node for the lock, waits at most
 * {@link Builder#waitAtMost} ({@link #DEFAULT_WAIT}) and returns empty if it was not granted by then, so
 * ShedLock skips the task. A protocol cannot tell a lock that is held from a memory node that is slow
 * to answer, so the wait is a trade: too short, and a free lock is reported taken (a run skipped for
 * nothing: the first acquisition on a cold endpoint of a busy machine took 17 ms on {@code local} and
 * 32 ms on tcp here); too long, and a node that asks while another runs a task shorter than the wait
 * gets the lock when that run ends and runs the task again. So keep {@code lockAtLeastFor} longer
 * than the wait plus the clock skew between nodes, which is ShedLock's own advice for short tasks.
 *
 * <p><b>lockAtMostFor</b> is the hold's time to live: it is taken with
 * {@link LockSpace#tryAcquire(String, Mode, Duration, Duration)} and releases itself at
 * {@code createdAt + lockAtMostFor} (the remainder when granted, at least 1 ms) if the task is still
 * running, as ShedLock's providers let the lock go then. The space's protocol lease
 * ({@link LockSpace#lease()}, the {@code lease-ns} option) must be at least as long: after the lease
 * a hold may be taken by recovery, so a {@code lockAtMostFor} longer than the lease is refused with
 * an {@link IllegalArgumentException} naming the option to set. The lease is also how long a crashed
 * process's locks stay taken, which is what {@code lockAtMostFor} means to ShedLock.
 *
 * <p><b>lockAtLeastFor</b> is kept by keeping the grant: {@link SimpleLock#unlock()} before
 * {@code createdAt + lockAtLeastFor} releases nothing then, and the grant is released at that
 * instant by the {@link Builder#scheduler scheduler} (default: the JDK's delayed executor, the
 * release on a virtual thread). The lock is never free before that instant, so no other process can
 * slip in (releasing and taking a shorter grant again would leave a gap). The cost: until then the
 * hold keeps one endpoint of the {@code LockFabric}'s pool, so a pool must have room for the tasks
 * that are in their {@code lockAtLeastFor} tail at once. If this process dies first, the grant's time
 * to live ({@code lockAtMostFor}) or the protocol lease ends it.
 *
 * <p><b>Names and slots.</b> Task names are keys of the space, hashed to its slots. Two names of
 * one slot would share a lock: for ShedLock that is not a harmless false conflict but a task skipped
 * while the other runs. The provider remembers the names it has locked and refuses, with an
 * {@link IllegalStateException}, a name whose slot another name has: open the space with more slots
 * ({@code SpaceOptions.builder().slots(n)}) until the task names are apart. It can see only the
 * names of this process; processes that run the same tasks see the same names.
 *
 * <p>{@link SimpleLock#extend} is not supported (a grant's time to live cannot be changed): it throws
 * {@link UnsupportedOperationException}, as ShedLock allows; {@code KeepAliveLockProvider} does not apply.
 *
 * <p>Thread-safe.
 */
public final class LockFabricLockProvider implements LockProvider {
    /** The default of {@link Builder#waitAtMost}: how long {@link #lock} waits for a grant before it reports the lock taken. */
    public static final Duration DEFAULT_WAIT = Duration.ofMillis(100);

    /** The shortest time to live given to a grant whose {@code lockAtMostUntil} has already passed. */
    public static final Duration MIN_TIME_TO_LIVE = Duration.ofMillis(1);

    private final LockSpace space;
    private final Duration wait;
    private final InstantSource clock;
    private final ScheduledExecutorService scheduler;
    private final ConcurrentHashMap<Long, String> namesBySlot = new ConcurrentHashMap<>();

    /** A provider on {@code space} with the defaults ({@link Builder}). */
    public LockFabricLockProvider(LockSpace space) {
        this(builder(space));
    }

    private LockFabricLockProvider(Builder b) {
        this.space = b.space;
        this.wait = b.wait;
        this.clock = b.clock;
        this.scheduler = b.scheduler;
    }

    /** A builder of a provider on {@code space}. */
    public static Builder builder(LockSpace space) {
        return new Builder(Objects.requireNonNull(space, "space"));
    }

    /** The space whose locks this provider gives. */
    public LockSpace space() {
        return space;
    }

    /**
     * Takes the lock of {@code config.getName()} if it is free, for at most {@code lockAtMostFor}.
     *
     * @return the lock, or empty if another holder has it (nothing is then held)
     * @throws IllegalArgumentException if {@code lockAtMostFor} is longer than the space's lease
     * @throws IllegalStateException    if the name shares its slot with another name this provider locked
     * @throws LockFabricException      if the fabric fails
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration config) {
        String name = config.getName();
        checkLease(config);
        checkSlot(name);
        Duration ttl = Duration.between(clock.instant(), config.getLockAtMostUntil());
        if (ttl.compareTo(MIN_TIME_TO_LIVE) < 0) {
            ttl = MIN_TIME_TO_LIVE;
        }
        return space.tryAcquire(name, Mode.EXCLUSIVE, wait, ttl).map(h -> new FabricLock(h, config));
    }

    private void checkLease(LockConfiguration config) {
        space.lease().ifPresent(lease -> {
            if (config.getLockAtMostFor().compareTo(lease) > 0) {
                throw new IllegalArgumentException("lockAtMostFor " + config.getLockAtMostFor() + " of task '"
                        + config.getName() + "' is longer than the lease " + lease + " of lock space '" + space.name()
                        + "' (protocol " + space.protocol() + "): a hold may be taken by recovery after the lease; open "
                        + "the space with the option lease-ns at least " + config.getLockAtMostFor().toMillis() + "ms");
            }
        });
    }

    private void checkSlot(String name) {
        long slot = space.slotOf(name);
        String other = namesBySlot.putIfAbsent(slot, name);
        if (other != null && !other.equals(name)) {
            throw new IllegalStateException("tasks '" + other + "' and '" + name + "' hash to the same slot " + slot
                    + " of lock space '" + space.name() + "' (" + space.slots() + " slots): one would be skipped while "
                    + "the other runs; open the space with more slots");
        }
    }

    @Override
    public String toString() {
        return "LockFabricLockProvider[" + space + "]";
    }

    /**
     * A task's lock: its grant, released at unlock or at {@code lockAtLeastUntil}, whichever is later.
     */
    private final class FabricLock implements SimpleLock {
        private final Held held;
        private final LockConfiguration config;
        private final AtomicBoolean unlocked = new AtomicBoolean();

        FabricLock(Held held, LockConfiguration config) {
            this.held = held;
            this.config = config;
        }

        /**
         * Releases the lock now, or at {@code createdAt + lockAtLeastFor} if that is later.
         *
         * @throws IllegalStateException if the lock was unlocked already
         */
        @Override
        public void unlock() {
            if (!unlocked.compareAndSet(false, true)) {
                throw new IllegalStateException("lock '" + config.getName() + "' was already unlocked");
            }
            long restNs = Duration.between(clock.instant(), config.getLockAtLeastUntil()).toNanos();
            if (restNs <= 0) {
                held.close();
            } else if (scheduler != null) {
                scheduler.schedule(this::release, restNs, TimeUnit.NANOSECONDS);
            } else {
                Executor onVirtualThread = r -> Thread.ofVirtual().name("shedlock-release-" + config.getName()).start(r);
                CompletableFuture.delayedExecutor(restNs, TimeUnit.NANOSECONDS, onVirtualThread).execute(this::release);
            }
        }

        private void release() {
            try {
                held.close();
            } catch (LockFabricException e) {
                // the release failed: the lock is left as a crashed client leaves it, and its time to live ends it
            }
        }

        @Override
        public String toString() {
            return "LockFabricLockProvider.Lock[" + config + ", " + held + "]";
        }
    }

    /** Options of a {@link LockFabricLockProvider}. Not thread-safe. */
    public static final class Builder {
        private final LockSpace space;
        private Duration wait = DEFAULT_WAIT;
        private InstantSource clock = Clock.systemUTC();
        private ScheduledExecutorService scheduler;

        private Builder(LockSpace space) {
            this.space = space;
        }

        /**
         * How long {@link LockProvider#lock} waits for a grant before it says the lock is taken
         * (default {@link #DEFAULT_WAIT}; never shorter than the fabric's try-lock grace). See the
         * class's javadoc for the trade.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder waitAtMost(Duration wait) {
            if (Objects.requireNonNull(wait, "wait").isNegative()) {
                throw new IllegalArgumentException("a wait must not be negative, got " + wait);
            }
            this.wait = wait;
            return this;
        }

        /**
         * The clock that {@code createdAt}, {@code lockAtMostUntil} and {@code lockAtLeastUntil} are
         * read against (default: the system's UTC clock, the default of ShedLock's {@code ClockProvider}).
         */
        public Builder clock(InstantSource clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Where releases at {@code lockAtLeastUntil} are scheduled (default: the JDK's
         * {@code CompletableFuture.delayedExecutor}, each release on a virtual thread). The provider
         * does not shut it down.
         */
        public Builder scheduler(ScheduledExecutorService scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /** The provider. */
        public LockFabricLockProvider build() {
            return new LockFabricLockProvider(this);
        }
    }
}
