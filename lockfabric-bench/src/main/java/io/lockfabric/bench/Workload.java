package io.lockfabric.bench;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.FailureModel;

/**
 * A kind of benchmark workload: what each client of a run does, as a session of lock operations
 * over a lock SPI {@code P}, plus who runs and when it is measured ({@link Phases}). The
 * {@link Runner} runs any workload the same way (endpoints, clients, phases, measurements, checks,
 * results); a workload adds only what is its own: opening a client's {@link Session} and what one
 * operation is ({@link Trial}), how its history is checked, and the columns it is reported with
 * ({@link ReportLayout}).
 *
 * <p>The kinds: {@code point} ({@link io.lockfabric.bench.point.PointWorkload}: mutex /
 * reader-writer locks of a table, over {@link io.lockfabric.lock.LockProtocol}) and {@code range}
 * ({@link io.lockfabric.bench.range.RangeWorkload}: ranges of one range lock, over
 * {@link io.lockfabric.lock.RangeLockProtocol}). A transaction workload would be a third
 * implementation over {@code LockProtocol} whose session's operation takes several locks.
 * Implementations are immutable values.
 *
 * @param <P> the protocol SPI the workload's clients use
 */
public interface Workload<P> {
    /** The kind's name: {@code point}, {@code range}. */
    String kind();

    /** Who runs and when the run is measured. */
    Phases phases();

    /** The same workload with another seed (a seed sweep's run). */
    Workload<P> withSeed(long seed);

    /**
     * Whether a run records its history and checks it (and does what checking needs, such as
     * the point workload's guarded counters).
     */
    boolean check();

    /** The same workload with checking on (for runs that must be checked, such as faulty ones). */
    Workload<P> checked();

    /**
     * How long after the planned end of a run (or of its last fault) live clients get to finish
     * their last operation before they count as stuck: a slack, plus for a protocol whose
     * {@code model} recovers from crashed clients its recovery bound per crash of the run.
     *
     * @param crashes the client crashes the run is planned to suffer; the simulator's driver adds
     *                the messages lost after a waiting client's last progress, each of which costs
     *                a recovering protocol what a crash does (its waiters' recovery, if the sender
     *                cannot make the message up)
     */
    long graceNs(FailureModel model, int crashes);

    /**
     * Whether a run wants the memory node's queueing over its measured phase, where the fabric can
     * tell it (the simulator), with the words it is busiest with named by the protocol.
     */
    default boolean measuresNicQueueing() {
        return false;
    }

    /**
     * This workload's run of {@code protocol} on {@code fabric}: the protocol's options resolved
     * and validated, the state the clients share.
     *
     * @param sharedTable whether the run's tables are shared with other processes
     * @throws IllegalArgumentException if the protocol's options are invalid, or it cannot run
     *                                  this way (on this fabric, on a shared table)
     */
    Trial trial(P protocol, Fabric fabric, boolean sharedTable);

    /** The columns and fields this kind's results are reported with. */
    ReportLayout layout();

    default int clients() {
        return phases().clients();
    }

    default long durationNs() {
        return phases().durationNs();
    }

    default long operations() {
        return phases().operations();
    }

    default long warmupNs() {
        return phases().warmupNs();
    }

    default long seed() {
        return phases().seed();
    }

    /** True if the measured phase is a total operation count, false if it is a duration. */
    default boolean byOperations() {
        return phases().byOperations();
    }

    /** The measured operations client {@code client} does in an operation-count run. */
    default long operationsOf(int client) {
        return phases().operationsOf(client);
    }

    /** Saturating {@code a + b} of non-negative times: a huge recovery bound does not wrap a deadline. */
    static long addTimes(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    /** Saturating {@code ns * times} of a non-negative time and count. */
    static long multiplyTime(long ns, long times) {
        return times != 0 && ns > Long.MAX_VALUE / times ? Long.MAX_VALUE : ns * times;
    }
}
