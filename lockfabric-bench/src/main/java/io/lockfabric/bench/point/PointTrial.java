package io.lockfabric.bench.point;

import io.lockfabric.bench.CheckResult;
import io.lockfabric.bench.Session;
import io.lockfabric.bench.Trial;
import io.lockfabric.bench.ZipfGenerator;
import io.lockfabric.check.GuardedCounters;
import io.lockfabric.check.History;
import io.lockfabric.check.Hold;
import io.lockfabric.check.MutualExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * A run of the {@link PointWorkload} with one {@link LockProtocol}: each client's lock client on
 * the run's table, its data objects beside it and, when checked, the guarded counters; the check
 * of the history (overlaps, fencing for protocols with strict fencing, guarded counters, verified by
 * an endpoint of its own after the run). On a table shared with other processes there are no guarded
 * counters (the other processes' increments land on them too, and this process cannot count those):
 * this process's history is checked on its own here, and with the others' by a merged check
 * ({@link io.lockfabric.check.CrossProcessChecker}).
 */
final class PointTrial implements Trial {
    static final String DATA_TABLE_PROTOCOL = "bench-data";
    private static final String TABLE_PREFIX = "bench";

    private final PointWorkload workload;
    private final LockProtocol protocol;
    private final Fabric fabric;
    private final LockOptions options;
    private final FailureModel failureModel;
    private final ZipfGenerator zipf;
    /** Zipf over one node's locks, when the workload has locality; else null. */
    private final ZipfGenerator localZipf;
    private final boolean sharedTable;
    private Table guard;

    PointTrial(PointWorkload workload, LockProtocol protocol, Fabric fabric, boolean sharedTable) {
        this.workload = workload;
        this.protocol = protocol;
        this.fabric = fabric;
        this.options = workload.options().forProtocol(protocol);
        this.failureModel = protocol.failureModel(options);
        this.sharedTable = sharedTable;
        this.zipf = new ZipfGenerator(workload.locks(), workload.zipf());
        this.localZipf = workload.locality() > 0
                ? new ZipfGenerator(workload.locks() / workload.localityNodes(), workload.zipf()) : null;
    }

    @Override
    public String protocol() {
        return protocol.name();
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
    public String label() {
        return protocol.name();
    }

    @Override
    public String subject() {
        return "protocol " + protocol.name();
    }

    @Override
    public Session open(int client, Endpoint endpoint, String table, History.Recorder recorder, RandomGenerator random,
                        LongSupplier observerNanos) {
        int dataNode = fabric.memoryNodes() - 1;
        long locks = workload.locks();
        TableSpec dataSpec = new TableSpec(table + "-data", DATA_TABLE_PROTOCOL, locks,
                locks * PointWorkload.DATA_OBJECT_BYTES).onMemoryNode(dataNode);
        LockClient lockClient = protocol.open(endpoint, table, locks, options);
        Table data = endpoint.openTable(dataSpec);
        Table guarded = null;
        if (workload.check() && !sharedTable) {
            guarded = endpoint.openTable(GuardedCounters.tableSpec(table + "-guard", locks).onMemoryNode(dataNode));
            guard = guarded;
        }
        return new PointSession(endpoint, lockClient, data, guarded, recorder, zipf, localZipf, random, workload,
                observerNanos, client);
    }

    /** The lock table, the data objects and the guarded counters. */
    @Override
    public List<String> tableNames(String table) {
        return List.of(table, table + "-data", table + "-guard");
    }

    @Override
    public boolean strictFencing() {
        return protocol.strictFencing();
    }

    @Override
    public CheckResult check(List<Hold> holds, Map<Long, Long> uncertain) {
        List<Violation> violations = new ArrayList<>(MutualExclusionChecker.overlaps(holds));
        if (protocol.strictFencing()) {
            violations.addAll(MutualExclusionChecker.fencing(holds));
        }
        Map<Long, Long> expected = MutualExclusionChecker.exclusiveGrantsPerLock(holds);
        if (guard != null) {
            try (Endpoint verifier = fabric.newEndpoint()) {
                violations.addAll(GuardedCounters.verify(verifier.queuePair(guard.memoryNode()), guard, expected,
                        uncertain));
            }
        }
        long exclusive = expected.values().stream().mapToLong(Long::longValue).sum();
        return new CheckResult(true, holds.size(), exclusive, protocol.strictFencing(), violations);
    }
}
