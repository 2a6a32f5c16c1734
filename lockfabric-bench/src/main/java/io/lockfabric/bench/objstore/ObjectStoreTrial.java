package io.lockfabric.bench.objstore;

import io.lockfabric.apps.objstore.ObjectStoreClient;
import io.lockfabric.apps.objstore.ObjectStoreLayout;
import io.lockfabric.bench.CheckResult;
import io.lockfabric.bench.Session;
import io.lockfabric.bench.Trial;
import io.lockfabric.check.History;
import io.lockfabric.check.Hold;
import io.lockfabric.check.MutualExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.ClientRuntime;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * A run of the {@link ObjectStoreWorkload} with one {@link LockProtocol}: each client's object-store
 * client on the run's lock table and its data table, the torn values its sessions found, and the
 * check (torn values; overlaps and fencing order when the history is recorded).
 */
final class ObjectStoreTrial implements Trial {
    private static final String TABLE_PREFIX = "objstore";
    /** Torn values kept in full; beyond, only counted. */
    private static final int KEPT_VIOLATIONS = 100;

    private final ObjectStoreWorkload workload;
    private final LockProtocol protocol;
    private final LockOptions options;
    private final FailureModel failureModel;
    private final ObjectStoreLayout layout;
    private final boolean history;
    private final ConcurrentLinkedQueue<Violation> torn = new ConcurrentLinkedQueue<>();

    ObjectStoreTrial(ObjectStoreWorkload workload, LockProtocol protocol, Fabric fabric) {
        this.workload = workload;
        this.protocol = protocol;
        this.options = workload.options().forProtocol(protocol);
        this.failureModel = protocol.failureModel(options);
        this.layout = workload.trace().storeOptions().layout();
        // on the simulator a lock failure shows as overlapping holds, not as torn bytes
        this.history = workload.history() || fabric.clientRuntime() != ClientRuntime.REAL_TIME;
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
    public List<String> tableNames(String table) {
        return List.of(table, dataTable(table));
    }

    static String dataTable(String table) {
        return table + "-data";
    }

    @Override
    public String label() {
        return workload.trace().name() + " " + protocol.name();
    }

    @Override
    public String subject() {
        return "protocol " + protocol.name() + " on the " + workload.trace().name() + " object-store trace";
    }

    @Override
    public Session open(int client, Endpoint endpoint, String table, History.Recorder recorder, RandomGenerator random,
                        LongSupplier observerNanos) {
        ObjectStoreClient c = ObjectStoreClient.open(endpoint, dataTable(table), table, protocol, options, layout);
        return new ObjectStoreSession(client, c, workload.trace(), history ? recorder : null, random,
                observerNanos, this);
    }

    /** A session found a torn value. */
    void torn(long lock, int client, long atNs, String problem) {
        if (torn.size() < KEPT_VIOLATIONS) {
            torn.add(new Violation.TornValue(lock, client, atNs, problem));
        }
    }

    @Override
    public boolean strictFencing() {
        return protocol.strictFencing();
    }

    @Override
    public CheckResult check(List<Hold> holds, Map<Long, Long> uncertain) {
        List<Violation> violations = new ArrayList<>(torn);
        boolean fencing = false;
        long exclusive = 0;
        if (history) {
            violations.addAll(MutualExclusionChecker.overlaps(holds));
            if (protocol.strictFencing()) {
                violations.addAll(MutualExclusionChecker.fencing(holds));
                fencing = true;
            }
            exclusive = MutualExclusionChecker.exclusiveGrantsPerLock(holds).values().stream()
                    .mapToLong(Long::longValue).sum();
        }
        return new CheckResult(true, holds.size(), exclusive, fencing, violations);
    }
}
