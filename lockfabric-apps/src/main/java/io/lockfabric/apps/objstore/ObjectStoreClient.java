package io.lockfabric.apps.objstore;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.Mode;
import io.lockfabric.protocols.LockProtocols;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One endpoint's client of an object store (DecLock §6, the object store of Fig. 17): the data
 * table of an {@link ObjectStoreLayout} on the memory node, read and written with one-sided verbs,
 * and a {@link LockClient} of the named protocol with one reader-writer lock per slot (lock id =
 * slot), on the same endpoint.
 *
 * <ul>
 *   <li>{@link #get}: find the key's slot, take its lock SHARED (EXCLUSIVE on a protocol without
 *       shared mode, such as {@code cas}), READ the value's block (header and bytes in one READ when
 *       the block's place and the value's length are known, as they are after the first access),
 *       release, and check the value is whole.</li>
 *   <li>{@link #set}: find or claim the key's slot (CAS on its tag), take its lock EXCLUSIVE, READ
 *       the slot's block word (another compute node may have moved the block), WRITE header and
 *       bytes in one WRITE (a bigger value first gets a new block, FAA on the heap top, and the old
 *       block a MOVED header), release.</li>
 * </ul>
 *
 * <p>The index's tags and the blocks' places are cached per compute node ({@link Endpoint#computeNode()}):
 * a tag never changes once claimed, and a block only moves under its slot's exclusive lock, leaving
 * MOVED behind for readers that cached it. The {@code *Held} methods are the steps for a caller that
 * takes the lock itself (the bench, which records its grants).
 *
 * <p>Belongs to one thread at a time, like its endpoint.
 */
public final class ObjectStoreClient implements AutoCloseable {
    /** Slots read at once while probing the index. */
    static final int PROBE_RUN = 4;
    /** Bytes a get reads beyond the header when it knows nothing of the value's length yet. */
    public static final int DEFAULT_READ_HINT = 1024 - ObjectStoreLayout.HEADER_BYTES;
    private static final int CAPACITY_SHIFT = 26;
    private static final long CAPACITY_MASK = (1L << CAPACITY_SHIFT) - 1;

    private final Endpoint endpoint;
    private final QueuePair qp;
    private final Table data;
    private final LockClient locks;
    private final ObjectStoreLayout layout;
    private final Mode readMode;
    private final Directory directory;
    private final int writer;
    private long sequence;
    private boolean initialised;
    private long dataReads;
    private long dataWrites;
    private long dataAtomics;

    /**
     * A client on an opened data table and lock client.
     *
     * @param sharedReads whether gets take the lock shared (the protocol has a shared mode)
     */
    public ObjectStoreClient(Endpoint endpoint, Table data, LockClient locks, ObjectStoreLayout layout,
                             boolean sharedReads) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.data = Objects.requireNonNull(data, "data");
        this.locks = Objects.requireNonNull(locks, "locks");
        this.layout = Objects.requireNonNull(layout, "layout");
        if (locks.locks() != layout.objects()) {
            throw new IllegalArgumentException("the lock table has " + locks.locks() + " locks, the store "
                    + layout.objects() + " objects");
        }
        this.qp = endpoint.queuePair(data.memoryNode());
        this.readMode = sharedReads ? Mode.SHARED : Mode.EXCLUSIVE;
        this.writer = endpoint.ordinal();
        this.directory = endpoint.computeNode().computeIfAbsent(Directories.class, Directories::new)
                .of(data, layout);
    }

    /**
     * Opens (creating if needed) the store {@code name} on {@code endpoint}'s fabric: its data table
     * {@code name} and its lock table {@code name + "-locks"} of {@code protocol}.
     *
     * @throws IllegalArgumentException   if the protocol is unknown or its options are invalid
     * @throws IllegalStateException      if the store exists with another shape
     */
    public static ObjectStoreClient open(Endpoint endpoint, String name, String protocol, ObjectStoreOptions options) {
        LockProtocol p = LockProtocols.byName(protocol);
        ObjectStoreClient c = open(endpoint, name, lockTableName(name), p, LockOptions.parse(options.lockOptions()),
                options.layout());
        c.initialise();
        return c;
    }

    /**
     * Opens (creating if needed) a store's data table {@code dataTable} and lock table
     * {@code lockTable} of {@code protocol}, without touching the store's memory yet (the
     * superblock is written or checked at the first operation): what the bench does on the
     * runner's thread, before its clients run.
     */
    public static ObjectStoreClient open(Endpoint endpoint, String dataTable, String lockTable, LockProtocol protocol,
                                         LockOptions lockOptions, ObjectStoreLayout layout) {
        Table data = endpoint.openTable(dataTableSpec(dataTable, layout));
        LockClient locks = protocol.open(endpoint, lockTable, layout.objects(), lockOptions);
        try {
            return new ObjectStoreClient(endpoint, data, locks, layout, protocol.supportsShared());
        } catch (RuntimeException e) {
            locks.close();
            throw e;
        }
    }

    /** The data table of store {@code name}. */
    public static TableSpec dataTableSpec(String name, ObjectStoreLayout layout) {
        return new TableSpec(name, ObjectStoreLayout.TABLE_TAG, 1, layout.tableBytes());
    }

    /** The lock table of store {@code name}. */
    public static String lockTableName(String name) {
        return name + "-locks";
    }

    /** Writes the superblock if nobody has, or checks it against this client's layout (once). */
    private void initialise() {
        if (!initialised) {
            checkSuperblock();
            initialised = true;
        }
    }

    private void checkSuperblock() {
        long magic = read8(ObjectStoreLayout.MAGIC_OFFSET);
        if (magic == 0) {
            qp.write(data.at(ObjectStoreLayout.OBJECTS_OFFSET), words(layout.objects(), layout.maxValueBytes(),
                    layout.heapBytes()));
            dataWrites++;
            dataAtomics++;
            magic = qp.cas(data.at(ObjectStoreLayout.MAGIC_OFFSET), 0, ObjectStoreLayout.MAGIC);
            if (magic == 0) {
                return;
            }
        }
        if (magic != ObjectStoreLayout.MAGIC) {
            throw new IllegalStateException("table " + data.spec().name() + " is not an object store");
        }
        byte[] sb = qp.read(data.at(ObjectStoreLayout.OBJECTS_OFFSET), 24);
        dataReads++;
        ByteBuffer b = ByteBuffer.wrap(sb).order(ByteOrder.LITTLE_ENDIAN);
        long objects = b.getLong(0);
        long max = b.getLong(8);
        long heap = b.getLong(16);
        if (objects != layout.objects() || max != layout.maxValueBytes() || heap != layout.heapBytes()) {
            throw new IllegalStateException("object store " + data.spec().name() + " exists with " + objects
                    + " objects, values up to " + max + " B and a heap of " + heap + " B, not " + layout);
        }
    }

    private static byte[] words(long... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            b.putLong(v);
        }
        return b.array();
    }

    private long read8(long offset) {
        dataReads++;
        return qp.read8(data.at(offset));
    }

    /** The value of {@code key}, or null if it was never set. */
    public byte[] get(long key) {
        return get(key, 0);
    }

    /**
     * The value of {@code key}, or null if it was never set; {@code sizeHint} is the caller's guess of
     * its length (0: what this compute node saw last), so that one READ gets it all.
     *
     * @throws TornValueException if the value read was not whole (a lock that failed)
     */
    public byte[] get(long key, int sizeHint) {
        long slot = slotOf(key, false);
        if (slot < 0) {
            return null;
        }
        StoredValue v;
        Grant g = locks.acquire(slot, readMode);
        try {
            v = readHeld(slot, key, sizeHint);
        } finally {
            locks.release(g);
        }
        if (v == null) {
            return null;
        }
        if (!v.intact()) {
            throw new TornValueException(key, v.problem());
        }
        return v.bytes();
    }

    /** Sets {@code key}'s value to {@code value}. */
    public void set(long key, byte[] value) {
        Objects.requireNonNull(value, "value");
        long slot = slotOf(key, true);
        Grant g = locks.acquire(slot, Mode.EXCLUSIVE);
        try {
            writeHeld(slot, key, value, value.length);
        } finally {
            locks.release(g);
        }
    }

    /** The lock mode gets take: shared, or exclusive on a protocol without shared mode. */
    public Mode readMode() {
        return readMode;
    }

    /** The lock client (lock id = slot). */
    public LockClient locks() {
        return locks;
    }

    public ObjectStoreLayout layout() {
        return layout;
    }

    /**
     * The slot of {@code key}: found in the index (probing from its home slot), or with
     * {@code create} claimed (CAS on an empty slot's tag); -1 if absent and not {@code create}.
     *
     * @throws ObjectStoreFullException if the key is new and every slot is taken
     */
    public long slotOf(long key, boolean create) {
        initialise();
        long tag = ObjectStoreLayout.tag(key);
        long objects = layout.objects();
        long home = layout.home(key);
        for (long i = 0; i < objects; i++) {
            long slot = home + i < objects ? home + i : home + i - objects;
            long cached = directory.tags.get((int) slot);
            if (cached == tag) {
                return slot;
            }
            if (cached != 0) {
                continue;
            }
            refreshTags(slot);
            cached = directory.tags.get((int) slot);
            if (cached == tag) {
                return slot;
            }
            if (cached != 0) {
                continue;
            }
            if (!create) {
                return -1;
            }
            dataAtomics++;
            long was = qp.cas(data.at(layout.slotOffset(slot) + ObjectStoreLayout.SLOT_TAG), 0, tag);
            directory.tags.set((int) slot, was == 0 ? tag : was);
            if (was == 0 || was == tag) {
                return slot;
            }
        }
        throw new ObjectStoreFullException("object store " + data.spec().name() + " is full: all " + objects
                + " slots are taken");
    }

    /** Reads the tags of up to {@link #PROBE_RUN} slots from {@code slot} into the directory. */
    private void refreshTags(long slot) {
        int n = (int) Math.min(PROBE_RUN, layout.objects() - slot);
        byte[] run = qp.read(data.at(layout.slotOffset(slot)), n * ObjectStoreLayout.SLOT_BYTES);
        dataReads++;
        ByteBuffer b = ByteBuffer.wrap(run).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            long tag = b.getLong(i * ObjectStoreLayout.SLOT_BYTES + ObjectStoreLayout.SLOT_TAG);
            if (tag != 0) {
                directory.tags.set((int) (slot + i), tag);
            }
        }
    }

    /** The slot's block word pair, packed, as the memory node has it now; 0 if it has no block. */
    private long readBlock(long slot) {
        byte[] w = qp.read(data.at(layout.slotOffset(slot) + ObjectStoreLayout.SLOT_BLOCK), 16);
        dataReads++;
        ByteBuffer b = ByteBuffer.wrap(w).order(ByteOrder.LITTLE_ENDIAN);
        long offset = b.getLong(0);
        long packed = offset == 0 ? 0 : pack(offset, b.getLong(8));
        directory.blocks.set((int) slot, packed);
        return packed;
    }

    private static long pack(long offset, long capacity) {
        return (offset / ObjectStoreLayout.BLOCK_ALIGN) << CAPACITY_SHIFT | (capacity / ObjectStoreLayout.BLOCK_ALIGN);
    }

    private static long offsetOf(long packed) {
        return (packed >>> CAPACITY_SHIFT) * ObjectStoreLayout.BLOCK_ALIGN;
    }

    private static long capacityOf(long packed) {
        return (packed & CAPACITY_MASK) * ObjectStoreLayout.BLOCK_ALIGN;
    }

    /**
     * Reads the value in {@code slot} (the slot of {@code key}), its lock held in {@link #readMode()}
     * or exclusive: null if it has none yet; otherwise the value, {@link StoredValue#intact()} false
     * if it was torn.
     *
     * @param sizeHint the caller's guess of the value's length (0: what this compute node saw last)
     */
    public StoredValue readHeld(long slot, long key, int sizeHint) {
        initialise();
        long tag = ObjectStoreLayout.tag(key);
        for (int attempt = 0; ; attempt++) {
            long packed = directory.blocks.get((int) slot);
            if (packed == 0 || attempt > 0) {
                packed = readBlock(slot);
                if (packed == 0) {
                    return null;
                }
            }
            long offset = offsetOf(packed);
            long capacity = capacityOf(packed);
            int known = directory.lengths.get((int) slot);
            int hint = sizeHint > 0 ? sizeHint : known > 0 ? known : DEFAULT_READ_HINT;
            int want = (int) Math.min(capacity, (long) ObjectStoreLayout.HEADER_BYTES + hint);
            byte[] block = qp.read(data.at(offset), want);
            dataReads++;
            ObjectStoreLayout.Header h = ObjectStoreLayout.header(block);
            if (h.moved() && ObjectStoreLayout.intact(block, h)) {
                if (attempt >= 2) {
                    return torn(key, h, block, "block at offset " + offset + " still reads MOVED after the slot was read again");
                }
                continue; // another compute node gave the value a bigger block: look the slot up again
            }
            int length = h.length();
            if (length >= 0 && ObjectStoreLayout.HEADER_BYTES + (long) length > want
                    && ObjectStoreLayout.HEADER_BYTES + (long) length <= capacity) {
                byte[] whole = new byte[ObjectStoreLayout.HEADER_BYTES + length];
                System.arraycopy(block, 0, whole, 0, want);
                byte[] rest = qp.read(data.at(offset + want), whole.length - want);
                dataReads++;
                System.arraycopy(rest, 0, whole, want, rest.length);
                block = whole;
            }
            if (h.empty()) {
                return torn(key, h, block, "the block reads empty, yet the slot points to it");
            }
            if (h.tag() != tag) {
                return torn(key, h, block, "the block's header names key " + (h.tag() - 1));
            }
            if (!ObjectStoreLayout.intact(block, h)) {
                return torn(key, h, block, "check word " + Long.toHexString(h.check()) + " does not match header "
                        + "(writer " + h.writer() + ", sequence " + h.sequence() + ", length " + length
                        + ") and bytes");
            }
            directory.lengths.set((int) slot, length);
            byte[] bytes = new byte[length];
            System.arraycopy(block, ObjectStoreLayout.HEADER_BYTES, bytes, 0, length);
            return new StoredValue(key, h.writer(), h.sequence(), bytes, true, "");
        }
    }

    private static StoredValue torn(long key, ObjectStoreLayout.Header h, byte[] block, String problem) {
        int n = Math.max(0, block.length - ObjectStoreLayout.HEADER_BYTES);
        byte[] bytes = new byte[n];
        System.arraycopy(block, ObjectStoreLayout.HEADER_BYTES, bytes, 0, n);
        return new StoredValue(key, h.writer(), h.sequence(), bytes, false, problem);
    }

    /**
     * Writes {@code value[0, length)} as the value of {@code key} in {@code slot}, its lock held
     * exclusive; returns the sequence number the set got.
     *
     * @throws IllegalArgumentException  if the value is longer than the store's largest
     * @throws ObjectStoreFullException  if it needs a new block and the heap is full
     */
    public long writeHeld(long slot, long key, byte[] value, int length) {
        if (length < 0 || length > layout.maxValueBytes() || length > value.length) {
            throw new IllegalArgumentException("a value is 0 to " + layout.maxValueBytes() + " bytes, got " + length);
        }
        initialise();
        long tag = ObjectStoreLayout.tag(key);
        long seq = ++sequence;
        byte[] payload = ObjectStoreLayout.encode(tag, writer, seq, value, length);
        long packed = readBlock(slot); // under the exclusive lock: the place no one can move now
        long need = ObjectStoreLayout.blockBytes(length);
        if (packed == 0 || capacityOf(packed) < need) {
            long old = packed == 0 ? 0 : offsetOf(packed);
            long capacity = packed == 0 ? need : Math.min(Math.max(need, ObjectStoreLayout.blockBytes(
                    (int) Math.min(layout.maxValueBytes(), capacityOf(packed) * 3 / 2))),
                    ObjectStoreLayout.blockBytes(layout.maxValueBytes()));
            capacity = Math.max(capacity, need);
            dataAtomics++;
            long top = qp.faa(data.at(ObjectStoreLayout.HEAP_TOP_OFFSET), capacity);
            if (top + capacity > layout.heapBytes()) {
                throw new ObjectStoreFullException("object store " + data.spec().name() + " is full: its heap of "
                        + layout.heapBytes() + " B has no room for a block of " + capacity + " B");
            }
            long offset = layout.heapStart() + top;
            qp.write(data.at(offset), payload);
            qp.write(data.at(layout.slotOffset(slot) + ObjectStoreLayout.SLOT_BLOCK), words(offset, capacity));
            dataWrites += 2;
            if (old != 0) {
                qp.write(data.at(old), ObjectStoreLayout.encode(tag, writer, seq, null, ObjectStoreLayout.MOVED));
                dataWrites++;
            }
            directory.blocks.set((int) slot, pack(offset, capacity));
        } else {
            qp.write(data.at(offsetOf(packed)), payload);
            dataWrites++;
        }
        directory.lengths.set((int) slot, length);
        return seq;
    }

    /** Bytes a bulk load writes per WRITE. */
    static final int LOAD_CHUNK_BYTES = 256 * 1024; // under the tcp fabric's largest verb (1 MiB less its frame)

    /**
     * Loads keys [0, keys) into a store nobody has used yet, with bulk WRITEs and no locks: a
     * store's initial population, as a memcpy at startup. Key k gets a value of
     * {@code sizeOf.applyAsInt(k)} bytes, the first bytes of {@code filler}'s (repeated) with its
     * key in the first 8. The index and the heap are built here exactly as sets would build them
     * (linear probing from each key's home slot, blocks in key order from the heap's start), written
     * in chunks of {@value #LOAD_CHUNK_BYTES} bytes, then published: heapTop, then the loaded word.
     * Returns false (and writes nothing) if another client loads or has loaded the store, or it has
     * been used; {@link #awaitLoaded} waits for the loader.
     *
     * @throws ObjectStoreFullException if the keys do not fit the index or the heap
     */
    public boolean bulkLoad(long keys, java.util.function.LongToIntFunction sizeOf, byte[] filler) {
        initialise();
        if (keys < 0 || keys > layout.objects()) {
            throw new ObjectStoreFullException("a bulk load of " + keys + " keys does not fit " + layout.objects() + " slots");
        }
        dataAtomics++;
        if (qp.cas(data.at(ObjectStoreLayout.LOADED_OFFSET), 0, ObjectStoreLayout.LOADING) != 0) {
            return false;
        }
        dataReads++;
        if (qp.read8(data.at(ObjectStoreLayout.HEAP_TOP_OFFSET)) != 0) {
            throw new IllegalStateException("object store " + data.spec().name() + " was used before its bulk load");
        }
        int n = (int) layout.objects();
        long[] slotTag = new long[n];
        long[] slotBlock = new long[n];
        long[] slotCapacity = new long[n];
        long[] blockOf = new long[(int) keys];
        long top = 0;
        for (long k = 0; k < keys; k++) {
            long slot = layout.home(k);
            while (slotTag[(int) slot] != 0) {
                slot = slot + 1 == n ? 0 : slot + 1;
            }
            long capacity = ObjectStoreLayout.blockBytes(Math.min(layout.maxValueBytes(), sizeOf.applyAsInt(k)));
            if (top + capacity > layout.heapBytes()) {
                throw new ObjectStoreFullException("object store " + data.spec().name() + ": a bulk load of " + keys
                        + " keys needs more than its heap of " + layout.heapBytes() + " B");
            }
            slotTag[(int) slot] = ObjectStoreLayout.tag(k);
            slotBlock[(int) slot] = layout.heapStart() + top;
            slotCapacity[(int) slot] = capacity;
            blockOf[(int) k] = top;
            top += capacity;
        }
        ByteBuffer index = ByteBuffer.allocate(LOAD_CHUNK_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        long indexStart = layout.slotOffset(0);
        for (int s = 0; s < n; s++) {
            if (index.remaining() < ObjectStoreLayout.SLOT_BYTES) {
                indexStart = flush(index, indexStart);
            }
            index.putLong(slotTag[s]).putLong(slotBlock[s]).putLong(slotCapacity[s]).putLong(0);
        }
        flush(index, indexStart);
        ByteBuffer heap = ByteBuffer.allocate(LOAD_CHUNK_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        long heapAt = layout.heapStart();
        byte[] value = new byte[layout.maxValueBytes()];
        for (int i = 0; i < value.length; i++) {
            value[i] = filler.length == 0 ? 0 : filler[i % filler.length];
        }
        for (long k = 0; k < keys; k++) {
            int length = Math.min(layout.maxValueBytes(), sizeOf.applyAsInt(k));
            long capacity = ObjectStoreLayout.blockBytes(length);
            if (length >= Long.BYTES) {
                ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).putLong(0, k);
            }
            byte[] block = ObjectStoreLayout.encode(ObjectStoreLayout.tag(k), writer, 0, value, length);
            if (heap.remaining() < capacity) {
                heapAt = flush(heap, heapAt);
            }
            if (heap.remaining() < capacity) { // a block bigger than a chunk goes alone
                qp.write(data.at(heapAt), block);
                dataWrites++;
                heapAt += capacity;
                continue;
            }
            int at = heap.position();
            heap.put(block);
            heap.position(at + (int) capacity);
        }
        flush(heap, heapAt);
        dataAtomics += 2;
        qp.faa(data.at(ObjectStoreLayout.HEAP_TOP_OFFSET), top);
        qp.write8(data.at(ObjectStoreLayout.LOADED_OFFSET), ObjectStoreLayout.LOADED);
        return true;
    }

    /** Writes what {@code buffer} holds at {@code offset}; the offset after it. */
    private long flush(ByteBuffer buffer, long offset) {
        if (buffer.position() == 0) {
            return offset;
        }
        byte[] bytes = new byte[buffer.position()];
        buffer.flip();
        buffer.get(bytes);
        buffer.clear();
        qp.write(data.at(offset), bytes);
        dataWrites++;
        return offset + bytes.length;
    }

    /** Whether a bulk load of this store is done. */
    public boolean loaded() {
        initialise();
        dataReads++;
        return qp.read8(data.at(ObjectStoreLayout.LOADED_OFFSET)) == ObjectStoreLayout.LOADED;
    }

    /** Waits (polling every {@code pollNs} on the endpoint's clock) until a bulk load of this store is done. */
    public void awaitLoaded(long pollNs) {
        while (!loaded()) {
            endpoint.clock().sleepNanos(pollNs);
        }
    }

    /** READs this client issued on the data table so far (index, slots, values). */
    public long dataReads() {
        return dataReads;
    }

    /** WRITEs this client issued on the data table so far. */
    public long dataWrites() {
        return dataWrites;
    }

    /** CAS and FAA this client issued on the data table so far (claiming slots, allocating blocks). */
    public long dataAtomics() {
        return dataAtomics;
    }

    /** The endpoint this client runs on. */
    public Endpoint endpoint() {
        return endpoint;
    }

    /** Closes the lock client. */
    @Override
    public void close() {
        locks.close();
    }

    /** What a compute node caches of one store's index: tags, block places, value lengths per slot. */
    static final class Directory {
        final AtomicLongArray tags;
        final AtomicLongArray blocks;
        final AtomicIntegerArray lengths;

        Directory(int objects) {
            tags = new AtomicLongArray(objects);
            blocks = new AtomicLongArray(objects);
            lengths = new AtomicIntegerArray(objects);
        }
    }

    /** A compute node's directories, one per store (data table). */
    static final class Directories {
        private final ConcurrentHashMap<String, Directory> byTable = new ConcurrentHashMap<>();

        Directory of(Table data, ObjectStoreLayout layout) {
            String key = data.memoryNode() + "/" + data.spec().name() + "@" + data.address();
            return byTable.computeIfAbsent(key, k -> new Directory((int) layout.objects()));
        }
    }
}
