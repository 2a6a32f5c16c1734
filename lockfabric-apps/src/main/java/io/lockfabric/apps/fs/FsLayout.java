package io.lockfabric.apps.fs;

import java.nio.charset.StandardCharsets;

/**
 * Where a CitronFS keeps its metadata and its file data on the memory nodes.
 *
 * <p><b>Metadata table</b> ({@code <fs>-meta}, tag {@value #META_TAG}, on memory node
 * {@link FsOptions#metadataNode()}): a superblock, then {@code maxFiles} inode slots, then one
 * extent map per slot.
 * <pre>
 *  offset 0                                                         64
 *  +-------+----------+------------+--------------+-----------+------+
 *  | MAGIC | maxFiles | maxExtents | extentBytes  | dataNodes | ...  |   superblock
 *  +-------+----------+------------+--------------+-----------+------+
 *  64 + i * 128: inode i
 *  +--------+--------+--------+-------------+---------------------------+
 *  | tag    | size   | state  | name length | name (UTF-8, <= 96 bytes) |
 *  | +0     | +8     | +16    | +24         | +32 .. +127               |
 *  +--------+--------+--------+-------------+---------------------------+
 *   tag: 0 free, else (FNV-1a of the name) | 1, claimed by CAS 0 -> tag (linear probing from hash % maxFiles)
 *   size: the file's length in bytes; raised by CAS (to the end of a write past it), set by truncate
 *   state: 0 while the creator writes the name, LIVE after
 *  mapStart + (i * maxExtents + e) * 8: extent e of inode i
 *  +-------------------------+--------------------------------------------+
 *  | bits 63..48: node + 1   | bits 47..0: offset in that node's data table|   0: not allocated (a hole)
 *  +-------------------------+--------------------------------------------+
 * </pre>
 *
 * <p><b>Data tables</b> ({@code <fs>-data-<n>}, tag {@value #DATA_TAG}, one per data memory node):
 * word 0 is the node's bump allocator (FAA by {@code extentBytes}); extents follow from offset
 * {@value #DATA_HEAP_START}. An extent is zero when allocated and is never freed (truncate zeroes
 * the bytes it cuts instead), so an extent word, once set, never changes: compute nodes cache them.
 */
public record FsLayout(int maxFiles, int maxExtents, int extentBytes, int dataNodeStart, int dataNodes,
                       long dataBytesPerNode) {
    public static final String META_TAG = "citronfs-meta";
    public static final String DATA_TAG = "citronfs-data";
    public static final long MAGIC = 0x43697472_6f6e4653L; // "CitronFS"
    public static final int SUPERBLOCK_BYTES = 64;
    public static final int INODE_BYTES = 128;
    public static final int TAG = 0;
    public static final int SIZE = 8;
    public static final int STATE = 16;
    public static final int NAME_LENGTH = 24;
    public static final int NAME = 32;
    public static final int MAX_NAME_BYTES = INODE_BYTES - NAME;
    public static final long LIVE = 1;
    public static final int EXTENT_NODE_SHIFT = 48;
    public static final long EXTENT_OFFSET_MASK = (1L << EXTENT_NODE_SHIFT) - 1;
    /** An extent word being allocated by the client that CASed it from 0 (bit 63: no node reaches it). */
    public static final long CLAIMED = Long.MIN_VALUE;
    public static final long DATA_HEAP_TOP = 0;
    public static final long DATA_HEAP_START = 64;

    public FsLayout {
        if (maxFiles < 1) {
            throw new IllegalArgumentException("a file system holds at least 1 file, got " + maxFiles);
        }
        if (maxExtents < 1) {
            throw new IllegalArgumentException("a file has at least 1 extent, got " + maxExtents);
        }
        if (extentBytes < 4096 || Integer.bitCount(extentBytes) != 1) {
            throw new IllegalArgumentException("extent bytes must be a power of two >= 4096, got " + extentBytes);
        }
        if (dataNodeStart < 0 || dataNodes < 1) {
            throw new IllegalArgumentException("data nodes must start at >= 0 and be >= 1, got " + dataNodeStart
                    + " + " + dataNodes);
        }
        if (dataBytesPerNode < DATA_HEAP_START + extentBytes) {
            throw new IllegalArgumentException("a data node needs room for at least one extent of " + extentBytes
                    + " B, got " + dataBytesPerNode + " B");
        }
    }

    /** The largest file: every extent of its map. */
    public long maxFileBytes() {
        return (long) maxExtents * extentBytes;
    }

    public long inodeOffset(int inode) {
        return SUPERBLOCK_BYTES + (long) inode * INODE_BYTES;
    }

    public long mapStart() {
        return SUPERBLOCK_BYTES + (long) maxFiles * INODE_BYTES;
    }

    public long extentWordOffset(int inode, int extent) {
        return mapStart() + ((long) inode * maxExtents + extent) * Long.BYTES;
    }

    public long metaTableBytes() {
        return mapStart() + (long) maxFiles * maxExtents * Long.BYTES;
    }

    /** The data node extent {@code e} of inode {@code i} is allocated on (striped). */
    public int dataNodeOf(int inode, int extent) {
        return dataNodeStart + Math.floorMod(inode + extent, dataNodes);
    }

    static long extentWord(int node, long offset) {
        return ((long) node + 1) << EXTENT_NODE_SHIFT | offset;
    }

    static int nodeOf(long word) {
        return (int) (word >>> EXTENT_NODE_SHIFT) - 1;
    }

    static long offsetOf(long word) {
        return word & EXTENT_OFFSET_MASK;
    }

    /** The slot tag of a name: its FNV-1a hash with the low bit set (never 0). */
    static long tagOf(byte[] name) {
        long h = 0xcbf29ce484222325L;
        for (byte b : name) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return h | 1;
    }

    /** A file name as stored: UTF-8, 1 to {@value #MAX_NAME_BYTES} bytes. */
    static byte[] nameBytes(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a file needs a name");
        }
        byte[] b = name.getBytes(StandardCharsets.UTF_8);
        if (b.length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("file name '" + name + "' is " + b.length + " bytes; at most "
                    + MAX_NAME_BYTES);
        }
        return b;
    }
}
