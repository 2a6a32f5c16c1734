package io.lockfabric.bench.fs;

import io.lockfabric.apps.fs.FsLockManager;
import io.lockfabric.bench.Phases;
import io.lockfabric.bench.ReportLayout;
import io.lockfabric.bench.Trial;
import io.lockfabric.bench.Workload;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.FailureModel;

import java.util.List;
import java.util.Objects;

/**
 * The {@code fs} kind of {@link Workload}: each client runs a CitronFS client
 * ({@link io.lockfabric.apps.fs.FsClient}) on its endpoint and does the I/O of an {@link FsTrace}
 * (BT-IO, Filebench OLTP, IO500 hard-write), every I/O under a byte-range lock of the run's
 * {@link FsLockManager} (or the file's mutex). The file system is the run's table name; its
 * metadata and lock tables are on memory node 0, its data on the other memory nodes if the fabric
 * has several (else on node 0 too). Each client's first operation creates (and preallocates) the
 * trace's files: give the run a warmup that covers it.
 *
 * <p>Checked always: BT-IO reads compare every word with what the process wrote there, OLTP reads
 * check that the 8 KiB block they read is one write's whole (no torn block); a mismatch is a
 * {@link io.lockfabric.check.Violation.TornValue} and fails the run. With {@code history} (always on
 * the simulator) every grant is recorded and the range checker looks for overlapping holds (files
 * are spans of one range space, {@link io.lockfabric.apps.fs.FsGrant}).
 *
 * <p>Operations are measured by the trace's kinds ({@link FsTrace#kinds()}); reported
 * ({@link FsReport}) with bytes per second beside operations per second.
 *
 * @param phases      who runs and when the run is measured
 * @param trace       the I/O
 * @param sharedReads reads lock SHARED where the manager supports it (off: exclusive, as the paper)
 * @param history     whether the run records its grants and checks them for overlaps
 * @param lockOptions the lock managers' options: {@code name=value} (for every manager that has the
 *                    option) or {@code manager.name=value} (for that one)
 */
public record FsWorkload(Phases phases, FsTrace trace, boolean sharedReads, boolean history, List<String> lockOptions)
        implements Workload<FsLockManager> {
    public static final String KIND = "fs";
    /** Slack a run's live clients get after its planned end: 20 ms, and a paced writer's wait for idle readers. */
    static final long LIVENESS_SLACK_NS = 20_000_000L + FsSession.READERS_IDLE_NS;

    public FsWorkload {
        Objects.requireNonNull(phases, "phases");
        Objects.requireNonNull(trace, "trace");
        lockOptions = List.copyOf(lockOptions);
        if (trace instanceof FsTrace.BtIo b && b.processes() != phases.clients()) {
            throw new IllegalArgumentException("BT-IO of " + b.processes() + " processes needs as many clients, got "
                    + phases.clients());
        }
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public FsWorkload withSeed(long seed) {
        return new FsWorkload(phases.withSeed(seed), trace, sharedReads, history, lockOptions);
    }

    /** The data checks are always on. */
    @Override
    public boolean check() {
        return true;
    }

    @Override
    public FsWorkload checked() {
        return new FsWorkload(phases, trace, sharedReads, true, lockOptions);
    }

    public FsWorkload withSharedReads(boolean value) {
        return new FsWorkload(phases, trace, value, history, lockOptions);
    }

    /** As the point workload's: a slack, plus a recovering protocol's bound once per crash (at least once). */
    @Override
    public long graceNs(FailureModel model, int crashes) {
        return Workload.addTimes(LIVENESS_SLACK_NS, model.recoversFromCrash()
                ? Workload.multiplyTime(model.recoveryBoundNs(), Math.max(1, crashes)) : 0);
    }

    @Override
    public Trial trial(FsLockManager manager, Fabric fabric, boolean sharedTable) {
        return new FsTrial(this, manager, fabric);
    }

    @Override
    public ReportLayout layout() {
        return new FsReport(trace);
    }

    /** The pairs of {@link #lockOptions} that apply to {@code manager}, without their prefix. */
    public List<String> optionsFor(FsLockManager manager) {
        List<String> out = new java.util.ArrayList<>();
        for (String pair : lockOptions) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            int dot = key.lastIndexOf('.');
            if (dot >= 0) {
                String who = key.substring(0, dot);
                boolean mine = who.equals(manager.name())
                        || manager instanceof FsLockManager.Mutex m && who.equals(m.protocol().name());
                if (mine) {
                    out.add(pair.substring(dot + 1));
                }
            } else if (manager.options().stream().anyMatch(o -> o.name().equals(key))) {
                out.add(pair);
            }
        }
        return out;
    }
}
