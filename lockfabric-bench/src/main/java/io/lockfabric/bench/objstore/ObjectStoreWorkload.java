package io.lockfabric.bench.objstore;

import io.lockfabric.apps.objstore.ObjectTrace;
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
 * The {@code objstore} kind of {@link Workload}: each client runs an
 * {@link io.lockfabric.apps.objstore.ObjectStoreClient} on its endpoint and does the operations of an
 * {@link ObjectTrace} (small or large Twitter trace, Zipf keys): a get takes the object's lock
 * shared (exclusive on an exclusive-only protocol) and READs its value, a set takes it exclusive and
 * WRITEs a value of the key's size. The lock table is the run's table (one lock per object slot),
 * the data table beside it ({@code <table>-data}). The first operation of client 0 loads every
 * object with bulk WRITEs before anyone uses the store (its initial population, no locks), and the
 * other clients' first operation waits for it; give the run a warmup that covers it.
 *
 * <p>The run check is the torn-value check, always on: every get verifies the value's check word
 * and that it names the key it asked for; a value no single set wrote whole is a
 * {@link io.lockfabric.check.Violation.TornValue} and fails the run (exit status 1 on the command
 * line). On the simulator, where a verb reaches memory at one instant so two holders' READ and
 * WRITE cannot interleave inside a value, and with {@code history} (or {@link #checked()}, which a
 * faulty run gets), the run also records every grant and the checkers look for overlapping holds.
 *
 * <p>Operations are measured by kind: {@code get} (0), {@code set} (1), {@code miss} (2: a get of a
 * key with no value yet, during loading). Reported ({@link ObjectStoreReport}) as a table, CSV and
 * JSON (see there).
 *
 * @param phases   who runs and when the run is measured
 * @param trace    the operations
 * @param history  whether the run also records its grants and checks them for overlaps
 * @param probeNic whether a simulated run tracks the memory node's NIC over its measured phase
 * @param options  the protocols' options
 */
public record ObjectStoreWorkload(Phases phases, ObjectTrace trace, boolean history, boolean probeNic,
                                  ProtocolOptions options) implements Workload<LockProtocol> {
    /** The kind's name. */
    public static final String KIND = "objstore";
    /** The kinds of operations, in {@link io.lockfabric.bench.Operation#kind} order. */
    public static final java.util.List<String> KINDS = java.util.List.of("get", "set", "miss");
    public static final int GET = 0;
    public static final int SET = 1;
    public static final int MISS = 2;
    /** Slack a run's live clients get after its planned end, beyond its faults and recovery bound. */
    static final long LIVENESS_SLACK_NS = 20_000_000L;

    public ObjectStoreWorkload {
        Objects.requireNonNull(phases, "phases");
        Objects.requireNonNull(trace, "trace");
        Objects.requireNonNull(options, "options");
    }

    /** {@code trace}'s operations in {@code phases}, no history, no NIC probe, no options. */
    public static ObjectStoreWorkload of(ObjectTrace trace, Phases phases) {
        return new ObjectStoreWorkload(phases, trace, false, false, ProtocolOptions.NONE);
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public ObjectStoreWorkload withSeed(long seed) {
        return new ObjectStoreWorkload(phases.withSeed(seed), trace, history, probeNic, options);
    }

    /** The torn-value check is always on. */
    @Override
    public boolean check() {
        return true;
    }

    /** With the history recorded and checked too. */
    @Override
    public ObjectStoreWorkload checked() {
        return withHistory(true);
    }

    public ObjectStoreWorkload withHistory(boolean value) {
        return new ObjectStoreWorkload(phases, trace, value, probeNic, options);
    }

    public ObjectStoreWorkload withNicProbe(boolean value) {
        return new ObjectStoreWorkload(phases, trace, history, value, options);
    }

    public ObjectStoreWorkload withOptions(ProtocolOptions value) {
        return new ObjectStoreWorkload(phases, trace, history, probeNic, value);
    }

    @Override
    public boolean measuresNicQueueing() {
        return probeNic;
    }

    /** As the point workload: 20 ms, plus a recovering protocol's bound once per crash (at least once). */
    @Override
    public long graceNs(FailureModel model, int crashes) {
        return Workload.addTimes(LIVENESS_SLACK_NS, model.recoversFromCrash()
                ? Workload.multiplyTime(model.recoveryBoundNs(), Math.max(1, crashes)) : 0);
    }

    @Override
    public Trial trial(LockProtocol protocol, Fabric fabric, boolean sharedTable) {
        return new ObjectStoreTrial(this, protocol, fabric);
    }

    @Override
    public ReportLayout layout() {
        return ObjectStoreReport.INSTANCE;
    }
}
