package io.lockfabric.fabric;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * How client code around the protocols (the client API's endpoint pool, its timers, its waits for a
 * request's outcome) waits and starts work on a fabric ({@link Fabric#clientRuntime()}): real threads
 * in real time ({@link #REAL_TIME}), or, on the simulator, simulated processes in virtual time.
 *
 * <p>Protocol code never uses it: it waits through its endpoint ({@link Clock}, queue pairs,
 * mailboxes). This is for the layer above, which needs what protocol code does not: to park a thread
 * until another one wakes it, to run a task later, to start a task of its own. On the simulator those
 * must pass the simulation's baton, or the run would hang or stop being a function of its seed; so
 * code above the protocols uses these, never {@code LockSupport}, {@code Thread.ofVirtual()} or a
 * {@code ScheduledExecutorService}, directly.
 */
public interface ClientRuntime {
    /** Real threads and real time: virtual threads for tasks, {@link LockSupport} for parking. */
    ClientRuntime REAL_TIME = new RealTime();

    /** Whether time here is virtual (the simulator): a wait of real time would never end. */
    boolean virtualTime();

    /** The time, in nanoseconds, that {@link Parker#parkNanos} and {@link Timers#schedule} count in. */
    long nanoTime();

    /**
     * Starts {@code task} as a thread of control of its own, now: a virtual thread in real time, a
     * simulated process on the simulator. For short tasks that may wait (a release, a listener).
     */
    void start(String name, Runnable task);

    /** A parker for the calling thread of control, which only it may park on. */
    Parker parker();

    /** Timers that run their tasks as threads of control of their own; shut them down when done. */
    Timers newTimers(String name);

    /**
     * Where one thread of control waits until another wakes it, with {@link LockSupport}'s permit
     * semantics: an {@link #unpark} before the {@link #park} makes the park return at once. Spurious
     * returns are allowed: callers re-check their condition.
     */
    interface Parker {
        /** Parks the owner until an {@link #unpark} (or spuriously). */
        void park();

        /** Parks the owner at most {@code nanos} of the runtime's time. */
        void parkNanos(long nanos);

        /** Wakes the owner, or lets its next park return at once. Any thread of control may call it. */
        void unpark();
    }

    /** Tasks run later, each as a thread of control of its own (real time: on one timer thread). */
    interface Timers {
        /**
         * Runs {@code task} after {@code delayNanos}, unless cancelled first.
         *
         * @throws java.util.concurrent.RejectedExecutionException if the timers are shut down
         */
        Cancellable schedule(Runnable task, long delayNanos);

        /** Drops the tasks not run yet; later schedules are rejected. Idempotent. */
        void shutdown();
    }

    /** A scheduled task, which may be cancelled before it runs. */
    interface Cancellable {
        /** Cancels the task if it has not started; a no-op afterwards. */
        void cancel();
    }

    /** {@link #REAL_TIME}. */
    final class RealTime implements ClientRuntime {
        private RealTime() {
        }

        @Override
        public boolean virtualTime() {
            return false;
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void start(String name, Runnable task) {
            Thread.ofVirtual().name(name).start(task);
        }

        @Override
        public Parker parker() {
            Thread owner = Thread.currentThread();
            return new Parker() {
                @Override
                public void park() {
                    LockSupport.park(this);
                }

                @Override
                public void parkNanos(long nanos) {
                    LockSupport.parkNanos(this, nanos);
                }

                @Override
                public void unpark() {
                    LockSupport.unpark(owner);
                }
            };
        }

        @Override
        public Timers newTimers(String name) {
            ThreadFactory daemon = r -> Thread.ofPlatform().name(name).daemon(true).unstarted(r);
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, daemon);
            executor.setRemoveOnCancelPolicy(true);
            return new Timers() {
                @Override
                public Cancellable schedule(Runnable task, long delayNanos) {
                    var f = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
                    return () -> f.cancel(false);
                }

                @Override
                public void shutdown() {
                    executor.shutdownNow();
                }
            };
        }

        @Override
        public String toString() {
            return "real time";
        }
    }
}
