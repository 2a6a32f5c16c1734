package io.lockfabric.check;

import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One 8-byte counter per lock on the memory node, incremented by every exclusive holder with a
 * remote READ, +1, WRITE (not atomic: only mutual exclusion keeps increments from being lost).
 * After a run each counter must equal the number of exclusive grants its lock had.
 */
public final class GuardedCounters {
    public static final String PROTOCOL = "guarded-counter";
    public static final int WORD_BYTES = 8;
    /** Size of one READ when verifying. */
    public static final int VERIFY_CHUNK_BYTES = 64 * 1024;

    private GuardedCounters() {
    }

    public static TableSpec tableSpec(String name, long locks) {
        return new TableSpec(name, PROTOCOL, locks, Math.max(1, locks) * WORD_BYTES);
    }

    public static long address(Table table, long lock) {
        return table.at(lock * WORD_BYTES);
    }

    /** The exclusive holder's increment: READ then WRITE (two verbs). */
    public static void increment(QueuePair qp, Table table, long lock) {
        long addr = address(table, lock);
        qp.write8(addr, qp.read8(addr) + 1);
    }

    /**
     * Counters that differ from the exclusive grants counted in {@code expected} (lock → count).
     * Reads the table in range READs of {@link #VERIFY_CHUNK_BYTES}.
     */
    public static List<Violation> verify(QueuePair qp, Table table, Map<Long, Long> expected) {
        return verify(qp, table, expected, Map.of());
    }

    /**
     * As {@link #verify(QueuePair, Table, Map)}, where {@code uncertain} (lock → count) of the
     * expected increments may be missing: those of holders that crashed inside their critical
     * section, whose increment may or may not have landed.
     */
    public static List<Violation> verify(QueuePair qp, Table table, Map<Long, Long> expected,
                                         Map<Long, Long> uncertain) {
        List<Violation> found = new ArrayList<>();
        long locks = table.spec().locks();
        for (long first = 0; first < locks; first += VERIFY_CHUNK_BYTES / WORD_BYTES) {
            int n = (int) Math.min(VERIFY_CHUNK_BYTES / WORD_BYTES, locks - first);
            ByteBuffer words = ByteBuffer.wrap(qp.read(address(table, first), n * WORD_BYTES)).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < n; i++) {
                long lock = first + i;
                long want = expected.getOrDefault(lock, 0L);
                long slack = uncertain.getOrDefault(lock, 0L);
                long got = words.getLong(i * WORD_BYTES);
                if ((got > want || got < want - slack) && found.size() < MutualExclusionChecker.MAX_REPORTED) {
                    found.add(new Violation.Counter(lock, want, got));
                }
            }
        }
        return found;
    }
}
