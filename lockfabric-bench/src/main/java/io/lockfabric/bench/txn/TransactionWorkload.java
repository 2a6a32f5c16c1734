package io.lockfabric.bench.txn;

import io.lockfabric.bench.Phases;
import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.ReportLayout;
import io.lockfabric.bench.Trial;
import io.lockfabric.bench.Workload;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.txn.TxnWorkload;

import java.util.Objects;

/**
 * The {@code txn} kind of {@link Workload}: one operation is one transaction of a generator
 * ({@link io.lockfabric.txn.Tatp}, {@link io.lockfabric.txn.TpcC}), under two-phase locking on a
 * protocol's {@link io.lockfabric.lock.LockClient}: its lock ids merged (a lock wanted twice is
 * taken once, in the stronger mode) and taken in ascending order (deadlock-free), its simulated work
 * spent (a busy spin on a real-time fabric, virtual time on the simulator), then every lock
 * released. The lock table has the generator's {@link TxnWorkload#locks()} locks.
 *
 * <p>Every operation reports its transaction's type ({@link io.lockfabric.bench.Operation#kind}),
 * so results carry goodput and latency per type ({@link io.lockfabric.bench.RunResult#byKind()}).
 * Acquire latency is the time to hold the whole set. With {@code check} the run records every
 * lock's grants and releases and the checkers look for overlaps (and fencing order on protocols with
 * strict fencing). Transaction bodies with real reads and writes (SmallBank's) do not run here:
 * this kind measures locking; {@code lockfabric txn} runs bodies.
 *
 * <p>Reported ({@link TransactionLayout}) as a table of goodput, latency p50 / p99 / p99.9, locks per
 * transaction, lock-wait share and goodput per type; as CSV; and as JSON objects with
 * {@code protocol}, {@code fabric}, {@code parameters}, {@code measured_txns}, {@code measured_s},
 * {@code goodput}, {@code latency_us}, {@code acquire_latency_us}, {@code locks_per_txn},
 * {@code lock_wait_share}, {@code types} (per type: {@code name}, {@code committed},
 * {@code goodput}, {@code latency_us}, {@code locks_per_txn}, {@code lock_wait_share}), the
 * protocol's {@code retries}, {@code aborts}, {@code resets}, {@code check} and, on the sim,
 * {@code faults}.
 *
 * @param phases    who runs and when the run is measured
 * @param generator the transactions
 * @param workNs    the simulated work per transaction, or -1 for the generator's own
 * @param check     whether the run records its history and checks it
 * @param options   the protocols' options
 */
public record TransactionWorkload(Phases phases, TxnWorkload generator, long workNs, boolean check,
                                  ProtocolOptions options) implements Workload<LockProtocol> {
    /** The kind's name. */
    public static final String KIND = "txn";
    /** The generator's own work. */
    public static final long GENERATORS_WORK = -1;
    /** Slack a run's live clients get after its planned end, beyond its faults and recovery bound. */
    static final long LIVENESS_SLACK_NS = 20_000_000L;

    public TransactionWorkload {
        Objects.requireNonNull(phases, "phases");
        Objects.requireNonNull(generator, "generator");
        Objects.requireNonNull(options, "options");
        if (workNs < GENERATORS_WORK) {
            throw new IllegalArgumentException("work must be >= 0 ns (or -1: the generator's own), got " + workNs);
        }
    }

    /** {@code generator}'s transactions in {@code phases}, its own work, unchecked, no options. */
    public static TransactionWorkload of(TxnWorkload generator, Phases phases) {
        return new TransactionWorkload(phases, generator, GENERATORS_WORK, false, ProtocolOptions.NONE);
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public TransactionWorkload withSeed(long seed) {
        return new TransactionWorkload(phases.withSeed(seed), generator, workNs, check, options);
    }

    @Override
    public TransactionWorkload checked() {
        return withCheck(true);
    }

    public TransactionWorkload withCheck(boolean value) {
        return new TransactionWorkload(phases, generator, workNs, value, options);
    }

    public TransactionWorkload withWorkNs(long value) {
        return new TransactionWorkload(phases, generator, value, check, options);
    }

    public TransactionWorkload withOptions(ProtocolOptions value) {
        return new TransactionWorkload(phases, generator, workNs, check, value);
    }

    /** The work a transaction of the generator spends: {@link #workNs} unless it is the generator's own. */
    long workOf(long generators) {
        return workNs == GENERATORS_WORK ? generators : workNs;
    }

    /** As the point workload: 20 ms, plus a recovering protocol's bound once per crash (at least once). */
    @Override
    public long graceNs(FailureModel model, int crashes) {
        return Workload.addTimes(LIVENESS_SLACK_NS, model.recoversFromCrash()
                ? Workload.multiplyTime(model.recoveryBoundNs(), Math.max(1, crashes)) : 0);
    }

    @Override
    public Trial trial(LockProtocol protocol, Fabric fabric, boolean sharedTable) {
        return new TransactionTrial(this, protocol, fabric);
    }

    @Override
    public ReportLayout layout() {
        return TransactionLayout.INSTANCE;
    }
}
