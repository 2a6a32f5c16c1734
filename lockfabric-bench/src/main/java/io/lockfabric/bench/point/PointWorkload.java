package io.lockfabric.bench.point;

import io.lockfabric.bench.Phases;
import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.ReportLayout;
import io.lockfabric.bench.Trial;
import io.lockfabric.bench.Workload;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockProtocol;

import java.util.Objects;

/**
 * The mutex / reader-writer microbenchmark (spec/workloads.md, DecLock §6.2 flavour), the
 * {@code point} kind of {@link Workload}: each client repeatedly picks a lock of {@code locks} with
 * a Zipf({@code zipf}) law (lock 0 hottest), asks for it shared with probability {@code readRatio}
 * and exclusive otherwise, then does {@code cs} remote operations on the lock's 8-byte data object
 * (READs when shared, WRITEs when exclusive) and releases it. The data objects (and guarded
 * counters) live on the last memory node: with several memory nodes, critical-section verbs and
 * lock verbs go to different NICs.
 *
 * <p>With {@code check}, the run records its history, every exclusive holder also increments the
 * lock's guarded counter, and the result carries what the checkers found (overlaps, fencing order
 * for protocols with strict fencing, guarded counters). Such a run cannot share its tables with
 * other processes.
 *
 * <p>Reported ({@link ReportLayout}) as a table of goodput, latencies, remote operations per cycle
 * (the protocol's own apart from the critical section's) and the check; as CSV; and as JSON objects
 * holding {@code protocol}, {@code fabric}, {@code parameters} (the workload), {@code measured_ops},
 * {@code measured_s}, {@code goodput} (ops/s), {@code latency_us} and {@code acquire_latency_us}
 * ({@code p50}, {@code p99}, {@code p999}), {@code ops_per_cycle} and {@code cs_ops_per_cycle} (one
 * key per verb kind: {@code read}, {@code write}, {@code cas}, {@code faa}, {@code mcas},
 * {@code mfaa}, {@code mcas128}, {@code mfaa128}, {@code send}, {@code rpc}), {@code retries},
 * {@code aborts}, {@code resets}, {@code check} and {@code cross_check}; on the sim fabric also
 * {@code faults} (the plan, the scheduled faults, crashed and stuck clients, recoveries, hazards,
 * liveness violations, dropped and delayed messages).
 *
 * <p>Locality (the DecLock artifact's {@code MICROBENCH_LOCALITY}, DecLock Fig. 12's locality panel):
 * with {@code locality} &gt; 0, an operation picks, with that probability, a lock of its own compute
 * node instead: the locks are dealt round-robin to {@code localityNodes} nodes (lock {@code i} belongs
 * to node {@code i mod localityNodes}), and the client draws Zipf({@code zipf}) over its node's
 * {@code locks / localityNodes} locks, its node's lock {@code k} being lock
 * {@code k × localityNodes + node}, as the artifact does. A client's node is its endpoint's compute
 * node ({@link io.lockfabric.fabric.EndpointId#node()}: on the simulator, client {@code i} of
 * {@code clients-per-cn} per node is on node {@code i / clients-per-cn}; on one-node fabrics, node 0),
 * modulo {@code localityNodes}. 0 (the default) draws nothing extra: the run is the one without it.
 *
 * <p><b>Skipped releases</b> ({@code skipRelease} = p, off by default): the fault of ShiftLock's
 * §4.8 (Figure 13) as its artifact's {@code client-fallible} builds it: after each acquisition the
 * client skips its release with probability p (drawn from a generator of its own, so the lock and
 * mode choices are those of a run without the fault), stops using the lock and goes on with its
 * next operation, alive. The lock stays held until the protocol's lease recovery frees it; a
 * protocol without one blocks it for good. The operation still counts (the artifact counts it) and
 * its hold ends, for the checker, where the client stopped using it. JSON adds
 * {@code skip_release} to {@code parameters} and the statistics {@code skipped-releases}, only when
 * p &gt; 0.
 *
 * <p>Validated on construction; build with {@link #builder()} or derive with the {@code with}
 * methods.
 */
