package io.lockfabric.sim;

import io.lockfabric.fabric.ClientThread;

import java.util.concurrent.locks.LockSupport;

/**
 * A simulated client: the real client code on a virtual thread that runs only while it holds the
 * simulation's baton. Whenever it blocks (a verb, a sleep, a wait for a message), after
 * scheduling the event that will resume it, its thread runs the simulation's events until one
 * resumes a process, and passes the baton on to that one (or keeps it, if that is itself); so
 * exactly one thread runs at a time and a run is a pure function of its configuration and seed.
 */
public final class SimProcess implements ClientThread {
    enum State { NEW, RUNNING, BLOCKED, DONE, CRASHED }

    private final Simulation sim;
    private final int index;
    private final String name;
    private final Runnable body;
    private Thread thread;
    private volatile boolean go;
    private boolean killed;
    private volatile boolean ended;
    State state = State.NEW;
    /** Incremented at every block; a resume event for an older wait is stale and ignored. */
    long waitToken;
    Object resumeValue;
    RuntimeException resumeError;
    /** While paused, resumes are deferred to this virtual time. */
    long pausedUntilNs;
    Throwable failure;
    private long crashedAtNs = -1;

    SimProcess(Simulation sim, int index, String name, Runnable body) {
        this.sim = sim;
        this.index = index;
        this.name = name;
        this.body = body;
    }

    public int index() {
        return index;
    }

    @Override
    public String name() {
        return name;
    }

    /** Whether the process crashed (by an injected fault). */
    public boolean crashed() {
        return state == State.CRASHED;
    }

    /** The virtual time the process crashed, or -1 if it did not. */
    public long crashedAtNs() {
        return crashedAtNs;
    }

    /** Whether the body returned or threw. */
    public boolean finished() {
        return state == State.DONE || state == State.CRASHED;
    }

    /** The exception the body ended with, if any (not a crash). */
    public Throwable failure() {
        return failure;
    }

    /** Virtual-time polling period of a process that joins another. */
    static final long JOIN_POLL_NS = 1_000;

    /**
     * From outside the simulation: runs it until this process has finished. From inside another
     * simulated process: waits (in virtual time) until this one has finished.
     */
    @Override
    public void join() {
        SimProcess caller = sim.current();
        if (caller == null) {
            sim.runUntil(this::finished, "process " + name + " to finish");
            return;
        }
        while (!finished()) {
            long token = sim.token(caller);
            sim.schedule(sim.now() + JOIN_POLL_NS, () -> sim.resume(caller, token, null, null));
            sim.block(caller);
        }
    }

    // ---------------------------------------------------------------- baton passing (giving side)

    /**
     * Gives this process the baton (from the thread that holds it): starts its thread, or wakes
     * it where it waits in {@link #block}.
     */
    void handBaton() {
        go = true;
        if (thread == null) {
            thread = Thread.ofVirtual().name(name).unstarted(this::main);
            thread.start();
        } else {
            LockSupport.unpark(thread);
        }
    }

    /**
     * Marks a blocked or crashed process for teardown: given the baton, it throws
     * {@link ProcessKilled} from where it waits.
     */
    void kill() {
        killed = true;
    }

    boolean hasLiveThread() {
        return thread != null && thread.isAlive() && !ended;
    }

    boolean isCurrentThread() {
        return thread == Thread.currentThread();
    }

    // ---------------------------------------------------------------- process side

    private void main() {
        waitForBaton();
        try {
            if (!killed) {
                body.run();
            }
            if (state != State.CRASHED) {
                state = State.DONE;
            }
        } catch (ProcessKilled e) {
            if (state != State.CRASHED) {
                state = State.DONE;
            }
        } catch (Throwable t) {
            failure = t;
            state = State.DONE;
        } finally {
            ended = true;
            sim.passBaton(this, true);
        }
    }

    /**
     * Blocks the calling process (which must be this one) until an event resumes it: its thread
     * runs events meanwhile, until one resumes it (it carries on at once) or another process (it
     * hands that one the baton and waits for its own turn).
     */
    void block() {
        state = State.BLOCKED;
        waitToken++;
        if (!sim.passBaton(this, false)) {
            waitForBaton();
        }
        if (killed) {
            throw new ProcessKilled(name);
        }
    }

    void checkAlive() {
        if (killed) {
            throw new ProcessKilled(name);
        }
    }

    void markCrashed() {
        crashedAtNs = sim.now();
        state = State.CRASHED;
        killed = true;
    }

    private void waitForBaton() {
        while (!go) {
            LockSupport.park(this);
        }
        go = false;
    }

    @Override
    public String toString() {
        return name + "(" + state + ")";
    }
}
