package io.lockfabric.bench.btree;

import io.lockfabric.apps.btree.BTreeLocks;
import io.lockfabric.apps.btree.BTreeOptions;
import io.lockfabric.bench.Phases;
import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.ReportLayout;
import io.lockfabric.bench.Trial;
import io.lockfabric.bench.Workload;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.FailureModel;

import java.util.Objects;

/**
 * The {@code btree} kind of {@link Workload}: Sherman's B+-tree index ({@link io.lockfabric.apps.btree.BTreeClient})
 * with its nodes on the memory node, its node locks of one variant ({@link BTreeLocks}: the
 * workload's "protocol" is the variant's name). Each operation picks a key of [0, keys) by Zipf θ
 * (rank r is key {@code r x m mod keys}, m coprime to keys, so hot keys spread over the leaves as
 * Sherman's hashed keys do) and is an update with probability {@link BTreeMix#updateRatio()}, else
 * a lock-free search. An update is a read-modify-write increment under the leaf's lock (inserting
 * the key with 1 if absent). Client 0 first bulk-loads every {@code loadEvery}-th key with value 0
 * (0: none), the others wait for the load (during the warmup, which should cover it).
 *
 * <p>Operations report their kind (0 update, 1 search) so results carry each kind's goodput and
 * latency. The check ({@code check}): the node locks' history has no overlap, and after the run a
 * full scan holds exactly the loaded keys and the updated ones, each with its number of increments
 * (an update cut by a crash may or may not have landed: one more is allowed per such update), and
 * the tree's structure checks out ({@link io.lockfabric.apps.btree.BTreeClient#check()}).
 *
 * <p>Reported ({@link BTreeReportLayout}): goodput, update and search goodput and latencies,
 * memory-node operations per operation, lock retries and handovers per update, the check; JSON
 * objects with {@code protocol} (the variant), {@code fabric}, {@code parameters}, {@code measured_ops},
 * {@code measured_s}, {@code goodput}, {@code latency_us}, {@code updates} and {@code searches}
 * (each {@code ops}, {@code goodput}, {@code latency_us}), {@code mn_ops_per_op}, {@code retries},
 * {@code handovers}, {@code check} and, on the sim, {@code faults}.
 *
 * @param phases        who runs and when the run is measured
 * @param mix           the share of updates
 * @param keys          the key space, in [1, 2^31)
 * @param zipf          Zipf θ of the key choice (0: uniform)
 * @param fanout        entries per node
 * @param loadEvery     every {@code loadEvery}-th key is loaded before the run (1: all; 0: none)
 * @param check         whether the run records its lock history and checks it and the tree
 * @param options       the lock protocols' options
 * @param handoverBound the {@code sherman} variant's consecutive local handovers
 */