public record PointWorkload(Phases phases, long locks, double zipf, double readRatio, int cs, boolean check,
                            ProtocolOptions options, double locality, int localityNodes, double skipRelease)
        implements Workload<LockProtocol> {
    /** The kind's name. */
    public static final String KIND = "point";
    public static final int DEFAULT_CLIENTS = 8;
    public static final long DEFAULT_LOCKS = 1_000;
    public static final double DEFAULT_ZIPF = 0.99;
    public static final double DEFAULT_READ_RATIO = 0.5;
    public static final int DEFAULT_CS_OPS = 1;
    public static final long DEFAULT_DURATION_NS = 2_000_000_000L;
    public static final long DEFAULT_WARMUP_NS = 1_000_000_000L;
    public static final long DEFAULT_SEED = 42;
    /** Size of the data object next to each lock that the critical section reads or writes. */
    public static final int DATA_OBJECT_BYTES = 8;
    /** Slack a run's live clients get after its planned end, beyond its faults and recovery bound. */
    static final long LIVENESS_SLACK_NS = 20_000_000L;
    /** The statistic counting releases skipped by the {@code skipRelease} fault. */
    public static final String SKIPPED_RELEASES = "skipped-releases";

    public PointWorkload {
        Objects.requireNonNull(phases, "phases");
        Objects.requireNonNull(options, "options");
        if (locks < 1) {
            throw new IllegalArgumentException("locks must be >= 1, got " + locks);
        }
        if (!(zipf >= 0) || Double.isInfinite(zipf)) {
            throw new IllegalArgumentException("zipf must be a finite number >= 0, got " + zipf);
        }
        if (!(readRatio >= 0 && readRatio <= 1)) {
            throw new IllegalArgumentException("read ratio must be in [0, 1], got " + readRatio);
        }
        if (cs < 0) {
            throw new IllegalArgumentException("cs (remote operations per critical section) must be >= 0, got " + cs);
        }
        if (!(locality >= 0 && locality <= 1)) {
            throw new IllegalArgumentException("locality must be in [0, 1], got " + locality);
        }
        if (localityNodes < 1) {
            throw new IllegalArgumentException("locality nodes must be >= 1, got " + localityNodes);
        }
        if (locality > 0 && locks < localityNodes) {
            throw new IllegalArgumentException("locality over " + localityNodes + " nodes needs at least as many locks, got "
                    + locks);
        }
        if (!(skipRelease >= 0 && skipRelease <= 1)) {
            throw new IllegalArgumentException("skip-release probability must be in [0, 1], got " + skipRelease);
        }
    }

    /** The same workload without locality and without skipped releases (the fields before they existed). */
    public PointWorkload(Phases phases, long locks, double zipf, double readRatio, int cs, boolean check,
                         ProtocolOptions options) {
        this(phases, locks, zipf, readRatio, cs, check, options, 0, 1, 0);
    }

    /** A builder with the defaults: 8 clients, 1 000 locks, Zipf 0.99, 50% reads, cs 1, 2 s after 1 s warmup. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String kind() {
        return KIND;
    }

    public PointWorkload withClients(int value) {
        return toBuilder().clients(value).build();
    }

    public PointWorkload withLocks(long value) {
        return toBuilder().locks(value).build();
    }

    public PointWorkload withReadRatio(double value) {
        return toBuilder().readRatio(value).build();
    }

    public PointWorkload withCheck(boolean value) {
        return toBuilder().check(value).build();
    }

    @Override
    public PointWorkload withSeed(long seed) {
        return toBuilder().seed(seed).build();
    }

    @Override
    public PointWorkload checked() {
        return withCheck(true);
    }

    /**
     * 20 ms, plus for a protocol that recovers from crashed clients its recovery bound once per
     * crash, and at least once (a fault-free run may still meet a protocol's own recovery, such as
     * a timed-out DecLock waiter's reset).
     */
    @Override
    public long graceNs(FailureModel model, int crashes) {
        return Workload.addTimes(LIVENESS_SLACK_NS, model.recoversFromCrash()
                ? Workload.multiplyTime(model.recoveryBoundNs(), Math.max(1, crashes)) : 0);
    }

    @Override
    public Trial trial(LockProtocol protocol, Fabric fabric, boolean sharedTable) {
        return new PointTrial(this, protocol, fabric, sharedTable);
    }

    @Override
    public ReportLayout layout() {
        return PointLayout.INSTANCE;
    }

    public Builder toBuilder() {
        return new Builder().phases(phases).locks(locks).zipf(zipf).readRatio(readRatio).cs(cs).check(check)
                .options(options).locality(locality, localityNodes).skipRelease(skipRelease);
    }

    /** Fluent, unvalidated settings; {@link #build()} validates. Not thread-safe. */
    public static final class Builder extends Phases.Builder<Builder> {
        private long locks = DEFAULT_LOCKS;
        private double zipf = DEFAULT_ZIPF;
        private double readRatio = DEFAULT_READ_RATIO;
        private int cs = DEFAULT_CS_OPS;
        private boolean check;
        private ProtocolOptions options = ProtocolOptions.NONE;
        private double locality;
        private int localityNodes = 1;
        private double skipRelease;

        private Builder() {
            super(DEFAULT_CLIENTS, DEFAULT_DURATION_NS, DEFAULT_WARMUP_NS, DEFAULT_SEED);
        }

        @Override
        protected Builder self() {
            return this;
        }

        public Builder locks(long value) {
            locks = value;
            return this;
        }

        public Builder zipf(double value) {
            zipf = value;
            return this;
        }

        public Builder readRatio(double value) {
            readRatio = value;
            return this;
        }

        public Builder cs(int value) {
            cs = value;
            return this;
        }

        public Builder check(boolean value) {
            check = value;
            return this;
        }

        public Builder options(ProtocolOptions value) {
            options = value;
            return this;
        }

        /**
         * A share {@code value} of operations on a lock of the client's own compute node, the locks
         * dealt round-robin to {@code nodes} nodes (see the class comment); 0 (the default): none.
         */
        public Builder locality(double value, int nodes) {
            locality = value;
            localityNodes = nodes;
            return this;
        }

        /** Probability that a client skips the release of a lock it acquired (0: never; see the class comment). */
        public Builder skipRelease(double value) {
            skipRelease = value;
            return this;
        }

        public PointWorkload build() {
            return new PointWorkload(buildPhases(), locks, zipf, readRatio, cs, check, options, locality, localityNodes,
                    skipRelease);
        }
    }
}
