package io.lockfabric.fabric;

import java.time.Duration;

/**
 * A client's thread of control, started by {@link Fabric#spawn}.
 *
 * <p>On a real-time fabric it is a platform thread (a virtual one on a tcp fabric built for virtual
 * threads), which whoever runs the client can also wait for with a bound ({@link #join(long)}) and
 * end from outside ({@link #interrupt()}). On the simulator
 * the simulation runs and ends its processes itself, in virtual time, and those two are not
 * supported.
 */
public interface ClientThread {
    String name();

    /**
     * Waits until the client's body has returned (or thrown, or, on the simulator, crashed). On
     * the simulator this is what runs the simulation.
     */
    void join();

    /**
     * Waits at most {@code timeoutNanos} of real time for the client's body to return.
     *
     * @return whether it has returned
     * @throws UnsupportedOperationException on a fabric whose clients run in virtual time
     */
    default boolean join(long timeoutNanos) {
        throw new UnsupportedOperationException(name() + ": a bounded join needs a real-time fabric");
    }

    /**
     * Ends the client from outside: its current or next wait or verb on the fabric throws
     * {@link WaitInterruptedException}. Call it again if the client has not ended a while later: the
     * exception clears the interrupt, so the protocol's own error handling may wait again.
     *
     * @throws UnsupportedOperationException on a fabric whose clients run in virtual time
     */
    default void interrupt() {
        throw new UnsupportedOperationException(name() + ": interrupting a client needs a real-time fabric");
    }

    /**
     * A platform thread named {@code name} running {@code body}, started now (the real-time
     * fabrics). It is a daemon thread: a client that is stuck and does not answer its interrupt (a
     * wait outside the fabric) cannot keep the JVM from exiting once its run has been reported.
     */
    static ClientThread startPlatform(String name, Runnable body) {
        return of(Thread.ofPlatform().name(name).daemon(true).start(body));
    }

    /**
     * A virtual thread named {@code name} running {@code body}, started now (a tcp fabric built for
     * virtual threads: many clients share a few carrier threads, and a client waiting for a reply
     * costs no operating-system thread switch). Virtual threads never keep the JVM from exiting.
     */
    static ClientThread startVirtual(String name, Runnable body) {
        return of(Thread.ofVirtual().name(name).start(body));
    }

    /** {@code t}, started, as a client thread. */
    private static ClientThread of(Thread t) {
        String name = t.getName();
        return new ClientThread() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void join() {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new FabricException("interrupted while joining " + name, e);
                }
            }

            @Override
            public boolean join(long timeoutNanos) {
                try {
                    return t.join(Duration.ofNanos(Math.max(0, timeoutNanos)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new FabricException("interrupted while joining " + name, e);
                }
            }

            @Override
            public void interrupt() {
                t.interrupt();
            }
        };
    }
}
