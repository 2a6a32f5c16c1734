package io.lockfabric.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The discrete-event scheduler: events ordered by (virtual time, sequence number), run one at a
 * time by a driver thread; simulated processes run only when an event hands them the baton. Keeps
 * a running hash of everything that happened, so two runs can be compared byte for byte.
 *
 * <p>Not thread-safe by design: exactly one thread (the driver or the process holding the baton)
 * touches it at any moment, and the hand-offs are ordered by volatile writes.
 */
public final class Simulation {
    private static final long FNV_PRIME = 0x100000001b3L;

    private record Event(long time, long seq, Runnable action) {
    }

    private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> a.time != b.time
            ? Long.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
    private final List<SimProcess> processes = new ArrayList<>();
    private long now;
    private long seq;
    private long executedEvents;
    private long historyHash = 0xcbf29ce484222325L;
    private long timeLimitNs = Long.MAX_VALUE;
    private SimProcess current;
    private Thread driver;
    private volatile boolean driverGo;

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
        events.add(new Event(at, seq++, action));
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

    /** Resumes a blocked process with a value, unless the wait is stale or the process is gone. */
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
        runProcess(p);
    }

    private void runProcess(SimProcess p) {
        if (p.finished()) {
            return;
        }
        if (p.pausedUntilNs > now) {
            schedule(p.pausedUntilNs, () -> runProcess(p));
            return;
        }
        current = p;
        p.resumeFromDriver();
        current = null;
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

    // ---------------------------------------------------------------- driver

    /**
     * Runs events until {@code done} holds. Called from outside the simulation (a test, the
     * runner): the events are run by a virtual driver thread, so every hand-off is between
     * virtual threads.
     *
     * @throws SimulationStuckException if events run out or virtual time passes the limit first
     */
    public void runUntil(BooleanSupplier done, String what) {
        if (current() != null) {
            throw new IllegalStateException("a simulated process cannot run the simulation");
        }
        RuntimeException[] error = new RuntimeException[1];
        Thread t = Thread.ofVirtual().name("sim-driver").start(() -> {
            driver = Thread.currentThread();
            try {
                drive(done, what);
            } catch (RuntimeException e) {
                error[0] = e;
            } finally {
                driver = null;
            }
        });
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running the simulation", e);
        }
        if (error[0] != null) {
            throw error[0];
        }
    }

    private void drive(BooleanSupplier done, String what) {
        while (!done.getAsBoolean()) {
            Event e = events.poll();
            if (e == null) {
                throw new SimulationStuckException("no events left at virtual time " + now + " ns while waiting for "
                        + what + "; blocked: " + blocked());
            }
            if (e.time > timeLimitNs) {
                events.add(e);
                throw new SimulationStuckException("virtual time limit " + timeLimitNs + " ns reached while waiting for "
                        + what + "; blocked: " + blocked());
            }
            now = e.time;
            executedEvents++;
            e.action.run();
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
        Thread t = Thread.ofVirtual().name("sim-teardown").start(() -> {
            driver = Thread.currentThread();
            for (SimProcess p : processes) {
                if (p.hasLiveThread()) {
                    current = p;
                    p.killFromDriver();
                    current = null;
                }
            }
            driver = null;
        });
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Process side: hand the baton to the driver (the process is now blocked). */
    void passBatonToDriver() {
        driverGo = true;
        LockSupport.unpark(driver);
    }

    /** Process side: the process ended; the driver continues. */
    void processEnded() {
        passBatonToDriver();
    }

    /** Driver side: wait until the running process blocks or ends. */
    void awaitBaton() {
        while (!driverGo) {
            LockSupport.park(this);
        }
        driverGo = false;
    }
}
