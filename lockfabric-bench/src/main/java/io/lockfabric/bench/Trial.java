package io.lockfabric.bench;

import io.lockfabric.check.History;
import io.lockfabric.check.Hold;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.FailureModel;

import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * One run of a {@link Workload} with one protocol on one fabric, as the {@link Runner} sees it:
 * the protocol's name and failure model, how the run's tables and client threads are named, the
 * opening of each client's {@link Session} (its lock client and whatever tables or generators the
 * workload gives it) and the check of the run's history. Made by {@link Workload#trial}; used by
 * the runner's thread only.
 */
public interface Trial {
    /** The protocol's registry name. */
    String protocol();

    /** What the protocol promises when clients crash or pause, with the run's options. */
    FailureModel failureModel();

    /**
     * The run's tables are named {@code <prefix>-<protocol>-...}, its threads
     * {@code <prefix>-<protocol>-client-<i>}.
     */
    String tablePrefix();

    /**
     * The names of the tables a run on lock table {@code table} opens (the lock table and what the
     * trial keeps beside it; tables a protocol's service makes go with their owner), for the runner
     * to drop them after a run of its own on a memory node that outlives it. Default: the lock table.
     */
    default java.util.List<String> tableNames(String table) {
        return java.util.List.of(table);
    }

    /** What a progress line shows for the run. */
    String label();

    /** The protocol as messages name it: {@code protocol cas}, {@code range protocol citron}. */
    String subject();

    /**
     * Opens client {@code client}'s session on {@code endpoint}, on the runner's thread, clients in
     * order.
     *
     * @param table          the run's table name (the workload may add tables beside it)
     * @param recorder       where the session records its grants, or null if the run keeps no history
     * @param random         the client's own source of random choices
     * @param observerNanos  the observer clock, for the times the session reports
     */
    Session open(int client, Endpoint endpoint, String table, History.Recorder recorder, RandomGenerator random,
                 LongSupplier observerNanos);

    /**
     * Checks the run's history (only called when the workload checks).
     *
     * @param holds     every hold of the run, warmup included
     * @param uncertain per lock, exclusive holds cut by a crash whose guarded side effects may or may
     *                  not have landed
     */
    CheckResult check(List<Hold> holds, Map<Long, Long> uncertain);

    /**
     * Whether the protocol's fencing tokens, as this trial runs it, strictly increase from one
     * exclusive grant of a lock to the next (what a merged check of several processes relies on
     * across hosts). Default: false.
     */
    default boolean strictFencing() {
        return false;
    }
}
