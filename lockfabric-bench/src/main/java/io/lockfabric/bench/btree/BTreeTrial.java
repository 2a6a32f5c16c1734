package io.lockfabric.bench.btree;

import io.lockfabric.apps.btree.BTreeCheck;
import io.lockfabric.apps.btree.BTreeClient;
import io.lockfabric.apps.btree.BTreeLocks;
import io.lockfabric.apps.btree.BTreeOptions;
import io.lockfabric.bench.CheckResult;
import io.lockfabric.bench.Session;
import io.lockfabric.bench.Trial;
import io.lockfabric.check.History;
import io.lockfabric.check.Hold;
import io.lockfabric.check.MutualExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.FailureModel;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * A run of the {@link BTreeWorkload} with one lock variant: each client's session on the run's
 * tree (data table {@code <table>}, node locks {@code <table>-locks}), and the check: the node
 * locks' history, then the tree itself, scanned whole and checked by a client of its own after the
 * run (a simulated process on the simulator), against the updates the sessions counted.
 */
final class BTreeTrial implements Trial {
    private static final String TABLE_PREFIX = "btree";
    private static final int MAX_REPORTED = 10;

    private final BTreeWorkload workload;
    private final String variant;
    private final Fabric fabric;
    private final boolean sharedTable;
    private final BTreeOptions treeOptions;
    private final FailureModel failureModel;
    private final List<BTreeSession> sessions = new ArrayList<>();
    private String table;

    BTreeTrial(BTreeWorkload workload, String variant, Fabric fabric, boolean sharedTable) {
        this.workload = workload;
        this.variant = variant;
        this.fabric = fabric;
        this.sharedTable = sharedTable;
        this.treeOptions = workload.treeOptions(variant); // validates the variant and its options
        this.failureModel = BTreeLocks.failureModel(variant, treeOptions.lockOptions());
    }

    @Override
    public String protocol() {
        return variant;
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
        return BTreeClient.tableNames(table);
    }

    @Override
    public String label() {
        return workload.mix().label() + " " + variant;
    }

    @Override
    public String subject() {
        return "B+-tree lock " + variant + " on " + workload.mix().label();
    }

    @Override
    public Session open(int client, Endpoint endpoint, String table, History.Recorder recorder, RandomGenerator random,
                        LongSupplier observerNanos) {
        this.table = table;
        BTreeSession s = new BTreeSession(client, endpoint, table, treeOptions, workload, recorder, random,
                observerNanos, workload.check());
        sessions.add(s);
        return s;
    }

    @Override
    public CheckResult check(List<Hold> holds, Map<Long, Long> uncertain) {
        List<Violation> violations = new ArrayList<>(MutualExclusionChecker.overlaps(holds));
        long exclusive = MutualExclusionChecker.exclusiveGrantsPerLock(holds).values().stream()
                .mapToLong(Long::longValue).sum();
        violations.addAll(checkTree());
        return new CheckResult(true, holds.size(), exclusive, false, violations);
    }

    /** The tree after the run, read by a client of its own, against the sessions' counts. */
    private List<Violation> checkTree() {
        String subject = "B+-tree " + table;
        AtomicReference<BTreeCheck> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Endpoint endpoint = fabric.newEndpoint();
        try {
            fabric.spawn(table + "-checker", () -> {
                try (BTreeClient c = BTreeClient.open(endpoint, table, treeOptions)) {
                    result.set(c.check());
                } catch (Throwable t) {
                    failure.set(t);
                }
            }).join();
        } finally {
            endpoint.close();
        }
        if (failure.get() != null) {
            return List.of(new Violation.Data(subject, "the check could not read the tree: " + failure.get()));
        }
        BTreeCheck check = result.get();
        List<Violation> violations = new ArrayList<>();
        for (String p : check.problems()) {
            violations.add(new Violation.Data(subject, "structure: " + p));
        }
        if (sharedTable) {
            return violations; // other processes' updates are not counted here
        }
        Map<Long, Long> counts = new HashMap<>();
        Map<Long, Long> maybe = new HashMap<>();
        for (BTreeSession s : sessions) {
            s.counts().forEach((k, n) -> counts.merge(k, n, Long::sum));
            if (s.inFlight() != BTreeSession.NONE) {
                maybe.merge(s.inFlight(), 1L, Long::sum);
            }
        }
        long[] keys = check.keys();
        long[] values = check.values();
        int reported = 0;
        java.util.Set<Long> present = new java.util.HashSet<>();
        for (int i = 0; i < keys.length; i++) {
            long k = keys[i];
            present.add(k);
            long n = counts.getOrDefault(k, 0L);
            long extra = maybe.getOrDefault(k, 0L);
            boolean expected = workload.loaded(k) || n > 0 || extra > 0;
            String wrong = !expected ? "key " + k + " is in the tree but was never loaded or updated"
                    : values[i] < n || values[i] > n + extra ? "key " + k + " holds " + values[i] + ", but it had "
                    + n + " increments" + (extra > 0 ? " (and " + extra + " cut by a crash)" : "") : null;
            if (wrong != null && reported++ < MAX_REPORTED) {
                violations.add(new Violation.Data(subject, wrong));
            }
        }
        for (Map.Entry<Long, Long> e : counts.entrySet()) {
            if (!present.contains(e.getKey()) && reported++ < MAX_REPORTED) {
                violations.add(new Violation.Data(subject, "key " + e.getKey() + " had " + e.getValue()
                        + " increments but is not in the tree"));
            }
        }
        long loaded = workload.loadEvery() == 0 ? 0 : (workload.keys() + workload.loadEvery() - 1) / workload.loadEvery();
        long missingLoaded = loaded - keys.length + counts.keySet().stream().filter(k -> !workload.loaded(k)).count();
        if (missingLoaded > 0 && reported < MAX_REPORTED) {
            violations.add(new Violation.Data(subject, missingLoaded + " loaded keys are missing from the tree"));
        }
        return violations;
    }
}
