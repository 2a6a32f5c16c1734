package io.lockfabric.bench.experiment.shiftlock;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.Verb;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockTables;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.cas.CasLayout;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimWaitQueue;

import java.util.HashMap;
import java.util.Map;

/**
 * An oracle, not a lock protocol: the CAS lock of ShiftLock §2.3 in "the ideal case with no
 * retries", the bound that retries are measured against. No real client could run it, because it
 * knows what no client can know in time: the instant a lock becomes free on the memory node.
 *
 * <p>The lock word and the verbs are those of {@code cas} ({@link CasLayout}: acquire with one
 * masked CAS, release with one CAS), issued through the simulated RNICs like any other verbs, so
 * their cost is modelled, not assumed. What the oracle adds is the waiting: a client that wants a
 * taken lock does not CAS but waits in a FIFO queue, and when a release CAS takes effect on the
 * memory node (its linearization point, seen through a {@link SimFabric.MemoryWatcher}) the head
 * of the queue is woken at that same instant and only then sends its CAS. So every CAS that
 * reaches the NIC succeeds, and a contended handover costs what it must: the woken client's CAS
 * crossing to the memory node, its reply crossing back, and the release crossing again (three
 * one-way trips plus CPU, NIC and service time).
 *
 * <p>Sim fabric only, one instance per {@link SimFabric} (it keeps the per-lock queues, so unlike
 * a real protocol it has state), not in the protocol registry. Exclusive only; no faults: a client
 * that crashes while holding or being handed the lock keeps it.
 */
public final class IdealCasOracle implements LockProtocol {
    public static final String NAME = "ideal-cas-oracle";

    private final SimFabric fabric;
    private final Map<LockKey, LockState> locks = new HashMap<>();

    /** An oracle for the locks of {@code fabric}'s clients; it watches that fabric's memory nodes. */
    public IdealCasOracle(SimFabric fabric) {
        this.fabric = fabric;
        fabric.watch(this::executed);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "oracle (not a protocol): the cas lock whose waiters are woken exactly when it becomes free, "
                + "so no CAS ever fails";
    }

    @Override
    public boolean supportsShared() {
        return false;
    }

    @Override
    public boolean strictFencing() {
        return true;
    }

    @Override
    public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
        return LockTables.fixedStride(tableName, NAME, locks, CasLayout.WORD_BYTES);
    }

    /**
     * @throws IllegalArgumentException if {@code endpoint} is not a client of this oracle's fabric
     */
    @Override
    public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
        if (endpoint.fabric() != fabric) {
            throw new IllegalArgumentException(NAME + " runs only on the sim fabric it was made for");
        }
        return new OracleClient(endpoint, table);
    }

    private void executed(int memoryNode, Verb verb) {
        // The release CAS cannot fail: no other client writes a word whose queue the oracle keeps.
        if (verb instanceof Verb.Cas c && CasLayout.owner(c.swap()) == 0) {
            LockState lock = locks.get(new LockKey(memoryNode, c.address()));
            if (lock != null) {
                lock.freed();
            }
        }
    }

    private LockState lock(int memoryNode, long address) {
        return locks.computeIfAbsent(new LockKey(memoryNode, address), k -> new LockState());
    }

    private record LockKey(int memoryNode, long address) {
    }

    /** Whether the lock is taken (held, or handed to a client whose CAS is on its way) and who waits. */
    private final class LockState {
        private boolean taken;
        private final SimWaitQueue waiters = fabric.newWaitQueue();

        /** In the acquiring client: returns once the lock is this client's to take. */
        void awaitTurn(Endpoint endpoint) {
            if (!taken) {
                taken = true;
                return;
            }
            waiters.await(endpoint);
        }

        /** On the driver, when a release took effect: hand the lock to the first live waiter. */
        void freed() {
            if (!waiters.wakeFirst()) {
                taken = false;
            }
        }
    }

    private final class OracleClient implements LockClient {
        private final Endpoint endpoint;
        private final QueuePair qp;
        private final Table table;
        private final long owner;

        OracleClient(Endpoint endpoint, Table table) {
            this.endpoint = endpoint;
            this.qp = endpoint.queuePair(table.memoryNode());
            this.table = table;
            this.owner = CasLayout.ownerField(endpoint.ordinal());
        }

        @Override
        public Grant acquire(long lockId, Mode mode) {
            long address = LockTables.entryAddress(table, lockId, CasLayout.WORD_BYTES);
            lock(table.memoryNode(), address).awaitTurn(endpoint);
            long old = qp.maskedCas(address, 0, CasLayout.OWNER_MASK, owner, CasLayout.OWNER_MASK);
            if (CasLayout.owner(old) != 0) {
                throw new IllegalStateException(NAME + ": a CAS failed on lock " + lockId
                        + " (a client outside the oracle wrote the lock word?)");
            }
            return new OracleGrant(lockId, CasLayout.epoch(old));
        }

        @Override
        public void release(Grant grant) {
            if (!(grant instanceof OracleGrant g)) {
                throw new IllegalArgumentException("not a grant of this oracle client: " + grant);
            }
            qp.cas(LockTables.entryAddress(table, g.lockId(), CasLayout.WORD_BYTES),
                    CasLayout.held(g.fencingToken(), owner), CasLayout.releasedAfter(g.fencingToken()));
        }

        @Override
        public long locks() {
            return table.spec().locks();
        }
    }

    private record OracleGrant(long lockId, long fencingToken) implements Grant {
        @Override
        public Mode mode() {
            return Mode.EXCLUSIVE;
        }
    }
}
