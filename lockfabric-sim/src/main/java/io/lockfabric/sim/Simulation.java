package io.lockfabric.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The discrete-event scheduler: events ordered by (virtual time, sequence number), run one at a
 * time; simulated processes run only while they hold the baton. Keeps a running hash of
 * everything that happened, so two runs can be compared byte for byte.
 *
 * <p>The event loop has no thread of its own: it runs on whichever thread holds the baton and is
 * not running process code. {@link #runUntil} runs it on the calling thread until an event
 * resumes a process, and hands the baton to that process; when a process blocks, its own thread
 * runs the loop until an event resumes a process: itself (it just carries on, no hand-off at
 * all) or another one (one direct hand-off, then it parks until it is resumed). When the
 * condition of {@code runUntil} holds, or the simulation is stuck, the baton goes back to the
 * thread that called {@code runUntil}.
 *
 * <p>Not thread-safe by design: exactly one thread (the one holding the baton) touches it at any
 * moment, and the hand-offs are ordered by volatile writes.
 */
public final class Simulation {
    private static final long FNV_PRIME = 0x100000001b3L;

    private final EventQueue events = new EventQueue();
    private final List<SimProcess> processes = new ArrayList<>();
    private long now;
    private long seq;
    private long executedEvents;
    private long historyHash = 0xcbf29ce484222325L;
    private long timeLimitNs = Long.MAX_VALUE;
    /** The process holding the baton and running its own code; null while events run. */
    private SimProcess current;

    /** Processes resumed by the event just run, to run before the next event (rarely more than one). */
    private SimProcess resumed;
    private final ArrayDeque<SimProcess> moreResumed = new ArrayDeque<>();

    /** The thread in {@link #runUntil} or {@link #shutdown}, waiting to get the baton back. */
    private Thread caller;
    private volatile boolean callerGo;
    private BooleanSupplier done;
    private String what;
    /** Why the loop gave the baton back to the caller early, to be thrown there. */
    private Throwable loopError;
    private boolean tearingDown;

    /** Current virtual time in nanoseconds. */
    public long now() {
        return now;
    }

    public long executedEvents() {
        return executedEvents;
    }

    /** A hash of every event recorded with {@link #record} so far. */
    public long historyHash() {
        return historyHash;
    }

    /** Virtual time after which {@link #runUntil} gives up. */
    public void timeLimitNs(long limit) {
        this.timeLimitNs = limit;
    }

    public long timeLimitNs() {
        return timeLimitNs;
    }

    /** Mixes facts about an event into the history hash. */
    public void record(long a, long b, long c, long d) {
        long h = historyHash;
        h = (h ^ now) * FNV_PRIME;
        h = (h ^ a) * FNV_PRIME;
        h = (h ^ b) * FNV_PRIME;
        h = (h ^ c) * FNV_PRIME;
        h = (h ^ d) * FNV_PRIME;
        historyHash = h;
    }

    public void schedule(long at, Runnable action) {
        if (at < now) {
            throw new IllegalArgumentException("event at " + at + " is in the past (now " + now + ")");
        }
        events.add(now, at, seq++, action);
    }

    /** The process holding the baton, or null if the caller is not a simulated process. */
    public SimProcess current() {
        SimProcess p = current;
        return p != null && p.isCurrentThread() ? p : null;
    }

    public List<SimProcess> processes() {
        return List.copyOf(processes);
    }

    /** Adds a process that starts at the current virtual time. */
    public SimProcess spawn(String name, Runnable body) {
        SimProcess p = new SimProcess(this, processes.size(), name, body);
        processes.add(p);
        schedule(now, () -> runProcess(p));
        return p;
    }

    /**
     * Resumes a blocked process with a value, unless the wait is stale or the process is gone.
     * Called by an event; the process runs when that event's action has returned.
     */
    public void resume(SimProcess p, long token, Object value, RuntimeException error) {
        if (p.finished() || p.state != SimProcess.State.BLOCKED || p.waitToken != token) {
            return;
        }
        if (p.pausedUntilNs > now) {
            schedule(p.pausedUntilNs, () -> resume(p, token, value, error));
            return;
        }
        p.resumeValue = value;
        p.resumeError = error;
        // no longer waiting: another resume of this wait (in this same event) is stale
        p.state = SimProcess.State.RUNNING;
        runProcess(p);
    }

    /** Marks {@code p} to run once the current event's action has returned. */
    private void runProcess(SimProcess p) {
        if (resumed == null) {
            resumed = p;
        } else {
            moreResumed.add(p);
        }
    }

    /**
     * Blocks the calling process until an event resumes it, returning the resume value. The
     * caller schedules that event first, using {@link #token(SimProcess)} for the wait.
     */
    Object block(SimProcess p) {
        p.block();
        RuntimeException e = p.resumeError;
        Object v = p.resumeValue;
        p.resumeError = null;
        p.resumeValue = null;
        if (e != null) {
            throw e;
        }
        return v;
    }

    /** The token the next {@link #block} of {@code p} will wait under. */
    long token(SimProcess p) {
        return p.waitToken + 1;
    }

    /** Crashes a process now: it never runs again and holds whatever it holds. */
    public void crash(SimProcess p) {
        if (!p.finished()) {
            p.markCrashed();
        }
    }

    // ---------------------------------------------------------------- event loop

    /**
     * Runs events until {@code done} holds. Called from outside the simulation (a test, the
     * runner): the calling thread runs events until one resumes a process, then waits until the
     * baton comes back to it.
     *
     * @throws SimulationStuckException if events run out or virtual time passes the limit first
     */
    public void runUntil(BooleanSupplier done, String what) {
        if (current() != null) {
            throw new IllegalStateException("a simulated process cannot run the simulation");
        }
        if (caller != null) {
            throw new IllegalStateException("the simulation is already being run by " + caller);
        }
        this.done = done;
        this.what = what;
        this.caller = Thread.currentThread();
        Throwable error;
        try {
            SimProcess next = loopSafely();
            if (next != null) {
                handTo(next);
                awaitCaller();
            }
        } finally {
            error = loopError;
            loopError = null;
            this.caller = null;
            this.done = null;
            this.what = null;
        }
        switch (error) {
            case null -> {
            }
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> throw new IllegalStateException(error);
        }
    }

    /**
     * Runs events on the calling thread, which holds the baton, until it must go elsewhere.
     *
     * @return the process to hand the baton to, or null to give it back to the caller of
     * {@link #runUntil} (its condition holds, or {@link #loopError} says why not)
     */
    private SimProcess loopSafely() {
        try {
            return loop();
        } catch (Throwable e) {
            loopError = e;
            return null;
        }
    }

    private SimProcess loop() {
        for (;;) {
            SimProcess p = nextResumed();
            if (p != null) {
                if (p.finished()) {
                    continue;
                }
                if (p.pausedUntilNs > now) {
                    schedule(p.pausedUntilNs, () -> runProcess(p));
                    continue;
                }
                return p;
            }
            if (done.getAsBoolean()) {
                return null;
            }
            if (events.isEmpty()) {
                loopError = new SimulationStuckException("no events left at virtual time " + now
                        + " ns while waiting for " + what + "; blocked: " + blocked());
                return null;
            }
            long t = events.peekTime(now);
            if (t > timeLimitNs) {
                loopError = new SimulationStuckException("virtual time limit " + timeLimitNs
                        + " ns reached while waiting for " + what + "; blocked: " + blocked());
                return null;
            }
            now = t;
            Runnable action = events.poll();
            executedEvents++;
            action.run();
        }
    }

    private SimProcess nextResumed() {
        SimProcess p = resumed;
        if (p != null) {
            resumed = moreResumed.poll();
        }
        return p;
    }

    /** Gives the baton to process {@code p} (not the calling thread's own). */
    private void handTo(SimProcess p) {
        current = p;
        p.state = SimProcess.State.RUNNING;
        p.handBaton();
    }

    /**
     * Process side: the calling process {@code p} blocks (or has ended, {@code ended}). Runs
     * events on its thread until the baton must go elsewhere, and hands it on. Returns true if
     * the process itself was resumed (it keeps the baton and carries on); false if the baton went
     * elsewhere (the caller then waits for it, or ends).
     */
    boolean passBaton(SimProcess p, boolean ended) {
        current = null;
        SimProcess next = tearingDown ? null : loopSafely();
        if (next == p && !ended) {
            current = p;
            p.state = SimProcess.State.RUNNING;
            return true;
        }
        if (next != null) {
            handTo(next);
        } else {
            Thread waiting = caller;
            callerGo = true;
            LockSupport.unpark(waiting);
        }
        return false;
    }

    /** Caller side: wait until the baton comes back. */
    private void awaitCaller() {
        boolean interrupted = false;
        while (!callerGo) {
            LockSupport.park(this);
            interrupted |= Thread.interrupted();
        }
        callerGo = false;
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private String blocked() {
        StringBuilder sb = new StringBuilder();
        int shown = 0;
        for (SimProcess p : processes) {
            if (p.state == SimProcess.State.BLOCKED) {
                if (shown++ < 10) {
                    sb.append(p.name()).append(' ');
                }
            }
        }
        return shown == 0 ? "none" : sb.append("(").append(shown).append(" in all)").toString();
    }

    /** Tears down every process still blocked (crashed ones included), one at a time. */
    public void shutdown() {
        if (current() != null) {
            throw new IllegalStateException("a simulated process cannot shut the simulation down");
        }
        if (caller != null) {
            throw new IllegalStateException("the simulation is being run by " + caller);
        }
        caller = Thread.currentThread();
        tearingDown = true;
        try {
            for (SimProcess p : processes) {
                if (p.hasLiveThread()) {
                    p.kill();
                    current = p;
                    p.handBaton();
                    awaitCaller();
                    current = null;
                }
            }
        } finally {
            tearingDown = false;
            caller = null;
        }
    }
}
