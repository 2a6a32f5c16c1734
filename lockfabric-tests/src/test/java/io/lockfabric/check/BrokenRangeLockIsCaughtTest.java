package io.lockfabric.check;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;

/** The range harness and checker catch a range lock that grants everything at once. */
class BrokenRangeLockIsCaughtTest {
    private record FreeGrant(long start, long end) implements RangeGrant {
        public Mode mode() {
            return Mode.EXCLUSIVE;
        }

        public long fencingToken() {
            return 0;
        }
    }

    private static final class NoLock implements RangeLockProtocol {
        public String name() {
            return "no-lock";
        }

        public String description() {
            return "grants every range at once";
        }

        public boolean supportsShared() {
            return false;
        }

        public boolean strictFencing() {
            return false;
        }

        public TableSpec tableSpec(String tableName, LockOptions options) {
            return new TableSpec(tableName, name(), 1, 8);
        }

        public RangeLockClient client(Endpoint endpoint, Table table, LockOptions options) {
            return new RangeLockClient() {
                public RangeGrant acquire(long start, long end, Mode mode) {
                    endpoint.clock().sleepNanos(2_000); // give the others a chance to overlap
                    return new FreeGrant(start, end);
                }

                public void release(RangeGrant grant) {
                }
            };
        }
    }

    @Test
    void overlapsAreReported() {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            var cfg = new RangeLockStress.Config(4, 2_000, 1_000, 0, 2_000, 5_000, 1, LockOptions.DEFAULTS);
            var result = RangeLockStress.run(fabric, new NoLock(), cfg);
            assertFalse(result.violations().isEmpty(), "a lock that never excludes must be caught");
        }
    }
}
