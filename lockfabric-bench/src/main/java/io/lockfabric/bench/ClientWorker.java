package io.lockfabric.bench;

import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.WaitInterruptedException;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.LockUnavailableException;
import org.HdrHistogram.Histogram;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.LongSupplier;

/**
 * One client of a {@link Runner} run, the body of its {@link io.lockfabric.fabric.ClientThread}:
 * operations of its {@link Session} until the run's end, measured in the measured phase. Everything
 * it measures (histograms, counts, counter and statistics snapshots at its own crossing of the
 * phase boundaries) lives in its own fields, read by the runner after the clients have stopped;
 * only the progress count and the time of its last progress are published while it runs. A client
 * that never returns (crashed or stuck on the simulator, stuck or stopped on a real-time fabric) is
 * ended from outside with {@link #endAt}; on a real-time fabric the driver first asks it to
 * {@link #stop} and interrupts it, and an interrupt it then meets ends it without counting as a
 * failure.
 */
final class ClientWorker implements Runnable, RunDriver.Client {
    private static final VarHandle LAST_PROGRESS;

    static {
        try {
            LAST_PROGRESS = MethodHandles.lookup().findVarHandle(ClientWorker.class, "lastProgressNs", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Publish the progress count every this many operations (a power of two). */
    private static final int PROGRESS_EVERY_OPS = 64;
    private static final int HISTOGRAM_DIGITS = 3;

    /** When phases start and end, in observer nanoseconds; fixed before the clients start. */
    record Schedule(long measureAtNs, long endAtNs) {
    }

    /** The clients' phase boundaries and abort flag, shared by the clients of one run. */
    static final class Control {
        private final Schedule schedule;
        private final boolean toleratesBrokenLocks;
        private volatile boolean aborted;

        /** @param toleratesBrokenLocks whether a client may give up on a broken lock ({@link RunDriver#toleratesBrokenLocks}) */
        Control(Schedule schedule, boolean toleratesBrokenLocks) {
            this.schedule = schedule;
            this.toleratesBrokenLocks = toleratesBrokenLocks;
        }

        Schedule schedule() {
            return schedule;
        }

        void abort() {
            aborted = true;
        }

        boolean aborted() {
            return aborted;
        }
    }

    private final int index;
    private final Endpoint endpoint;
    private final Session session;
    private final Phases phases;
    private final LongSupplier observerNanos;
    private final OpCounterSlots progress;
    private final Control control;
    private final Operation op = new Operation();

    final Histogram acquireNanos = new Histogram(HISTOGRAM_DIGITS);
    final Histogram operationNanos = new Histogram(HISTOGRAM_DIGITS);
    /** From the start of the release to the operation's end. */
    final Histogram releaseNanos = new Histogram(HISTOGRAM_DIGITS);
    /** Acquire latency of operations on the workload's hottest lock alone: fairness shows there. */
    final Histogram hottestAcquireNanos = new Histogram(HISTOGRAM_DIGITS);
    long measuredOps;
    /** Measured operations by the kind they said they were ({@link Operation#kind}), or null if none said. */
    KindMeasures.Accumulator[] byKind;
    /** READs and WRITEs the session issued itself in measured operations. */
    long issuedReads;
    long issuedWrites;
    long measureStartNs;
    long measureEndNs;
    /**
     * Observer time the client last completed an operation (or started): written opaquely by the
     * client, read by a driver watching for stuck clients while it runs.
     */
    @SuppressWarnings("unused") // through LAST_PROGRESS
    private long lastProgressNs;
    /** Set by a driver ending the client from outside. */
    private volatile boolean stopped;
    private boolean measuring;
    private boolean ended;
    CounterSnapshot countersAtStart = CounterSnapshot.ZERO;
    CounterSnapshot countersAtEnd = CounterSnapshot.ZERO;
    LockStats statsAtStart = LockStats.ZERO;
    LockStats statsAtEnd = LockStats.ZERO;
    Throwable failure;
    private RunDriver.GaveUp gaveUp;

    ClientWorker(int index, Endpoint endpoint, Session session, Phases phases, LongSupplier observerNanos,
                 OpCounterSlots progress, Control control) {
        this.index = index;
        this.endpoint = endpoint;
        this.session = session;
        this.phases = phases;
        this.observerNanos = observerNanos;
        this.progress = progress;
        this.control = control;
    }

    Session session() {
        return session;
    }

    @Override
    public void run() {
        try {
            loop(control.schedule());
        } catch (Throwable t) {
            if (stopped && endedFromOutside(t)) {
                return; // the driver ends its measurement where it was cut off
            }
            if (t instanceof LockUnavailableException broken && control.toleratesBrokenLocks) {
                long now = observerNanos.getAsLong();
                gaveUp = new RunDriver.GaveUp(now, broken); // the run goes on without this client
                end(now);
                return;
            }
            failure = t;
            control.abort();
        }
    }

    /** Whether {@code t} is, or was caused by, an interrupted wait. */
    private static boolean endedFromOutside(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof WaitInterruptedException) {
                return true;
            }
            for (Throwable s : c.getSuppressed()) {
                if (endedFromOutside(s)) {
                    return true;
                }
            }
        }
        return false;
    }

    private void loop(Schedule schedule) {
        final boolean byOps = phases.byOperations();
        long remaining = phases.operationsOf(index);
        long done = 0;
        long now = observerNanos.getAsLong();
        LAST_PROGRESS.setOpaque(this, now);
        while (!control.aborted() && !stopped) {
            if (!measuring && now >= schedule.measureAtNs()) {
                measuring = true;
                measureStartNs = now;
                countersAtStart = endpoint.counters();
                statsAtStart = session.stats();
            }
            if (measuring && (byOps ? remaining == 0 : now >= schedule.endAtNs())) {
                break;
            }
            long start = now;
            op.reset();
            session.operate(op);
            start = op.startedOr(start);
            now = observerNanos.getAsLong();
            LAST_PROGRESS.setOpaque(this, now);
            if (measuring) {
                long acquire = op.grantedNs() - start;
                acquireNanos.recordValue(acquire);
                operationNanos.recordValue(now - start);
                releaseNanos.recordValue(now - op.releasingNs());
                if (op.isHottest()) {
                    hottestAcquireNanos.recordValue(acquire);
                }
                if (op.kind() >= 0) {
                    byKind = KindMeasures.Accumulator.record(byKind, op.kind(), acquire, now - start, op.locks());
                }
                measuredOps++;
                remaining--;
                issuedReads += op.issuedReads();
                issuedWrites += op.issuedWrites();
            }
            if ((++done & (PROGRESS_EVERY_OPS - 1)) == 0) {
                progress.publish(index, done);
            }
        }
        progress.publish(index, done);
        end(now);
    }

    private void end(long now) {
        ended = true;
        measureEndNs = now;
        countersAtEnd = endpoint.counters();
        statsAtEnd = session.stats();
        if (!measuring) {
            measureStartNs = now; // ended before the measured phase
            countersAtStart = countersAtEnd;
            statsAtStart = statsAtEnd;
        }
    }

    @Override
    public long lastProgressNs() {
        return (long) LAST_PROGRESS.getOpaque(this);
    }

    @Override
    public void stop() {
        stopped = true;
    }

    @Override
    public RunDriver.GaveUp gaveUp() {
        return gaveUp;
    }

    /**
     * Ends the measurement of a client whose loop never returned (it crashed at, or was still
     * blocked at, or was interrupted at, observer time {@code atNs}); called once it no longer runs.
     */
    @Override
    public void endAt(long atNs) {
        if (!ended) {
            end(measuring ? Math.max(measureStartNs, Math.min(atNs, control.schedule().endAtNs())) : atNs);
        }
    }
}
