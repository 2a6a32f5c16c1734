package io.lockfabric.bench.txn;

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
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * A run of the {@link TransactionWorkload} with one {@link LockProtocol}: each client's lock client
 * on a table of the generator's locks, and the check of the history (overlaps, and fencing order
 * for protocols with strict fencing).
 */
final class TransactionTrial implements Trial {
    private static final String TABLE_PREFIX = "txn";

    private final TransactionWorkload workload;
    private final LockProtocol protocol;
    private final boolean realTime;
    private final LockOptions options;
    private final FailureModel failureModel;

    TransactionTrial(TransactionWorkload workload, LockProtocol protocol, Fabric fabric) {
        this.workload = workload;
        this.protocol = protocol;
        this.realTime = fabric.clientRuntime() == ClientRuntime.REAL_TIME;
        this.options = workload.options().forProtocol(protocol);
        this.failureModel = protocol.failureModel(options);
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
        return workload.generator().name() + " " + protocol.name();
    }

    @Override
    public String subject() {
        return "protocol " + protocol.name() + " on " + workload.generator().name();
    }

    @Override
    public Session open(int client, Endpoint endpoint, String table, History.Recorder recorder, RandomGenerator random,
                        LongSupplier observerNanos) {
        return new TransactionSession(protocol.open(endpoint, table, workload.generator().locks(), options),
                endpoint.clock(), realTime, workload, recorder, random, observerNanos);
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
        long exclusive = MutualExclusionChecker.exclusiveGrantsPerLock(holds).values().stream()
                .mapToLong(Long::longValue).sum();
        return new CheckResult(true, holds.size(), exclusive, protocol.strictFencing(), violations);
    }
}
