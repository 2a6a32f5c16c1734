package io.lockfabric.lock.mcs;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockTables;

/**
 * {@code mcs}: the distributed MCS queue lock, ShiftLock's MCS baseline (Algorithm 1): a tail
 * pointer per lock, fetch-and-store to enqueue, handover by SEND. Exclusive only, no fault
 * tolerance, no options. See {@link McsClient}.
 */
public final class McsProtocol implements LockProtocol {
    public static final String NAME = "mcs";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "distributed MCS queue lock: fetch-and-store of the tail, handover by SEND (exclusive only)";
    }

    @Override
    public boolean supportsShared() {
        return false;
    }

    /** Tokens count grants one by one (handover count in the message, release count in the word). */
    @Override
    public boolean strictFencing() {
        return true;
    }

    @Override
    public FailureModel failureModel(LockOptions options) {
        return FailureModel.NONE;
    }

    @Override
    public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
        return LockTables.fixedStride(tableName, NAME, locks, McsLayout.WORD_BYTES);
    }

    @Override
    public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
        return new McsClient(endpoint, table);
    }
}
