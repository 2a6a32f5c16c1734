package io.lockfabric.fabric;

import java.io.Serial;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A client's wait or verb on a real-time fabric gave up because its thread was interrupted: whoever
 * runs the client has ended it from outside (a benchmark run past its deadline, a process told to
 * stop). Every real-time wait answers an interrupt this way: a mailbox's {@code await}, a clock's
 * {@code sleepNanos}, an {@link IdleStrategy}'s {@code idle}, the wait for a verb's or an rpc's
 * reply; and the local fabric checks before each verb, so that a client spinning on verbs stops too.
 *
 * <p>Like {@link InterruptedException}, throwing it clears the thread's interrupt status: the
 * protocol's own error handling then still runs (a range lock that gives up releases the parts it
 * had taken, as it does for any fabric error). Whoever interrupted a client that has not ended
 * after that interrupts it again. What the client did on the memory node before the interrupt
 * stays done: a client interrupted in the middle of an acquisition leaves the lock as a client
 * that crashed there would (enqueued, or holding it), which a protocol with lease-based recovery
 * recovers and any other protocol does not. Unchecked, as the protocol SPI has no checked
 * exceptions. Never thrown on the simulator, whose clients are ended in virtual time.
 *
 * <p>Code that runs a protocol on a thread it does not own (an application's thread calling a lock
 * API) must not let an interrupt cut an acquisition short: it runs the protocol under
 * {@link #deferringInterrupts}, which makes every wait ignore an interrupt until the body returns and
 * then sets the thread's interrupt status again.
 */
public final class WaitInterruptedException extends FabricException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * The innermost deferral under way on this thread, or null: set around a deferred body and put
     * back after it, so that nested deferrals nest. A thread-local set and restored per run, not a
     * scoped value bound per run: a binding made a snapshot object at every run, and a lock
     * client's every acquisition and release runs deferred (read only when an interrupt came).
     */
    private static final ThreadLocal<Deferred> DEFERRED = new ThreadLocal<>();

    /** An interrupt seen (and cleared) while interrupts were deferred; one thread only. */
    private static final class Deferred {
        final BooleanSupplier cutShort;
        boolean interrupted;

        Deferred(BooleanSupplier cutShort) {
            this.cutShort = cutShort;
        }
    }

    /** @param waitingFor what the client was waiting for: {@code a message}, {@code a verb's reply} */
    public WaitInterruptedException(String waitingFor) {
        super("interrupted while waiting for " + waitingFor + " (the client was ended from outside)");
    }

    /**
     * Throws if the current thread has been interrupted, clearing its interrupt status.
     *
     * @param waitingFor what the caller is about to wait for, for the message
     * @throws WaitInterruptedException if the thread was interrupted
     */
    public static void throwIfInterrupted(String waitingFor) {
        if (Thread.interrupted()) {
            Deferred d = DEFERRED.get();
            if (d != null && !d.cutShort.getAsBoolean()) {
                d.interrupted = true; // cleared so that parking works; set again at the end
                return;
            }
            throw new WaitInterruptedException(waitingFor);
        }
    }

    /**
     * Runs {@code body} on this thread with interrupts deferred: no real-time wait or verb in it gives
     * up when the thread is interrupted (each clears the interrupt and goes on), and once the body
     * has returned or thrown, the thread's interrupt status is set again if an interrupt came before
     * or during it. For running a protocol step that must not be cut short on a thread that others
     * may interrupt.
     */
    public static <T> T deferringInterrupts(Supplier<T> body) {
        return deferringInterruptsUnless(() -> false, body);
    }

    /**
     * {@link #deferringInterrupts} except when {@code cutShort} says so: an interrupt that comes
     * while {@code cutShort} is true (asked when the interrupt is seen) is not deferred, and the wait
     * throws as it would without deferral. For whoever runs the body on another's thread and must
     * still be able to end it (the memory node was lost, the pool is closing): it sets its condition,
     * then interrupts the thread.
     */
    public static <T> T deferringInterruptsUnless(BooleanSupplier cutShort, Supplier<T> body) {
        Deferred deferred = new Deferred(cutShort);
        Deferred outer = DEFERRED.get();
        DEFERRED.set(deferred);
        try {
            return body.get();
        } finally {
            DEFERRED.set(outer);
            if (deferred.interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * {@link #deferringInterruptsUnless} made once and run many times, by one thread at a time: its
     * state is made once, not at every run (an endpoint's user runs every
     * acquisition and release this way). A run nested in another run of the same deferral gets a
     * state of its own.
     */
    public static final class Deferral {
        private final Deferred state;
        /** Whether a run is under way (written by the running thread only). */
        private boolean running;
        /** Whether the last run ended by setting again an interrupt it had deferred (written by the running thread only). */
        private boolean reinterrupted;

        /** @param cutShort as for {@link #deferringInterruptsUnless} */
        public Deferral(BooleanSupplier cutShort) {
            this.state = new Deferred(cutShort);
        }

        /** Runs {@code body} as {@link #deferringInterruptsUnless} would, with this deferral's condition. */
        public <T> T run(Supplier<T> body) {
            return run(Supplier::get, body);
        }

        /**
         * Runs {@code body} on {@code argument} as {@link #run(Supplier)} does. A body that captures
         * nothing (a static method's reference) and its argument make a run that allocates
         * nothing: what a lock client's every acquisition and release goes through.
         */
        public <A, T> T run(Function<? super A, ? extends T> body, A argument) {
            if (running) {
                return deferringInterruptsUnless(state.cutShort, () -> body.apply(argument));
            }
            running = true;
            state.interrupted = false;
            Deferred outer = DEFERRED.get();
            DEFERRED.set(state);
            try {
                return body.apply(argument);
            } finally {
                DEFERRED.set(outer);
                running = false;
                reinterrupted = state.interrupted;
                if (state.interrupted) {
                    state.interrupted = false;
                    Thread.currentThread().interrupt();
                }
            }
        }

        /**
         * Whether the last run on this thread ended by setting the thread's interrupt status again
         * for an interrupt it had deferred: an interrupt of the thread's owner, which whoever cut the
         * run short with an interrupt of its own must not clear with its own.
         */
        public boolean reinterrupted() {
            return reinterrupted;
        }
    }
}
