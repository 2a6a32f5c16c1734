package io.lockfabric.apps.btree;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The bytes of a Sherman-style B+-tree on a memory node: one data table of fixed-size nodes, with a
 * header in the slot of node 0. Every field is a little-endian 64-bit word.
 *
 * <pre>
 * table "NAME" (protocol tag "btree-data"), bytes = (capacity + 1) x nodeBytes
 *   node 0 = header:
 *     0   ALLOC    nodes allocated so far; a client allocates with FAA(ALLOC, 1) + 1 (so node 0 is none)
 *     8   ROOT     index of the root node, 0 before the tree is made (a CAS from 0 makes it)
 *     16  FANOUT   the fan-out the tree was made with (a client of another fan-out is refused)
 *     24  LOADED   1 once a bulk load finished (clients that wait for a load poll it)
 *   node i (1 &lt;= i &lt;= capacity) at offset i x nodeBytes, nodeBytes = 72 + 16 x fanout:
 *     0   FRONT    front version: bumped by every write of the node
 *     8   META     level (bits 0-7; 0 = leaf) | entry count (bits 8-23)
 *     16  LOW      low fence key, inclusive (Long.MIN_VALUE: minus infinity)
 *     24  HIGH     high fence key, exclusive (Long.MAX_VALUE: plus infinity)
 *     32  SIBLING  right sibling's index at the same level, 0 for the last node of a level
 *     40  LEFTMOST internal: child for keys in [LOW, key 0); leaf: 0
 *     48  CHECKSUM a hash of every other word of the node
 *     56  reserved (0)
 *     64 + 16 x j   KEY j, then VALUE j (leaf: the value; internal: the child covering [KEY j, KEY j+1))
 *     64 + 16 x fanout  REAR  rear version, equal to FRONT in a node written whole
 * </pre>
 *
 * <p>Lock-free reads: a writer (holding the node's lock) writes the whole node in one WRITE with
 * FRONT = REAR = the old version + 1 and a fresh CHECKSUM; a reader READs the node whole and takes it
 * only if FRONT = REAR, FRONT &gt; 0 and the checksum matches, and reads again otherwise (a torn read of
 * a node being written). Sherman's nodes carry front and rear versions the same way (its leaves add
 * per-entry versions, which a whole-node write does not need). Keys are in [Long.MIN_VALUE + 1,
 * Long.MAX_VALUE - 1]; a node's keys are sorted and in [LOW, HIGH) (B-link: a reader whose key is at
 * or above HIGH moves to SIBLING).
 */
public final class BTreeLayout {
    /** The protocol tag of the data table. */
    public static final String TABLE_TAG = "btree-data";
    static final long ALLOC_OFFSET = 0;
    static final long ROOT_OFFSET = 8;
    static final long FANOUT_OFFSET = 16;
    static final long LOADED_OFFSET = 24;
    static final int HEADER_WORDS = 8;
    static final int ENTRY_BYTES = 16;
    /** The smallest and largest fan-out a tree can have. */
    public static final int MIN_FANOUT = 4;
    public static final int MAX_FANOUT = 1024;
    /** Minus infinity as a low fence. */
    public static final long MIN_KEY = Long.MIN_VALUE;
    /** Plus infinity as a high fence. */
    public static final long MAX_KEY = Long.MAX_VALUE;

    private final int fanout;
    private final int nodeBytes;

    public BTreeLayout(int fanout) {
        if (fanout < MIN_FANOUT || fanout > MAX_FANOUT) {
            throw new IllegalArgumentException("fan-out must be in [" + MIN_FANOUT + ", " + MAX_FANOUT + "], got " + fanout);
        }
        this.fanout = fanout;
        this.nodeBytes = HEADER_WORDS * 8 + ENTRY_BYTES * fanout + 8;
    }

    public int fanout() {
        return fanout;
    }

    /** Bytes of one node. */
    public int nodeBytes() {
        return nodeBytes;
    }

    /** Bytes of a table of {@code capacity} nodes (plus the header). */
    public long tableBytes(long capacity) {
        return (capacity + 1) * nodeBytes;
    }

    /** Offset of node {@code index} in the table. */
    public long nodeOffset(long index) {
        return index * nodeBytes;
    }

    /** A node as a client holds it between a READ and a WRITE. Mutable; belongs to one client. */
    public static final class Node {
        long index;
        long version;
        int level;
        int count;
        long low = MIN_KEY;
        long high = MAX_KEY;
        long sibling;
        long leftmost;
        final long[] keys;
        final long[] values;

