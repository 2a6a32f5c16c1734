package io.lockfabric.bench.fs;

import io.lockfabric.apps.fs.FsClient;
import io.lockfabric.apps.fs.FsLayout;
import io.lockfabric.apps.fs.FsLockManager;
import io.lockfabric.apps.fs.FsOptions;
import io.lockfabric.bench.CheckResult;
import io.lockfabric.bench.Session;
import io.lockfabric.bench.Trial;
import io.lockfabric.check.History;
import io.lockfabric.check.Hold;
import io.lockfabric.check.RangeExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.ClientRuntime;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * A run of an {@link FsWorkload} with one {@link FsLockManager}: the file system's shape for the
 * trace and fabric, each client's CitronFS client, the OLTP groups' read counters that pace their
 * writers, the data mismatches the sessions found, and the check.
 */
final class FsTrial implements Trial {
    private static final String TABLE_PREFIX = "fsbench";
    private static final int KEPT_VIOLATIONS = 100;
    private static final int EXTENT_BYTES = 1 << 20;

    private final FsWorkload workload;
    private final FsLockManager manager;
    private final LockOptions options;
    private final FailureModel failureModel;
    private final FsLayout layout;
    private final boolean history;
    /** OLTP: reads done per group (client machine), which pace the group's writers. */
    final AtomicLongArray groupReads;
    /** OLTP: data and log writes done per group, which hold back the group's readers. */
    final AtomicLongArray groupDataWrites;
    final AtomicLongArray groupLogWrites;
    private final ConcurrentLinkedQueue<Violation> mismatches = new ConcurrentLinkedQueue<>();

    FsTrial(FsWorkload workload, FsLockManager manager, Fabric fabric) {
        this.workload = workload;
        this.manager = manager;
        this.options = LockOptions.parse(workload.optionsFor(manager)).validate(manager.name(), manager.options());
        this.failureModel = manager.failureModel(options);
        this.layout = layout(workload.trace(), fabric.memoryNodes());
        this.history = workload.history() || fabric.clientRuntime() != ClientRuntime.REAL_TIME;
        int groups = workload.trace() instanceof FsTrace.Oltp o
                ? Math.max(1, (workload.clients() + o.clientsPerGroup() - 1) / o.clientsPerGroup()) : 1;
        this.groupReads = new AtomicLongArray(groups);
        this.groupDataWrites = new AtomicLongArray(groups);
        this.groupLogWrites = new AtomicLongArray(groups);
    }

    /**
     * The file system a trace needs on {@code memoryNodes} memory nodes: its files' inodes, 1 MiB
     * extents enough for its largest file, data on nodes 1.. if there are several (node 0 keeps the
     * metadata and locks), room for every file whole plus one extent per file lost to racing allocations.
     */
    static FsLayout layout(FsTrace trace, int memoryNodes) {
        int files = trace.files().size();
        boolean data = !(trace instanceof FsTrace.HardWrite h) || h.data();
        int extents = data ? (int) Math.max(1, (trace.maxFileBytes() + EXTENT_BYTES - 1) / EXTENT_BYTES) : 1;
        int start = memoryNodes > 1 ? 1 : 0;
        int nodes = memoryNodes - start;
        long perNode = FsLayout.DATA_HEAP_START + ((long) files * (extents + 2) / nodes + 2) * EXTENT_BYTES;
        FsOptions o = FsOptions.DEFAULTS.withMaxFiles(files).withExtents(extents, EXTENT_BYTES)
                .withDataNodes(start, nodes).withDataBytesPerNode(perNode);
        return o.layout(memoryNodes);
    }

    @Override
    public String protocol() {
        return manager.name();
    }

    @Override
    public FailureModel failureModel() {
        return failureModel;
    }

    @Override
    public String tablePrefix() {
        return TABLE_PREFIX;
    }

    @Override
    public List<String> tableNames(String table) {
        return FsClient.tableNames(table, layout);
    }

    @Override
    public String label() {
        return workload.trace().name() + " " + manager.name();
    }

    @Override
    public String subject() {
        return "lock manager " + manager.name() + " under CitronFS " + workload.trace().name();
    }

    @Override
    public Session open(int client, Endpoint endpoint, String table, History.Recorder recorder, RandomGenerator random,
                        LongSupplier observerNanos) {
        FsClient c = FsClient.open(endpoint, table, layout, manager, options, workload.sharedReads());
        c.preopenLocks(layout.maxFiles());
        return new FsSession(client, workload, c, history ? recorder : null, random, observerNanos, this);
    }

    /** A session read bytes other than those it expected. */
    void mismatch(long at, int client, long atNs, String problem) {
        if (mismatches.size() < KEPT_VIOLATIONS) {
            mismatches.add(new Violation.TornValue(at, client, atNs, problem));
        }
    }

    @Override
    public boolean strictFencing() {
        return manager.strictFencing(options);
    }

    @Override
    public CheckResult check(List<Hold> holds, Map<Long, Long> uncertain) {
        List<Violation> violations = new ArrayList<>(mismatches);
        long exclusive = 0;
        if (history) {
            violations.addAll(RangeExclusionChecker.violations(holds));
            exclusive = holds.stream().filter(h -> h.mode() == Mode.EXCLUSIVE).count();
        }
        return new CheckResult(true, holds.size(), exclusive, false, violations);
    }
}
