package io.lockfabric.apps.fs;

import java.util.List;
import java.util.Objects;

/**
 * How a CitronFS is made and locked.
 *
 * @param lockManager      what protects an I/O: a registered range protocol by name ({@code citron},
 *                         {@code ss}, {@code rpc-range}, ...: one byte-range lock per file), or
 *                         {@code mutex} / {@code mutex:<protocol>} (one mutex per file, the paper's
 *                         inode-mutex baseline; {@code mutex} is {@code mutex:}{@value FsLockManager#DEFAULT_MUTEX})
 * @param lockOptions      the lock protocol's options ({@code name=value})
 * @param sharedReads      reads take their range (or the file's mutex) SHARED when the protocol has a
 *                         shared mode ({@code supportsShared(options)}: citron with {@code shared-lanes}); off: exclusive, as the paper
 * @param maxFiles         inode slots
 * @param maxExtents       extents per file (the largest file is {@code maxExtents * extentBytes})
 * @param extentBytes      bytes per extent (a power of two, at least 4 KiB)
 * @param dataNodeStart    the first memory node that holds file data
 * @param dataNodes        memory nodes holding file data from {@code dataNodeStart} (0: every node from it)
 * @param dataBytesPerNode bytes of each data node's data table
 */
public record FsOptions(String lockManager, List<String> lockOptions, boolean sharedReads, int maxFiles,
                        int maxExtents, int extentBytes, int dataNodeStart, int dataNodes, long dataBytesPerNode) {
    public static final String DEFAULT_LOCK_MANAGER = "citron";
    public static final int DEFAULT_MAX_FILES = 64;
    public static final int DEFAULT_MAX_EXTENTS = 1024;
    public static final int DEFAULT_EXTENT_BYTES = 1 << 20;
    public static final long DEFAULT_DATA_BYTES_PER_NODE = 64L << 20;
    /** Every file is a span of this many bytes of the history's range space ({@link FsGrant}). */
    public static final long FILE_SPAN = 1L << 40;
    public static final FsOptions DEFAULTS = new FsOptions(DEFAULT_LOCK_MANAGER, List.of(), false, DEFAULT_MAX_FILES,
            DEFAULT_MAX_EXTENTS, DEFAULT_EXTENT_BYTES, 0, 0, DEFAULT_DATA_BYTES_PER_NODE);

    public FsOptions {
        lockManager = lockManager == null ? DEFAULT_LOCK_MANAGER : lockManager;
        lockOptions = List.copyOf(Objects.requireNonNull(lockOptions, "lockOptions"));
        if (dataNodes < 0) {
            throw new IllegalArgumentException("data nodes must be >= 0 (0: all), got " + dataNodes);
        }
        new FsLayout(maxFiles, maxExtents, extentBytes, dataNodeStart, Math.max(1, dataNodes), dataBytesPerNode);
        if ((long) maxExtents * extentBytes > FILE_SPAN) {
            throw new IllegalArgumentException("the largest file is at most 2^40 bytes, got " + maxExtents + " x "
                    + extentBytes);
        }
    }

    /** The layout on a fabric of {@code memoryNodes} memory nodes. */
    public FsLayout layout(int memoryNodes) {
        int n = dataNodes == 0 ? memoryNodes - dataNodeStart : dataNodes;
        if (n < 1 || dataNodeStart + n > memoryNodes) {
            throw new IllegalArgumentException("data on memory nodes " + dataNodeStart + " .. " + (dataNodeStart + n - 1)
                    + ", but the fabric has " + memoryNodes);
        }
        return new FsLayout(maxFiles, maxExtents, extentBytes, dataNodeStart, n, dataBytesPerNode);
    }

    /** The memory node of the metadata (inodes, extent maps) and the lock tables: node 0. */
    public int metadataNode() {
        return 0;
    }

    public FsOptions withLockManager(String value) {
        return new FsOptions(value, lockOptions, sharedReads, maxFiles, maxExtents, extentBytes, dataNodeStart, dataNodes,
                dataBytesPerNode);
    }

    public FsOptions withLockOptions(List<String> value) {
        return new FsOptions(lockManager, value, sharedReads, maxFiles, maxExtents, extentBytes, dataNodeStart, dataNodes,
                dataBytesPerNode);
    }

    public FsOptions withSharedReads(boolean value) {
        return new FsOptions(lockManager, lockOptions, value, maxFiles, maxExtents, extentBytes, dataNodeStart, dataNodes,
                dataBytesPerNode);
    }

    public FsOptions withMaxFiles(int value) {
        return new FsOptions(lockManager, lockOptions, sharedReads, value, maxExtents, extentBytes, dataNodeStart,
                dataNodes, dataBytesPerNode);
    }

    /** Files of up to {@code extents} extents of {@code bytes} each. */
    public FsOptions withExtents(int extents, int bytes) {
        return new FsOptions(lockManager, lockOptions, sharedReads, maxFiles, extents, bytes, dataNodeStart, dataNodes,
                dataBytesPerNode);
    }

    /** Data on memory nodes {@code start} .. {@code start + count - 1} (count 0: every node from start). */
    public FsOptions withDataNodes(int start, int count) {
        return new FsOptions(lockManager, lockOptions, sharedReads, maxFiles, maxExtents, extentBytes, start, count,
                dataBytesPerNode);
    }

    public FsOptions withDataBytesPerNode(long value) {
        return new FsOptions(lockManager, lockOptions, sharedReads, maxFiles, maxExtents, extentBytes, dataNodeStart,
                dataNodes, value);
    }
}
