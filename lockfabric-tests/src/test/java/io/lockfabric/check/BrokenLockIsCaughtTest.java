package io.lockfabric.check;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The checker is only worth something if it fails broken locks: here are three. */
class BrokenLockIsCaughtTest {

    /** A CAS lock whose release forgets to check it holds, and whose acquire sometimes skips the CAS. */
    private static final class BrokenProtocol implements LockProtocol {
        private final boolean skipAcquire;
        private final boolean reuseToken;

        BrokenProtocol(boolean skipAcquire, boolean reuseToken) {
            this.skipAcquire = skipAcquire;
            this.reuseToken = reuseToken;
        }

        @Override
        public String name() {
            return "broken";
        }

        @Override
        public String description() {
            return "a deliberately broken lock";
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
            return new TableSpec(tableName, name(), locks, locks * 16);
        }

        @Override
        public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
            QueuePair qp = endpoint.queuePair(0);
            return new LockClient() {
                long acquisitions;

                @Override
                public Grant acquire(long lockId, Mode mode) {
                    long addr = table.at(lockId * 8);
                    acquisitions++;
                    if (skipAcquire && acquisitions % 3 == 0) {
                        // skip the lock while another client holds it (waiting at most 50 us for one), so that the
                        // bogus grant overlaps a real one however the threads are scheduled
                        long giveUpAt = endpoint.clock().nanoTime() + 50_000;
                        while (qp.read8(addr) == 0 && endpoint.clock().nanoTime() < giveUpAt) {
                            Thread.onSpinWait();
                        }
                    } else {
                        while (qp.cas(addr, 0, 1) != 0) {
                            endpoint.clock().sleepNanos(100);
                        }
                    }
                    // one counter per lock: tokens increase with every grant, so only real
                    // overlaps can put them out of order
                    long token = reuseToken ? 7 : qp.faa(table.at((table.spec().locks() + lockId) * 8), 1) + 1;
                    return new SimpleGrant(lockId, token);
                }

                @Override
                public void release(Grant grant) {
                    qp.write8(table.at(grant.lockId() * 8), 0);
                }

                @Override
                public long locks() {
                    return table.spec().locks();
                }
            };
        }
    }

    private record SimpleGrant(long lockId, long fencingToken) implements Grant {
        @Override
        public Mode mode() {
            return Mode.EXCLUSIVE;
        }
    }

    @Test
    void acquireThatSkipsTheLockIsCaught() {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            var result = LockStress.run(fabric, new BrokenProtocol(true, false), LockStress.Config.of(4, 2, 0, 0, 20_000));
            assertFalse(result.violations().isEmpty(), "skipped acquisitions must be seen");
            assertTrue(result.violations().stream().anyMatch(v -> v instanceof Violation.Overlap),
                    "as overlapping grants: " + result.summary());
        }
    }

    @Test
    void tokensThatDoNotIncreaseAreCaught() {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            var result = LockStress.run(fabric, new BrokenProtocol(false, true), LockStress.Config.of(2, 1, 0, 0, 1_000));
            assertTrue(result.violations().stream().allMatch(v -> v instanceof Violation.Fencing), result.summary());
            assertFalse(result.violations().isEmpty());
        }
    }

    @Test
    void checkerFindsOverlapsBetweenReadersAndWritersButNotAmongReaders() {
        Hold w = new Hold(1, 5, 6, Mode.EXCLUSIVE, 1, 100, 200);
        Hold r1 = new Hold(2, 5, 6, Mode.SHARED, 1, 150, 300);
        Hold r2 = new Hold(3, 5, 6, Mode.SHARED, 1, 160, 310);
        Hold otherLock = new Hold(4, 6, 7, Mode.EXCLUSIVE, 1, 100, 400);
        Hold touching = new Hold(5, 5, 6, Mode.EXCLUSIVE, 2, 310, 320);
        List<Violation> v = MutualExclusionChecker.overlaps(List.of(w, r1, r2, otherLock, touching));
        assertEquals(2, v.size(), "writer overlaps both readers; readers share; release==grant is no overlap: " + v);
    }

    @Test
    void rangeHoldsConflictOnlyWhereTheyIntersect() {
        Hold a = new Hold(1, 0, 10, Mode.EXCLUSIVE, 1, 0, 100);
        Hold b = new Hold(2, 10, 20, Mode.EXCLUSIVE, 1, 0, 100);
        Hold c = new Hold(3, 9, 11, Mode.SHARED, 1, 50, 60);
        assertEquals(2, MutualExclusionChecker.overlaps(List.of(a, b, c)).size());
    }

    @Test
    void fencingAllowsEqualSharedTokensButNotOlderOnes() {
        Hold w1 = new Hold(1, 0, 1, Mode.EXCLUSIVE, 4, 0, 10);
        Hold r = new Hold(2, 0, 1, Mode.SHARED, 4, 20, 30);
        Hold w2 = new Hold(1, 0, 1, Mode.EXCLUSIVE, 5, 40, 50);
        Hold stale = new Hold(3, 0, 1, Mode.SHARED, 4, 60, 70);
        List<Violation> v = MutualExclusionChecker.fencing(List.of(w1, r, w2, stale));
        assertEquals(1, v.size(), v.toString());
        assertEquals(stale, ((Violation.Fencing) v.get(0)).later());
    }
}
