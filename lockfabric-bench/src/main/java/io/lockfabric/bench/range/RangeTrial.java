package io.lockfabric.bench.range;

import io.lockfabric.bench.CheckResult;
import io.lockfabric.bench.Session;
import io.lockfabric.bench.Trial;
import io.lockfabric.bench.ZipfGenerator;
import io.lockfabric.check.History;
import io.lockfabric.check.Hold;
import io.lockfabric.check.RangeExclusionChecker;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeLockProtocol;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * A run of the {@link RangeWorkload} with one {@link RangeLockProtocol}: each client's range lock
 * client on the run's table, the border generator of its range size, and the range exclusion check
 * of the history.
 */
final class RangeTrial implements Trial {
    private static final String TABLE_PREFIX = "rbench";

    private final RangeWorkload workload;
    private final RangeLockProtocol protocol;
    private final LockOptions options;
    private final FailureModel failureModel;
    private final Map<Long, ZipfGenerator> borders = new HashMap<>();

    RangeTrial(RangeWorkload workload, RangeLockProtocol protocol) {
        this.workload = workload;
        this.protocol = protocol;
        this.options = workload.optionsFor(protocol);
        this.failureModel = protocol.failureModel(options);
        for (long l : workload.sizes()) {
            borders.put(l, new ZipfGenerator(workload.units() - l + 1, workload.zipf()));
        }
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
        return protocol.name() + " L=" + workload.sizeName();
    }

    @Override
    public String subject() {
        return "range protocol " + protocol.name();
    }

    @Override
    public Session open(int client, Endpoint endpoint, String table, History.Recorder recorder, RandomGenerator random,
                        LongSupplier observerNanos) {
        long size = workload.sizeOf(client);
        return new RangeSession(endpoint, protocol.open(endpoint, table, options), recorder, borders.get(size), size,
                random, workload.csNs(), observerNanos, workload.readRatio());
    }

    @Override
    public boolean strictFencing() {
        return protocol.strictFencing(options);
    }

    /** Range exclusion (fencing order is not checked: its check is quadratic in the holds). */
    @Override
    public CheckResult check(List<Hold> holds, Map<Long, Long> uncertain) {
        long exclusive = holds.stream().filter(h -> h.mode() == Mode.EXCLUSIVE).count();
        return new CheckResult(true, holds.size(), exclusive, false, RangeExclusionChecker.violations(holds));
    }
}
