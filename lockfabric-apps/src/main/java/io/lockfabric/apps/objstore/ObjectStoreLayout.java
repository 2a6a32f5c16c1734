package io.lockfabric.apps.objstore;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The bytes of an object store on its memory node: one data table (protocol tag
 * {@value #TABLE_TAG}) holding a superblock, a hash index of slots and a heap of value blocks; the
 * locks are a separate table of the named protocol with one reader-writer lock per slot (lock id =
 * slot). All words are 64-bit little-endian, as everywhere on the fabric.
 *
 * <pre>
 * table offset
 * 0              superblock, 64 B
 *                  +0  magic "LFOBJ001" (0 until the first opener has written the words below)
 *                  +8  objects        number of slots
 *                  +16 maxValueBytes  the largest value a set may store
 *                  +24 heapBytes      size of the heap
 *                  +32 heapTop        bytes of the heap handed out so far (only ever FAA'd)
 *                  +40 loaded         0; 1 while a bulk load writes the index and heap; 2 once it is done
 * 64             slots, objects x 32 B; slot s at 64 + 32 s
 *                  +0  key tag        0 = empty; key + 1 once claimed (CAS 0 -> tag; never changes again)
 *                  +8  block          table offset of the slot's value block; 0 = no value yet
 *                  +16 capacity       bytes of that block (header included)
 *                  +24 reserved
 * 64 + 32 objects  heap, heapBytes: value blocks, each 64-byte aligned, handed out by FAA on heapTop
 *                  +0  key tag        of the key whose value this is
 *                  +8  length | writer << 32   value bytes (MOVED = 0xFFFFFFFF: the block was abandoned)
 *                  +16 sequence       the writer's count of its sets
 *                  +24 check          CRC32C of bytes [0, 24) and of the value, | "LFOV" << 32
 *                  +32 the value's bytes
 * </pre>
 *
 * <p>A key lives in the slot its hash picks or the next free one after it (linear probing); a slot
 * once claimed keeps its key (objects are never deleted). A value is written whole, header and bytes
 * in ONE WRITE verb, under the slot's exclusive lock, and read with one READ of the block under its
 * shared lock: the check word covers header and bytes, so a reader that got the bytes of two sets
 * (a torn value: a lock that let a reader in beside a writer) finds the check wrong. A value that
 * outgrows its block gets a new block (FAA on heapTop); the old one is overwritten with a MOVED
 * header, so a client that cached the old block's place reads MOVED and looks the slot up again.
 * Blocks are never reused.
 */
public final class ObjectStoreLayout {
    /** The data table's protocol tag. */
    public static final String TABLE_TAG = "objstore-data";
    /** The superblock's magic word: "LFOBJ001" read as a little-endian long. */
    public static final long MAGIC = ByteBuffer.wrap("LFOBJ001".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
            .order(ByteOrder.LITTLE_ENDIAN).getLong();
    public static final int SUPERBLOCK_BYTES = 64;
    public static final int MAGIC_OFFSET = 0;
    public static final int OBJECTS_OFFSET = 8;
    public static final int MAX_VALUE_OFFSET = 16;
    public static final int HEAP_BYTES_OFFSET = 24;
    public static final int HEAP_TOP_OFFSET = 32;
    public static final int LOADED_OFFSET = 40;
    /** The loaded word while a bulk load runs, and once it is done. */
    public static final long LOADING = 1;
    public static final long LOADED = 2;

    public static final int SLOT_BYTES = 32;
    public static final int SLOT_TAG = 0;
    public static final int SLOT_BLOCK = 8;
    public static final int SLOT_CAPACITY = 16;

    /** Bytes of a value block's header. */
    public static final int HEADER_BYTES = 32;
    public static final int VALUE_TAG = 0;
    public static final int VALUE_LENGTH_WRITER = 8;
    public static final int VALUE_SEQUENCE = 16;
    public static final int VALUE_CHECK = 24;
    /** The length of an abandoned block's header. */
    public static final int MOVED = 0xFFFFFFFF;
    /** The high half of every check word: "LFOV". */
    public static final long CHECK_MAGIC = 0x564F464CL;
    /** Blocks are aligned to this. */
    public static final int BLOCK_ALIGN = 64;
    /** The largest value a layout allows (16 MiB, header included). */
    public static final int MAX_VALUE_LIMIT = (1 << 24) - HEADER_BYTES;
    /** The largest key: its tag (key + 1) must stay positive. */
    public static final long MAX_KEY = Long.MAX_VALUE - 1;

    private final long objects;
    private final int maxValueBytes;
    private final long heapBytes;

    /**
     * @param objects       slots in the index (each key takes one; at most 2^26)
     * @param maxValueBytes the largest value, in [1, 2^24 - 32]
     * @param heapBytes     bytes for value blocks (at least one block of the largest value)
     */
    public ObjectStoreLayout(long objects, int maxValueBytes, long heapBytes) {
        if (objects < 1 || objects > (1L << 26)) {
            throw new IllegalArgumentException("objects must be in [1, 2^26], got " + objects);
        }
        if (maxValueBytes < 1 || maxValueBytes > MAX_VALUE_LIMIT) {
            throw new IllegalArgumentException("max value bytes must be in [1, " + MAX_VALUE_LIMIT + "], got "
                    + maxValueBytes);
        }
        if (heapBytes < blockBytes(maxValueBytes) || heapBytes > (1L << 40)) {
            throw new IllegalArgumentException("heap bytes must be in [" + blockBytes(maxValueBytes)
                    + " (one block of the largest value), 2^40], got " + heapBytes);
        }
        this.objects = objects;
        this.maxValueBytes = maxValueBytes;
        this.heapBytes = heapBytes;
    }

    public long objects() {
        return objects;
    }

    public int maxValueBytes() {
        return maxValueBytes;
    }

    public long heapBytes() {
        return heapBytes;
    }

    /** The data table's size. */
    public long tableBytes() {
        return heapStart() + heapBytes;
    }

    public long heapStart() {
        return SUPERBLOCK_BYTES + objects * SLOT_BYTES;
    }

    /** Table offset of slot {@code slot}. */
    public long slotOffset(long slot) {
        return SUPERBLOCK_BYTES + slot * SLOT_BYTES;
    }

    /** The slot a key's probe starts at. */
    public long home(long key) {
        return Long.remainderUnsigned(mix(key), objects);
    }

    /** The index's tag for {@code key}. */
    public static long tag(long key) {
        if (key < 0 || key > MAX_KEY) {
            throw new IllegalArgumentException("a key is in [0, 2^63 - 2], got " + key);
        }
        return key + 1;
    }

    /** The block a value of {@code length} bytes needs, header included, rounded up to {@link #BLOCK_ALIGN}. */
    public static long blockBytes(int length) {
        long need = (long) HEADER_BYTES + length;
        return (need + BLOCK_ALIGN - 1) / BLOCK_ALIGN * BLOCK_ALIGN;
    }

    /**
     * A 64-bit finaliser (MurmurHash3's fmix64). The store's own copy, not the client API's
     * {@code KeyHash}: where a key lands is part of this layout's format on the memory node, which
     * must not move if the API's key hash ever does.
     */
    static long mix(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }

    /**
     * The WRITE payload of a value: header and bytes, with the check word computed.
     *
     * @param length the value's length, or {@link #MOVED} for an abandoned block's header (no bytes)
     */
    public static byte[] encode(long tag, int writer, long sequence, byte[] value, int length) {
        int bytes = length == MOVED ? 0 : length;
        byte[] out = new byte[HEADER_BYTES + bytes];
        ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(VALUE_TAG, tag);
        b.putLong(VALUE_LENGTH_WRITER, (length & 0xFFFFFFFFL) | ((long) writer << 32));
        b.putLong(VALUE_SEQUENCE, sequence);
        if (bytes > 0) {
            System.arraycopy(value, 0, out, HEADER_BYTES, bytes);
        }
        b.putLong(VALUE_CHECK, checkWord(out, bytes));
        return out;
    }

    /** The check word of a block image {@code block} whose value is {@code length} bytes. */
    static long checkWord(byte[] block, int length) {
        CRC32C crc = new CRC32C();
        crc.update(block, 0, VALUE_CHECK);
        crc.update(block, HEADER_BYTES, length);
        return crc.getValue() | (CHECK_MAGIC << 32);
    }

    /** The header of a block image read from the memory node. */
    public record Header(long tag, int length, int writer, long sequence, long check) {
        /** Whether this block was abandoned for a bigger one. */
        public boolean moved() {
            return length == MOVED;
        }

        /** Whether no value was ever written here (a fresh block reads all zeros). */
        public boolean empty() {
            return tag == 0 && check == 0;
        }
    }

    /** The header at the start of {@code block}. */
    public static Header header(byte[] block) {
        ByteBuffer b = ByteBuffer.wrap(block).order(ByteOrder.LITTLE_ENDIAN);
        long lw = b.getLong(VALUE_LENGTH_WRITER);
        return new Header(b.getLong(VALUE_TAG), (int) lw, (int) (lw >>> 32), b.getLong(VALUE_SEQUENCE),
                b.getLong(VALUE_CHECK));
    }

    /**
     * Whether a block image whose header says {@code h} holds a whole value: the check word matches
     * header and bytes. {@code block} must hold the header and all the value's bytes.
     */
    public static boolean intact(byte[] block, Header h) {
        int length = h.moved() ? 0 : h.length();
        if (length < 0 || HEADER_BYTES + (long) length > block.length) {
            return false;
        }
        return h.check() == checkWord(block, length);
    }

    @Override
    public String toString() {
        return "object store layout (" + objects + " objects, values up to " + maxValueBytes + " B, heap "
                + heapBytes + " B)";
    }
}