public record BTreeWorkload(Phases phases, BTreeMix mix, long keys, double zipf, int fanout, int loadEvery,
                            boolean check, ProtocolOptions options, int handoverBound) implements Workload<String> {
    /** The kind's name. */
    public static final String KIND = "btree";
    /** Operation kinds. */
    public static final int UPDATE = 0;
    public static final int SEARCH = 1;
    /** Slack a run's live clients get after its planned end, beyond its faults and recovery bound. */
    static final long LIVENESS_SLACK_NS = 20_000_000L;
    /** The largest key space. */
    public static final long MAX_KEYS = 1L << 31;

    public BTreeWorkload {
        Objects.requireNonNull(phases, "phases");
        Objects.requireNonNull(mix, "mix");
        Objects.requireNonNull(options, "options");
        if (keys < 1 || keys >= MAX_KEYS) {
            throw new IllegalArgumentException("keys must be in [1, 2^31), got " + keys);
        }
        if (zipf < 0 || Double.isNaN(zipf)) {
            throw new IllegalArgumentException("zipf must be >= 0, got " + zipf);
        }
        if (loadEvery < 0) {
            throw new IllegalArgumentException("load-every must be >= 0, got " + loadEvery);
        }
        BTreeOptions.DEFAULTS.withFanout(fanout); // validates the fan-out
    }

    /**
     * {@code mix} over {@code keys} keys, Zipf 0.99 (Sherman's skewed setting), fan-out 32, every key
     * loaded, unchecked, no options, Sherman's handover bound.
     */
    public static BTreeWorkload of(BTreeMix mix, long keys, Phases phases) {
        return new BTreeWorkload(phases, mix, keys, 0.99, 32, 1, false, ProtocolOptions.NONE,
                io.lockfabric.apps.btree.ShermanLock.DEFAULT_HANDOVER_BOUND);
    }

    @Override
    public String kind() {
        return KIND;
    }

    /**
     * Always: on the simulator a B+-tree run measures the memory node's NIC (units and link busy)
     * over its measured phase, which is what explains a lock's collapse (DecLock Fig. 17).
     */
    @Override
    public boolean measuresNicQueueing() {
        return true;
    }

    @Override
    public BTreeWorkload withSeed(long seed) {
        return new BTreeWorkload(phases.withSeed(seed), mix, keys, zipf, fanout, loadEvery, check, options, handoverBound);
    }

    @Override
    public BTreeWorkload checked() {
        return withCheck(true);
    }

    public BTreeWorkload withCheck(boolean value) {
        return new BTreeWorkload(phases, mix, keys, zipf, fanout, loadEvery, value, options, handoverBound);
    }

    public BTreeWorkload withZipf(double value) {
        return new BTreeWorkload(phases, mix, keys, value, fanout, loadEvery, check, options, handoverBound);
    }

    public BTreeWorkload withFanout(int value) {
        return new BTreeWorkload(phases, mix, keys, zipf, value, loadEvery, check, options, handoverBound);
    }

    public BTreeWorkload withLoadEvery(int value) {
        return new BTreeWorkload(phases, mix, keys, zipf, fanout, value, check, options, handoverBound);
    }

    public BTreeWorkload withOptions(ProtocolOptions value) {
        return new BTreeWorkload(phases, mix, keys, zipf, fanout, loadEvery, check, value, handoverBound);
    }

    public BTreeWorkload withHandoverBound(int value) {
        return new BTreeWorkload(phases, mix, keys, zipf, fanout, loadEvery, check, options, value);
    }

    public BTreeWorkload withPhases(Phases value) {
        return new BTreeWorkload(value, mix, keys, zipf, fanout, loadEvery, check, options, handoverBound);
    }

    /** The tree's options for {@code variant}: fan-out, sized for the key space, the variant's lock options. */
    BTreeOptions treeOptions(String variant) {
        io.lockfabric.lock.LockProtocol protocol = BTreeLocks.protocol(variant);
        String prefix = protocol.name() + ".";
        java.util.List<String> pairs = options.pairsFor(protocol).stream()
                .map(p -> p.startsWith(prefix) ? p.substring(prefix.length()) : p).toList();
        return BTreeOptions.DEFAULTS.withLock(variant).withFanout(fanout).forKeys(keys)
                .withLockOptions(pairs).withHandoverBound(handoverBound);
    }

    /**
     * Checks that each of {@code variants} is known and takes this workload's options.
     *
     * @throws IllegalArgumentException naming the variant or the option
     */
    public void validate(java.util.List<String> variants) {
        for (String v : variants) {
            BTreeLocks.failureModel(v, treeOptions(v).lockOptions());
        }
    }

    /** Whether key {@code k} is loaded before the run. */
    boolean loaded(long k) {
        return loadEvery > 0 && k % loadEvery == 0;
    }

    /** As the point workload: 20 ms, plus a recovering variant's bound once per crash (at least once). */
    @Override
    public long graceNs(FailureModel model, int crashes) {
        return Workload.addTimes(LIVENESS_SLACK_NS, model.recoversFromCrash()
                ? Workload.multiplyTime(model.recoveryBoundNs(), Math.max(1, crashes)) : 0);
    }

    @Override
    public Trial trial(String variant, Fabric fabric, boolean sharedTable) {
        return new BTreeTrial(this, variant, fabric, sharedTable);
    }

    @Override
    public ReportLayout layout() {
        return BTreeReportLayout.INSTANCE;
    }
}