        Node(int fanout) {
            keys = new long[fanout + 1];
            values = new long[fanout + 1];
        }

        public long index() {
            return index;
        }

        public int level() {
            return level;
        }

        public int count() {
            return count;
        }

        public long low() {
            return low;
        }

        public long high() {
            return high;
        }

        public long sibling() {
            return sibling;
        }

        public long leftmost() {
            return leftmost;
        }

        public long key(int j) {
            return keys[j];
        }

        public long value(int j) {
            return values[j];
        }

        public long version() {
            return version;
        }

        public boolean leaf() {
            return level == 0;
        }

        /** Position of {@code key} among the entries, or {@code -(insertion point) - 1}. */
        int find(long key) {
            return Arrays.binarySearch(keys, 0, count, key);
        }

        /** The child of an internal node that covers {@code key} (in [low, high)). */
        long child(long key) {
            int pos = find(key);
            int j = pos >= 0 ? pos : -pos - 2;
            return j < 0 ? leftmost : values[j];
        }

        /** Inserts at position {@code pos} (room for one entry beyond the fan-out). */
        void insertAt(int pos, long key, long value) {
            System.arraycopy(keys, pos, keys, pos + 1, count - pos);
            System.arraycopy(values, pos, values, pos + 1, count - pos);
            keys[pos] = key;
            values[pos] = value;
            count++;
        }

        boolean covers(long key) {
            return key >= low && key < high;
        }

        @Override
        public String toString() {
            return "node " + index + " (level " + level + ", " + count + " entries, [" + fence(low) + ", " + fence(high)
                    + "), sibling " + sibling + ", v" + version + ")";
        }

        static String fence(long k) {
            return k == MIN_KEY ? "-inf" : k == MAX_KEY ? "+inf" : Long.toString(k);
        }
    }

    /** A fresh node of this layout's fan-out. */
    public Node newNode() {
        return new Node(fanout);
    }

    /** The bytes of {@code n} with versions {@code version} front and rear and its checksum. */
    byte[] encode(Node n, long version) {
        if (n.count > fanout) {
            throw new IllegalStateException("node " + n.index + " holds " + n.count + " entries, fan-out " + fanout);
        }
        ByteBuffer b = ByteBuffer.allocate(nodeBytes).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(0, version);
        b.putLong(8, (n.level & 0xFFL) | ((long) n.count << 8));
        b.putLong(16, n.low);
        b.putLong(24, n.high);
        b.putLong(32, n.sibling);
        b.putLong(40, n.leftmost);
        for (int j = 0; j < n.count; j++) {
            b.putLong(64 + ENTRY_BYTES * j, n.keys[j]);
            b.putLong(72 + ENTRY_BYTES * j, n.values[j]);
        }
        b.putLong(nodeBytes - 8, version);
        b.putLong(48, checksum(b));
        return b.array();
    }

    /**
     * Decodes {@code bytes} into {@code into}; false if they are not a whole, consistent node (torn,
     * never written, or a count beyond the fan-out).
     */
    boolean decode(byte[] bytes, long index, Node into) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long front = b.getLong(0);
        long rear = b.getLong(nodeBytes - 8);
        if (front <= 0 || front != rear || b.getLong(48) != checksum(b)) {
            return false;
        }
        long meta = b.getLong(8);
        int count = (int) ((meta >>> 8) & 0xFFFF);
        if (count > fanout) {
            return false;
        }
        into.index = index;
        into.version = front;
        into.level = (int) (meta & 0xFF);
        into.count = count;
        into.low = b.getLong(16);
        into.high = b.getLong(24);
        into.sibling = b.getLong(32);
        into.leftmost = b.getLong(40);
        for (int j = 0; j < count; j++) {
            into.keys[j] = b.getLong(64 + ENTRY_BYTES * j);
            into.values[j] = b.getLong(72 + ENTRY_BYTES * j);
        }
        return true;
    }

    /** A 64-bit mix of every word but the checksum's. */
    private long checksum(ByteBuffer b) {
        long h = 0x9E3779B97F4A7C15L ^ nodeBytes;
        for (int off = 0; off < nodeBytes; off += 8) {
            if (off == 48) {
                continue;
            }
            h = (h ^ b.getLong(off)) * 0xBF58476D1CE4E5B9L;
            h ^= h >>> 31;
        }
        return h;
    }
}
