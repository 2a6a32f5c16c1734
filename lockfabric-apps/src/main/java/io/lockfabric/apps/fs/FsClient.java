package io.lockfabric.apps.fs;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One endpoint's client of a CitronFS (CITRON FAST'23 §4.3): a distributed in-memory file system
 * whose inodes, extent maps and file data live in memory-node tables ({@link FsLayout}), read and
 * written with one-sided verbs, and whose I/O is cacheless and protected by a byte-range lock per
 * file or a mutex per file ({@link FsLockManager}).
 *
 * <ul>
 *   <li>{@link #pwrite}: lock [offset, offset + length) EXCLUSIVE; find the extents (cached per
 *       compute node, else one READ of the extent map; a missing extent is allocated by FAA on its
 *       data node's bump allocator and installed by CAS on its map word); WRITE the bytes (a batch
 *       per data node) with a READ of the size; past the end, raise the size by CAS to the write's
 *       end; release.</li>
 *   <li>{@link #pread}: lock the range (SHARED with {@code sharedReads} on a protocol that has it,
 *       else EXCLUSIVE, as the paper); READ the size and the bytes (holes read as zeros); return
 *       what lies before the end; release.</li>
 *   <li>{@link #truncate}: lock [min(size, new), max(size, new)) EXCLUSIVE, WRITE zeros over the
 *       bytes it cuts, CAS the size (retried from the start if a write past the end moved it);
 *       then let the lock shrink: CITRON scales its tree down (§3.9.2).</li>
 * </ul>
 *
 * <p><b>Why one-sided metadata.</b> The paper's CitronFS follows Octopus: a metadata server, data on
 * the client machines. Here the inode (size) and extent map are words in a memory-node table that
 * every I/O reads or CASes with one-sided verbs, not an rpc service: cacheless I/O needs the size on
 * every read and the extent on every access, and an rpc would put the memory node's CPU, which
 * CITRON keeps off the lock path, back on the I/O path (its queueing is what the paper measures
 * against the Type-I managers). Names are claimed by CAS in the inode table (create is rare).
 *
 * <p><b>Memory nodes hold the data.</b> In the paper the three client machines store the data, so
 * a client reads its own machine's share locally and the others' over RDMA. Here every byte lives
 * on a memory node (extents striped over the data nodes, {@link FsOptions#dataNodes}) and every
 * byte moves over a memory node's link: there is no local share, and a byte-heavy workload is
 * bounded by the data nodes' links (which the simulator models with {@code mnLinkGbps}), not by the
 * clients'. Extent words never change once set (truncate zeroes rather than frees), so compute
 * nodes cache them without invalidation; the space of a file that shrinks is not reused.
 *
 * <p>Files are never removed. Belongs to one thread at a time, like its endpoint.
 */
public final class FsClient implements AutoCloseable {
    /** Bytes of zeros a truncate WRITEs per verb. */
    static final int ZERO_CHUNK = 256 * 1024;
    /** Polls of a creator's inode before the name is taken as lost. */
    private static final int CREATE_POLLS = 100_000;
    private static final long CREATE_POLL_NS = 1_000;

    /** What a caller is told about the locks an I/O takes (the bench records them). */
    public interface Observer {
        /** The I/O is about to ask for its lock. */
        default void requesting() {
        }

        /** The lock was granted. */
        void granted(FsGrant grant);

        /** The lock is about to be released. */
        void releasing(FsGrant grant);
    }

    private final Endpoint endpoint;
    private final FsLayout layout;
    private final String name;
    private final QueuePair meta;
    private final Table metaTable;
    private final Table[] data;
    private final QueuePair[] dataQp;
    private final FsLockManager.FsLocks locks;
    private final boolean sharedReads;
    private final Cache cache;
    private Observer observer;
    private boolean initialised;
    private long dataBytesRead;
    private long dataBytesWritten;
    private long verbs;

    private FsClient(Endpoint endpoint, String name, FsLayout layout, FsLockManager manager, LockOptions lockOptions,
                     boolean sharedReads) {
        this.endpoint = endpoint;
        this.name = name;
        this.layout = layout;
        this.metaTable = endpoint.openTable(metaSpec(name, layout));
        this.meta = endpoint.queuePair(metaTable.memoryNode());
        int nodes = endpoint.fabric().memoryNodes();
        this.data = new Table[nodes];
        this.dataQp = new QueuePair[nodes];
        for (int n = layout.dataNodeStart(); n < layout.dataNodeStart() + layout.dataNodes(); n++) {
            data[n] = endpoint.openTable(dataSpec(name, n, layout));
            dataQp[n] = endpoint.queuePair(n);
        }
        this.locks = manager.open(endpoint, name, layout.maxFiles(), lockOptions);
        this.sharedReads = sharedReads && manager.supportsShared(lockOptions);
        this.cache = endpoint.computeNode().computeIfAbsent(Caches.class, Caches::new).of(metaTable, layout);
    }

    /**
     * Opens (creating if needed) file system {@code name} on {@code endpoint}'s fabric: its metadata
     * table, data tables and (as files are used) lock tables. Touches no memory yet: the superblock
     * is written or checked at the first operation (so the bench may open clients on its runner thread).
     *
     * @throws IllegalArgumentException if the lock manager is unknown or its options invalid
     */
    public static FsClient open(Endpoint endpoint, String name, FsOptions options) {
        Objects.requireNonNull(options, "options");
        FsLockManager manager = FsLockManager.byName(options.lockManager());
        return open(endpoint, name, options.layout(endpoint.fabric().memoryNodes()), manager,
                LockOptions.parse(options.lockOptions()), options.sharedReads());
    }

    /** {@link #open(Endpoint, String, FsOptions)} with the layout, lock manager and options resolved. */
    public static FsClient open(Endpoint endpoint, String name, FsLayout layout, FsLockManager manager,
                                LockOptions lockOptions, boolean sharedReads) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a file system needs a name");
        }
        return new FsClient(endpoint, name, layout, manager, lockOptions, sharedReads);
    }

    /** The metadata table of file system {@code name}. */
    public static TableSpec metaSpec(String name, FsLayout layout) {
        return new TableSpec(name + "-meta", FsLayout.META_TAG, 1, layout.metaTableBytes());
    }

    /** The data table of file system {@code name} on memory node {@code node}. */
    public static TableSpec dataSpec(String name, int node, FsLayout layout) {
        return new TableSpec(name + "-data-" + node, FsLayout.DATA_TAG, 1, layout.dataBytesPerNode()).onMemoryNode(node);
    }

    /** The names of every table file system {@code name} may open (for a runner that drops them). */
    public static java.util.List<String> tableNames(String name, FsLayout layout) {
        java.util.List<String> out = new java.util.ArrayList<>();
        out.add(name + "-meta");
        for (int n = layout.dataNodeStart(); n < layout.dataNodeStart() + layout.dataNodes(); n++) {
            out.add(name + "-data-" + n);
        }
        out.add(name + "-mutex");
        for (int i = 0; i < layout.maxFiles(); i++) {
            out.add(FsLockManager.RangeLocks.tableName(name, i));
        }
        return out;
    }

    /** Opens the lock tables of inodes [0, inodes) now (the bench does, on its runner thread). */
    public void preopenLocks(int inodes) {
        if (locks instanceof FsLockManager.RangeLocks r) {
            for (int i = 0; i < Math.min(inodes, layout.maxFiles()); i++) {
                r.client(i);
            }
        }
    }

    /** Tells {@code observer} about every lock this client's I/O takes (null: nobody). */
    public void observer(Observer observer) {
        this.observer = observer;
    }

    private void initialise() {
        if (initialised) {
            return;
        }
        long magic = meta.read8(metaTable.at(0));
        if (magic == 0) {
            meta.write(metaTable.at(8), words(layout.maxFiles(), layout.maxExtents(), layout.extentBytes(),
                    layout.dataNodeStart(), layout.dataNodes(), layout.dataBytesPerNode()));
            magic = meta.cas(metaTable.at(0), 0, FsLayout.MAGIC);
            verbs += 3;
        }
        if (magic != 0 && magic != FsLayout.MAGIC) {
            throw new IllegalStateException("table " + metaTable.spec().name() + " is not a CitronFS");
        }
        if (magic == FsLayout.MAGIC) {
            ByteBuffer b = ByteBuffer.wrap(meta.read(metaTable.at(8), 48)).order(ByteOrder.LITTLE_ENDIAN);
            verbs++;
            long[] want = {layout.maxFiles(), layout.maxExtents(), layout.extentBytes(), layout.dataNodeStart(),
                    layout.dataNodes(), layout.dataBytesPerNode()};
            for (int i = 0; i < want.length; i++) {
                if (b.getLong(i * 8) != want[i]) {
                    throw new IllegalStateException("file system " + name + " exists with another shape than " + layout);
                }
            }
        }
        initialised = true;
    }

    private static byte[] words(long... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            b.putLong(v);
        }
        return b.array();
    }

    // ------------------------------------------------------------------ names

    /** The inode of file {@code fileName}, or -1 if there is none. */
    public int lookup(String fileName) {
        return find(fileName, false);
    }

    /**
     * The inode of file {@code fileName}, created empty if there is none.
     *
     * @throws FsFullException if every inode is taken
     */
    public int create(String fileName) {
        return find(fileName, true);
    }

    private int find(String fileName, boolean create) {
        byte[] nameBytes = FsLayout.nameBytes(fileName);
        Integer known = cache.inodes.get(fileName);
        if (known != null) {
            return known;
        }
        initialise();
        long tag = FsLayout.tagOf(nameBytes);
        int home = (int) Long.remainderUnsigned(tag >>> 1, layout.maxFiles());
        for (int probe = 0; probe < layout.maxFiles(); probe++) {
            int slot = (home + probe) % layout.maxFiles();
            long at = layout.inodeOffset(slot);
            long t = meta.read8(metaTable.at(at + FsLayout.TAG));
            verbs++;
            if (t == 0) {
                if (!create) {
                    return -1;
                }
                t = meta.cas(metaTable.at(at + FsLayout.TAG), 0, tag);
                verbs++;
                if (t == 0) {
                    ByteBuffer b = ByteBuffer.allocate(8 + FsLayout.MAX_NAME_BYTES).order(ByteOrder.LITTLE_ENDIAN);
                    b.putLong(nameBytes.length).put(nameBytes);
                    meta.write(metaTable.at(at + FsLayout.NAME_LENGTH), b.array());
                    meta.write8(metaTable.at(at + FsLayout.STATE), FsLayout.LIVE);
                    verbs += 2;
                    cache.inodes.put(fileName, slot);
                    return slot;
                }
            }
            if (t == tag && Arrays.equals(nameOf(slot), nameBytes)) {
                cache.inodes.put(fileName, slot);
                return slot;
            }
        }
        if (create) {
            throw new FsFullException("file system " + name + " has no free inode of its " + layout.maxFiles());
        }
        return -1;
    }

    /** The name in inode {@code slot}, once its creator has written it. */
    private byte[] nameOf(int slot) {
        long at = layout.inodeOffset(slot);
        for (int poll = 0; poll < CREATE_POLLS; poll++) {
            ByteBuffer b = ByteBuffer.wrap(meta.read(metaTable.at(at + FsLayout.STATE), 16 + FsLayout.MAX_NAME_BYTES))
                    .order(ByteOrder.LITTLE_ENDIAN);
            verbs++;
            if (b.getLong(0) == FsLayout.LIVE) {
                int n = (int) b.getLong(8);
                byte[] out = new byte[n];
                b.get(16, out);
                return out;
            }
            endpoint.clock().sleepNanos(CREATE_POLL_NS);
        }
        throw new IllegalStateException("inode " + slot + " of " + name + " was claimed but never named");
    }

    // ------------------------------------------------------------------ I/O

    private void checkIo(int inode, long offset, int length) {
        if (inode < 0 || inode >= layout.maxFiles()) {
            throw new IllegalArgumentException("no inode " + inode + " (0 .. " + (layout.maxFiles() - 1) + ")");
        }
        if (offset < 0 || length < 0 || offset + length > layout.maxFileBytes()) {
            throw new IllegalArgumentException("I/O [" + offset + ", " + (offset + (long) length) + ") outside [0, "
                    + layout.maxFileBytes() + "), the largest file");
        }
    }

    private FsGrant lock(int inode, long start, long end, Mode mode) {
        if (observer != null) {
            observer.requesting();
        }
        FsGrant g = locks.acquire(inode, start, end, mode);
        if (observer != null) {
            observer.granted(g);
        }
        return g;
    }

    private void unlock(FsGrant g) {
        if (observer != null) {
            observer.releasing(g);
        }
        locks.release(g);
    }

    /**
     * Writes {@code src[srcOff, srcOff + length)} at byte {@code offset} of file {@code inode},
     * growing the file if it ends past its size.
     *
     * @throws FsFullException if an extent is needed and its data node is full
     */
    public void pwrite(int inode, long offset, byte[] src, int srcOff, int length) {
        checkIo(inode, offset, length);
        Objects.checkFromIndexSize(srcOff, length, src.length);
        if (length == 0) {
            return;
        }
        initialise();
        long end = offset + length;
        FsGrant g = lock(inode, offset, end, Mode.EXCLUSIVE);
        try {
            long[] ext = extents(inode, offset, end, true);
            Batch[] batches = new Batch[dataQp.length];
            int metaNode = metaTable.memoryNode();
            long pos = offset;
            int e0 = (int) (offset / layout.extentBytes());
            while (pos < end) {
                int e = (int) (pos / layout.extentBytes());
                long inExtent = pos - (long) e * layout.extentBytes();
                int n = (int) Math.min(end - pos, layout.extentBytes() - inExtent);
                long w = ext[e - e0];
                int node = FsLayout.nodeOf(w);
                Batch b = batches[node] == null ? (batches[node] = new Batch()) : batches[node];
                b.write(data[node].at(FsLayout.offsetOf(w) + inExtent),
                        Arrays.copyOfRange(src, srcOff + (int) (pos - offset), srcOff + (int) (pos - offset) + n));
                pos += n;
            }
            Batch m = batches[metaNode] == null ? (batches[metaNode] = new Batch()) : batches[metaNode];
            int sizeAt = m.read8(metaTable.at(layout.inodeOffset(inode) + FsLayout.SIZE));
            for (int node = 0; node < batches.length; node++) {
                if (batches[node] != null) {
                    (node == metaNode ? meta : dataQp[node]).execute(batches[node]);
                    verbs += batches[node].size();
                }
            }
            dataBytesWritten += length;
            long size = m.longResult(sizeAt);
            while (size < end) {
                long seen = meta.cas(metaTable.at(layout.inodeOffset(inode) + FsLayout.SIZE), size, end);
                verbs++;
                if (seen == size) {
                    break;
                }
                size = seen;
            }
        } finally {
            unlock(g);
        }
    }

    /**
     * Reads up to {@code length} bytes at byte {@code offset} of file {@code inode} into
     * {@code dst[dstOff, ...)}; returns how many (0 at or past the end). Bytes never written read as zeros.
     */
    public int pread(int inode, long offset, byte[] dst, int dstOff, int length) {
        checkIo(inode, offset, length);
        Objects.checkFromIndexSize(dstOff, length, dst.length);
        if (length == 0) {
            return 0;
        }
        initialise();
        long end = offset + length;
        FsGrant g = lock(inode, offset, end, readMode());
        try {
            long[] ext = extents(inode, offset, end, false);
            Batch[] batches = new Batch[dataQp.length];
            int metaNode = metaTable.memoryNode();
            int pieces = 0;
            int[] pieceAt = new int[ext.length];
            int[] pieceNode = new int[ext.length];
            long pos = offset;
            int e0 = (int) (offset / layout.extentBytes());
            while (pos < end) {
                int e = (int) (pos / layout.extentBytes());
                long inExtent = pos - (long) e * layout.extentBytes();
                int n = (int) Math.min(end - pos, layout.extentBytes() - inExtent);
                long w = ext[e - e0];
                if (w == 0) {
                    Arrays.fill(dst, dstOff + (int) (pos - offset), dstOff + (int) (pos - offset) + n, (byte) 0);
                    pieceNode[pieces] = -1;
                } else {
                    int node = FsLayout.nodeOf(w);
                    Batch b = batches[node] == null ? (batches[node] = new Batch()) : batches[node];
                    pieceAt[pieces] = b.read(data[node].at(FsLayout.offsetOf(w) + inExtent), n);
                    pieceNode[pieces] = node;
                }
                pieces++;
                pos += n;
            }
            Batch m = batches[metaNode] == null ? (batches[metaNode] = new Batch()) : batches[metaNode];
            int sizeAt = m.read8(metaTable.at(layout.inodeOffset(inode) + FsLayout.SIZE));
            for (int node = 0; node < batches.length; node++) {
                if (batches[node] != null) {
                    (node == metaNode ? meta : dataQp[node]).execute(batches[node]);
                    verbs += batches[node].size();
                }
            }
            pos = offset;
            for (int p = 0; p < pieces; p++) {
                if (pieceNode[p] >= 0) {
                    byte[] got = batches[pieceNode[p]].bytesResult(pieceAt[p]);
                    System.arraycopy(got, 0, dst, dstOff + (int) (pos - offset), got.length);
                    pos += got.length;
                } else {
                    long e = pos / layout.extentBytes();
                    pos = Math.min(end, (e + 1) * layout.extentBytes());
                }
            }
            long size = m.longResult(sizeAt);
            int n = (int) Math.max(0, Math.min(length, size - offset));
            dataBytesRead += n;
            return n;
        } finally {
            unlock(g);
        }
    }

    /** The extent words of [start, end) of {@code inode}, allocating the missing ones if {@code allocate}. */
    private long[] extents(int inode, long start, long end, boolean allocate) {
        int e0 = (int) (start / layout.extentBytes());
        int e1 = (int) ((end - 1) / layout.extentBytes());
        long[] out = new long[e1 - e0 + 1];
        AtomicLongArray known = cache.extents;
        int base = inode * layout.maxExtents();
        boolean missing = false;
        for (int e = e0; e <= e1; e++) {
            out[e - e0] = known.get(base + e);
            missing |= out[e - e0] == 0;
        }
        if (!missing) {
            return out;
        }
        ByteBuffer words = ByteBuffer.wrap(meta.read(metaTable.at(layout.extentWordOffset(inode, e0)), out.length * 8))
                .order(ByteOrder.LITTLE_ENDIAN);
        verbs++;
        for (int e = e0; e <= e1; e++) {
            long w = words.getLong((e - e0) * 8);
            if (w == FsLayout.CLAIMED) {
                w = allocate ? allocate(inode, e) : 0;
            } else if (w == 0 && allocate) {
                w = allocate(inode, e);
            }
            if (w != 0) {
                known.set(base + e, w);
            }
            out[e - e0] = w;
        }
        return out;
    }

    /**
     * Allocates extent {@code extent} of {@code inode}: CAS its map word from 0 to
     * {@link FsLayout#CLAIMED} (one allocator per extent, so no extent is lost to a race), FAA on its
     * data node's allocator, WRITE the extent word. A writer that finds the word claimed polls until
     * it is written; a reader takes a claimed extent for a hole (nothing of its range is written yet).
     */
    private long allocate(int inode, int extent) {
        long wordAddress = metaTable.at(layout.extentWordOffset(inode, extent));
        long old = meta.cas(wordAddress, 0, FsLayout.CLAIMED);
        verbs++;
        if (old == 0) {
            int node = layout.dataNodeOf(inode, extent);
            long top = dataQp[node].faa(data[node].at(FsLayout.DATA_HEAP_TOP), layout.extentBytes());
            verbs++;
            if (FsLayout.DATA_HEAP_START + top + layout.extentBytes() > layout.dataBytesPerNode()) {
                meta.write8(wordAddress, 0);
                throw new FsFullException("file system " + name + ": data node " + node + " is full ("
                        + layout.dataBytesPerNode() + " B)");
            }
            long w = FsLayout.extentWord(node, FsLayout.DATA_HEAP_START + top);
            meta.write8(wordAddress, w);
            verbs++;
            return w;
        }
        for (int poll = 0; old == FsLayout.CLAIMED; poll++) {
            if (poll == CREATE_POLLS) {
                throw new IllegalStateException("extent " + extent + " of inode " + inode + " of " + name
                        + " was claimed but never allocated");
            }
            endpoint.clock().sleepNanos(CREATE_POLL_NS);
            old = meta.read8(wordAddress);
            verbs++;
        }
        return old;
    }

    /**
     * Allocates every extent of [0, size) of file {@code inode} and raises its size to at least
     * {@code size} (posix_fallocate): a file's preallocation, after which every read of it READs
     * memory. Idempotent; takes no lock (it changes no byte: new extents are zero).
     */
    public void fallocate(int inode, long size) {
        checkIo(inode, 0, 0);
        if (size <= 0 || size > layout.maxFileBytes()) {
            throw new IllegalArgumentException("fallocate needs a size in (0, " + layout.maxFileBytes() + "], got " + size);
        }
        initialise();
        extents(inode, 0, size, true);
        long sizeAddress = metaTable.at(layout.inodeOffset(inode) + FsLayout.SIZE);
        long seen = meta.read8(sizeAddress);
        verbs++;
        while (seen < size) {
            long old = meta.cas(sizeAddress, seen, size);
            verbs++;
            if (old == seen) {
                break;
            }
            seen = old;
        }
    }

    /**
     * Takes and releases the lock an I/O of [start, end) of file {@code inode} would take, moving no
     * data (the lock-only replay of a trace, as the paper's IO500 scale-up experiment).
     */
    public void lockOnly(int inode, long start, long end, Mode mode) {
        checkIo(inode, 0, 0);
        if (start < 0 || end <= start || end > FsOptions.FILE_SPAN) {
            throw new IllegalArgumentException("a lock of [" + start + ", " + end + ") outside [0, 2^40)");
        }
        FsGrant g = lock(inode, start, end, mode);
        unlock(g);
    }

    /** The mode reads lock in: SHARED with shared reads on a protocol that has it, else EXCLUSIVE. */
    public Mode readMode() {
        return sharedReads ? Mode.SHARED : Mode.EXCLUSIVE;
    }

    /** The size of file {@code inode}, in bytes (one READ, no lock). */
    public long size(int inode) {
        checkIo(inode, 0, 0);
        initialise();
        verbs++;
        return meta.read8(metaTable.at(layout.inodeOffset(inode) + FsLayout.SIZE));
    }

    /**
     * Sets the size of file {@code inode} to {@code size}: bytes past it are cut (zeroed, so that a
     * later growth reads zeros there), or the file grows with zeros. With CITRON the file's lock tree
     * then scales down to the smallest earlier size that covers the file.
     */
    public void truncate(int inode, long size) {
        checkIo(inode, 0, 0);
        if (size < 0 || size > layout.maxFileBytes()) {
            throw new IllegalArgumentException("a file's size is in [0, " + layout.maxFileBytes() + "], got " + size);
        }
        initialise();
        long sizeAddress = metaTable.at(layout.inodeOffset(inode) + FsLayout.SIZE);
        while (true) {
            long old = meta.read8(sizeAddress);
            verbs++;
            if (old == size) {
                return;
            }
            FsGrant g = lock(inode, Math.min(old, size), Math.max(old, size), Mode.EXCLUSIVE);
            boolean done;
            try {
                if (size < old) {
                    zero(inode, size, old);
                }
                done = meta.cas(sizeAddress, old, size) == old;
                verbs++;
            } finally {
                unlock(g);
            }
            if (done) {
                if (size < old) {
                    locks.shrunk(inode, size);
                }
                return;
            }
        }
    }

    /** WRITEs zeros over the allocated bytes of [from, to) of {@code inode} (its lock held). */
    private void zero(int inode, long from, long to) {
        long[] ext = extents(inode, from, to, false);
        int e0 = (int) (from / layout.extentBytes());
        long pos = from;
        while (pos < to) {
            int e = (int) (pos / layout.extentBytes());
            long inExtent = pos - (long) e * layout.extentBytes();
            int n = (int) Math.min(Math.min(to - pos, layout.extentBytes() - inExtent), ZERO_CHUNK);
            long w = ext[e - e0];
            if (w != 0) {
                int node = FsLayout.nodeOf(w);
                dataQp[node].write(data[node].at(FsLayout.offsetOf(w) + inExtent), new byte[n]);
                verbs++;
            }
            pos += n;
        }
    }

    // ------------------------------------------------------------------ what it did

    /** File bytes this client read (within files' sizes) and wrote so far. */
    public long dataBytesRead() {
        return dataBytesRead;
    }

    public long dataBytesWritten() {
        return dataBytesWritten;
    }

    /** Verbs this client issued on metadata and data (not the locks'). */
    public long verbs() {
        return verbs;
    }

    /** What the lock clients counted so far. */
    public LockStats lockStats() {
        return locks.stats();
    }

    public FsLayout layout() {
        return layout;
    }

    /** Units the lock tree of file {@code inode} covers now (CITRON), or -1 for another lock manager. */
    long lockUnits(int inode) {
        return locks instanceof FsLockManager.RangeLocks r
                && r.client(inode) instanceof io.lockfabric.lock.citron.CitronClient c ? c.units() : -1;
    }

    public Endpoint endpoint() {
        return endpoint;
    }

    /** Closes the lock clients. */
    @Override
    public void close() {
        locks.close();
    }

    /** What a compute node caches of one file system: inodes by name, extent words (never change once set). */
    static final class Cache {
        final ConcurrentHashMap<String, Integer> inodes = new ConcurrentHashMap<>();
        final AtomicLongArray extents;

        Cache(FsLayout layout) {
            extents = new AtomicLongArray(layout.maxFiles() * layout.maxExtents());
        }
    }

    /** A compute node's caches, one per file system (metadata table). */
    static final class Caches {
        private final ConcurrentHashMap<String, Cache> byTable = new ConcurrentHashMap<>();

        Cache of(Table meta, FsLayout layout) {
            return byTable.computeIfAbsent(meta.memoryNode() + "/" + meta.spec().name() + "@" + meta.address(),
                    k -> new Cache(layout));
        }
    }
}
