package io.lockfabric.shm;

import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.RemoteAccessException;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableDroppedException;
import io.lockfabric.fabric.TableInUseException;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.memory.MemoryRegion;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One process's mapping of a shared-memory fabric's file ({@link ShmLayout}): the header, the table
 * directory and the regions of the tables, the rpc blobs, the endpoint slots. The first process to
 * open a path creates and initialises the file; every later one finds it by its magic. Creating the
 * file and every change to the directory (opening, creating and dropping tables, taking and giving
 * back blobs) happen under an exclusive OS lock on the file's first byte (which the OS drops if its
 * holder dies) and, in this JVM, under a monitor (the OS lock is per process).
 *
 * <p>Heap memory is free exactly when no directory entry (ready, or dropped but still open) and no
 * blob claims it; allocation is first fit over those extents. Each change is ordered so that a
 * process killed after any store leaves a state the next lock holder uses as it is or finishes
 * ({@link #sweep}): a table is published by its state store, after everything else; a drop clears
 * the live id (verbs fail from then on) before it marks the entry dropped, and frees it (state free)
 * only once no open endpoint of a live process has it open; a blob is taken by its owner store,
 * last, and freed by clearing it. Nothing is kept outside the entries, so there is no free list to
 * leave torn.
 *
 * <p>The only class of the module that holds the mapping; every access to it goes through
 * {@link MemoryRegion}s over it (one over the whole file for the control areas, one per table).
 * Thread-safe.
 */
final class ShmFile implements AutoCloseable {
    /** The OS file lock is held per process; threads of this JVM queue here first. */
    private static final Object CREATION = new Object();

    private final Path path;
    private final FileChannel channel;
    private final Arena arena;
    private final MemorySegment mapping;
    private final MemoryRegion file;
    private final ProcessLiveness liveness = new ProcessLiveness();
    private final PidLock locks;
    /**
     * Takes the OS lock and runs the directory changes: a thread nobody interrupts, since an interrupt
     * during {@link FileChannel#lock} would close the channel (and this process's lock with it).
     */
    private final java.util.concurrent.ExecutorService directory = java.util.concurrent.Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().daemon().name("shm-directory").unstarted(r));
    /** This process's regions over the tables, by directory index (each checked against the entry's live id). */
    private final AtomicReferenceArray<MemoryRegion> regions = new AtomicReferenceArray<>(ShmLayout.MAX_TABLES);

    private ShmFile(Path path, FileChannel channel, Arena arena, MemorySegment mapping) {
        this.path = path;
        this.channel = channel;
        this.arena = arena;
        this.mapping = mapping;
        this.file = MemoryRegion.over(0, mapping, (region, off, update) -> {
            throw new RemoteAccessException("no 128-bit atomics on the control area of " + path);
        });
        this.locks = new PidLock(file, liveness);
    }

    /**
     * Maps the file at {@code path}, creating it with {@code capacityBytes} bytes if it does not exist
     * or was never initialised (an existing file keeps its size).
     *
     * @throws FabricException          if the file cannot be created or mapped, or is not a fabric's
     * @throws IllegalArgumentException if the capacity is too small
     */
    static ShmFile open(Path path, long capacityBytes) {
        if (capacityBytes < ShmLayout.MIN_FILE_BYTES) {
            throw new IllegalArgumentException("shm capacity must be at least " + ShmLayout.MIN_FILE_BYTES + " bytes, got "
                    + capacityBytes);
        }
        FileChannel channel = null;
        Arena arena = Arena.ofShared();
        try {
            channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            synchronized (CREATION) {
                FileLock creation = channel.lock(0, 1, false);
                try {
                    long size = channel.size();
                    boolean fresh = size == 0;
                    if (fresh) {
                        channel.write(ByteBuffer.wrap(new byte[1]), capacityBytes - 1);
                        size = capacityBytes;
                    }
                    if (size < ShmLayout.MIN_FILE_BYTES) {
                        throw new FabricException(path + " is not a lockfabric shm file (" + size + " bytes)");
                    }
                    MemorySegment mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
                    ShmFile shm = new ShmFile(path, channel, arena, mapping);
                    long magic = shm.file.read8(ShmLayout.HEADER_MAGIC);
                    if (magic == 0) {
                        shm.initialise(size); // new, or its creator died before it finished
                    } else if (magic != ShmLayout.MAGIC) {
                        throw new FabricException(path + " is not a lockfabric shm file (magic 0x" + Long.toHexString(magic)
                                + ")");
                    } else if (shm.file.read8(ShmLayout.HEADER_VERSION) != ShmLayout.VERSION) {
                        throw new FabricException(path + " has shm layout version " + shm.file.read8(ShmLayout.HEADER_VERSION)
                                + "; this build reads version " + ShmLayout.VERSION + " (delete the file to start afresh)");
                    }
                    return shm;
                } finally {
                    creation.release();
                }
            }
        } catch (IOException e) {
            closeQuietly(channel, arena);
            throw new FabricException("cannot map shm file " + path + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(channel, arena);
            throw e;
        }
    }

    private static void releaseQuietly(FileLock lock) {
        try {
            if (lock != null && lock.isValid()) {
                lock.release();
            }
        } catch (IOException ignored) {
            // the lock goes with the channel
        }
    }

    private static void closeQuietly(FileChannel channel, Arena arena) {
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException ignored) {
            // nothing to save
        }
        arena.close();
    }

    private void initialise(long size) {
        file.write8(ShmLayout.HEADER_VERSION, ShmLayout.VERSION);
        file.write8(ShmLayout.HEADER_FILE_BYTES, size);
        file.write8(ShmLayout.HEADER_HEAP_START, ShmLayout.HEAP_AT);
        file.write8(ShmLayout.HEADER_HEAP_NEXT, ShmLayout.HEAP_AT);
        file.write8(ShmLayout.HEADER_NEXT_ORDINAL, 1);
        file.write8(ShmLayout.HEADER_NEXT_NODE, 0);
        file.write8(ShmLayout.HEADER_TABLES, 0);
        file.write8(ShmLayout.HEADER_MAGIC, ShmLayout.MAGIC); // last: the file is ready
    }

    Path path() {
        return path;
    }

    /** The control areas, as a region over the whole file. */
    MemoryRegion control() {
        return file;
    }

    ProcessLiveness liveness() {
        return liveness;
    }

    PidLock locks() {
        return locks;
    }

    /**
     * Sleeps while the low 32 bits of the word at file offset {@code bell} hold {@code expected}, at
     * most {@code timeoutNs} (a platform thread, and only where {@link Futex#AVAILABLE}).
     */
    void sleepOn(long bell, int expected, long timeoutNs) {
        Futex.await(word(bell), expected, timeoutNs);
    }

    /**
     * The address of the word at file offset {@code offset}, outside the mapping's arena: a thread
     * asleep in a futex call must not hold the arena (it would keep {@link #close} from unmapping the
     * file). A futex call on an address no longer mapped fails in the kernel (EFAULT), harmlessly.
     */
    private MemorySegment word(long offset) {
        java.util.Objects.checkIndex(offset, mapping.byteSize() - 3);
        return MemorySegment.ofAddress(mapping.address() + offset);
    }

    /**
     * Rings the bell at file offset {@code bell}: adds 1 to its word, then wakes one thread of any
     * process asleep on it (only where {@link Futex#AVAILABLE}).
     */
    void ring(long bell) {
        file.faa(bell, 1);
        Futex.wake(word(bell), 1);
    }

    /**
     * The bell to ring for the thread of the endpoint slot at {@code slot}, read after what it waits
     * for was stored: the bell its wake word names if it may sleep, else 0 (none, not a slot's bell,
     * or no futexes here).
     */
    long bellToRing(long slot) {
        long wake = file.read8(slot + ShmLayout.SLOT_WAKE);
        return wake != 0 && Futex.AVAILABLE && ShmLayout.isSlotBell(wake) ? wake : 0;
    }

    /** A number from the header's counter at {@code field}, never given out twice. */
    long next(long field) {
        return file.faa(field, 1);
    }

    // ---------------------------------------------------------------- the directory lock

    /**
     * Runs {@code body} under the file's directory lock: this JVM's monitor, then the OS lock on the
     * file's first byte, which the OS drops if the process dies. Every change to the directory, the
     * blobs and the heap is made under it, in an order that leaves a state the next holder can use
     * whatever store a killed holder stopped before (see {@link #sweep}).
     */
    <T> T locked(java.util.function.Supplier<T> body) {
        java.util.concurrent.Future<T> done = directory.submit(() -> {
            synchronized (CREATION) {
                FileLock lock = null;
                try {
                    lock = channel.lock(0, 1, false);
                    return body.get();
                } catch (IOException e) {
                    throw new FabricException("cannot lock shm file " + path + ": " + e.getMessage(), e);
                } finally {
                    releaseQuietly(lock);
                }
            }
        });
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return done.get();
                } catch (InterruptedException e) {
                    interrupted = true; // the change goes on: it is waited for whole
                } catch (java.util.concurrent.ExecutionException e) {
                    if (e.getCause() instanceof RuntimeException r) {
                        throw r;
                    }
                    if (e.getCause() instanceof Error err) {
                        throw err;
                    }
                    throw new FabricException("shm " + path + ": " + e.getCause(), e.getCause());
                }
            }
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new FabricException("shm file " + path + " is closed", e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ---------------------------------------------------------------- tables

    /**
     * Finds the table of {@code spec}'s name in the directory, or adds it: a zeroed area of the heap
     * filled with the spec's pattern. The endpoint slot at {@code openerSlot} (-1: none) is marked as
     * having it open, until it closes; {@code parent} is the region id of the table whose service
     * creates this one (0: none), which it is dropped with.
     *
     * @throws TableMismatchException if it exists with another shape
     * @throws FabricException        if the file is full
     */
    Table openTable(TableSpec spec, long openerSlot, int parent) {
        byte[] name = spec.name().getBytes(StandardCharsets.UTF_8);
        byte[] protocol = spec.protocol().getBytes(StandardCharsets.UTF_8);
        if (name.length > ShmLayout.DIR_NAME_MAX) {
            throw new IllegalArgumentException("shm table names are at most " + ShmLayout.DIR_NAME_MAX + " bytes: " + spec);
        }
        if (protocol.length > ShmLayout.DIR_PROTOCOL_MAX) {
            throw new IllegalArgumentException("shm protocol names are at most " + ShmLayout.DIR_PROTOCOL_MAX + " bytes: "
                    + spec);
        }
        byte[] options = spec.service() == null ? new byte[0]
                : String.join("\n", spec.service().options()).getBytes(StandardCharsets.UTF_8);
        if (options.length > ShmLayout.DIR_OPTIONS_MAX) {
            throw new IllegalArgumentException("the service options of " + spec + " take more than "
                    + ShmLayout.DIR_OPTIONS_MAX + " bytes");
        }
        return locked(() -> {
            sweep();
            int found = find(name);
            if (found >= 0) {
                TableSpec existing = specAt(found);
                long entry = ShmLayout.dirEntry(found);
                byte[] fill = spec.fill();
                if (!existing.protocol().equals(spec.protocol()) || existing.locks() != spec.locks()
                        || existing.bytes() != spec.bytes() || spec.memoryNode() != 0
                        || file.read8(entry + ShmLayout.DIR_FILL_LENGTH) != fill.length
                        || file.read8(entry + ShmLayout.DIR_FILL_HASH) != Arrays.hashCode(fill)) {
                    throw new TableMismatchException(existing, spec);
                }
                markOpen(openerSlot, found);
                int id = (int) file.read8(entry + ShmLayout.DIR_ID);
                return new Table(spec, 0, RemoteAddress.of(id, 0), id);
            }
            int index = freeEntry();
            long at = allocate(spec.bytes(), spec.toString());
            long entry = ShmLayout.dirEntry(index);
            int id = nextId(index);
            byte[] fill = spec.fill();
            long dirty = Math.min(at + spec.bytes(), file.read8(ShmLayout.HEADER_HEAP_NEXT));
            if (dirty > at) {
                mapping.asSlice(at, dirty - at).fill((byte) 0); // a dropped table's or a blob's memory was there
            }
            raiseHighWater(at + spec.bytes());
            if (fill.length > 0) {
                for (long off = 0; off < spec.bytes(); off += fill.length) {
                    file.write(at + off, fill, 0, (int) Math.min(fill.length, spec.bytes() - off));
                }
            }
            file.write8(entry + ShmLayout.DIR_OFFSET, at);
            file.write8(entry + ShmLayout.DIR_BYTES, spec.bytes());
            file.write8(entry + ShmLayout.DIR_LOCKS, spec.locks());
            file.write8(entry + ShmLayout.DIR_FILL_HASH, Arrays.hashCode(fill));
            file.write8(entry + ShmLayout.DIR_FILL_LENGTH, fill.length);
            file.write8(entry + ShmLayout.DIR_NAME_LENGTH, name.length);
            file.write8(entry + ShmLayout.DIR_PROTOCOL_LENGTH, protocol.length);
            file.write8(entry + ShmLayout.DIR_HAS_SERVICE, spec.service() == null ? 0 : 1);
            file.write(entry + ShmLayout.DIR_NAME, name, 0, name.length);
            file.write(entry + ShmLayout.DIR_PROTOCOL, protocol, 0, protocol.length);
            file.write8(entry + ShmLayout.DIR_OPTIONS_LENGTH, options.length);
            file.write(entry + ShmLayout.DIR_OPTIONS, options, 0, options.length);
            if (fill.length <= ShmLayout.DIR_FILL_MAX) {
                file.write(entry + ShmLayout.DIR_FILL, fill, 0, fill.length);
            }
            file.write8(entry + ShmLayout.DIR_PARENT, parent);
            file.write8(entry + ShmLayout.DIR_ID, id);
            file.write8(entry + ShmLayout.DIR_LIVE_ID, id);
            file.write8(entry + ShmLayout.DIR_STATE, ShmLayout.DIR_READY); // last: the table is there
            markOpen(openerSlot, index);
            return new Table(spec, 0, RemoteAddress.of(id, 0), id);
        });
    }

    /** The region id entry {@code index} gives its next table: the next generation of the last one. */
    private int nextId(int index) {
        long last = file.read8(ShmLayout.dirEntry(index) + ShmLayout.DIR_ID);
        int generation = last == 0 ? 0 : ((int) (last - 1) / ShmLayout.MAX_TABLES + 1) % ShmLayout.GENERATIONS;
        return ShmLayout.idOf(index, generation);
    }

    /** A free directory entry; the high-water mark is raised before a new entry is written. Under the lock. */
    private int freeEntry() {
        int used = (int) file.read8(ShmLayout.HEADER_TABLES);
        for (int i = 0; i < used; i++) {
            if (file.read8(ShmLayout.dirEntry(i) + ShmLayout.DIR_STATE) == ShmLayout.DIR_FREE) {
                return i;
            }
        }
        if (used >= ShmLayout.MAX_TABLES) {
            throw new FabricException(path + " holds " + ShmLayout.MAX_TABLES + " tables already (drop some)");
        }
        file.write8(ShmLayout.HEADER_TABLES, used + 1);
        return used;
    }

    /**
     * First fit in the heap among the extents of the tables (ready or dropped but still open) and the
     * rpc blobs: memory is free exactly when no entry claims it, so a holder killed at any store
     * leaks nothing and never hands out memory twice. Under the lock.
     */
    private long allocate(long bytes, String what) {
        java.util.List<long[]> used = new java.util.ArrayList<>();
        int entries = (int) file.read8(ShmLayout.HEADER_TABLES);
        for (int i = 0; i < entries; i++) {
            long entry = ShmLayout.dirEntry(i);
            if (file.read8(entry + ShmLayout.DIR_STATE) != ShmLayout.DIR_FREE) {
                used.add(new long[] {file.read8(entry + ShmLayout.DIR_OFFSET), file.read8(entry + ShmLayout.DIR_BYTES)});
            }
        }
        for (int b = 0; b < ShmLayout.BLOBS; b++) {
            long blob = ShmLayout.blob(b);
            if (file.read8(blob + ShmLayout.BLOB_OWNER) != 0) {
                used.add(new long[] {file.read8(blob + ShmLayout.BLOB_OFFSET), file.read8(blob + ShmLayout.BLOB_LENGTH)});
            }
        }
        used.sort(java.util.Comparator.comparingLong(e -> e[0]));
        long at = ShmLayout.HEAP_AT;
        long inUse = 0;
        for (long[] e : used) {
            inUse += e[1];
            if (e[0] - at >= bytes) {
                return at;
            }
            at = Math.max(at, ShmLayout.align(e[0] + e[1], ShmLayout.TABLE_ALIGNMENT));
        }
        if (file.size() - at >= bytes) {
            return at;
        }
        throw new FabricException(String.format("shm file %s cannot hold %s: %d of its %d heap bytes are in use "
                + "(drop tables, or open it with a larger capacity after deleting it)", path, what, inUse,
                file.size() - ShmLayout.HEAP_AT));
    }

    /** Records that the heap below {@code end} may have been written (above the mark it is still zero). */
    private void raiseHighWater(long end) {
        if (end > file.read8(ShmLayout.HEADER_HEAP_NEXT)) {
            file.write8(ShmLayout.HEADER_HEAP_NEXT, end);
        }
    }

    private void markOpen(long slot, int index) {
        if (slot >= 0) {
            long word = slot + ShmLayout.SLOT_OPEN + (index / 64) * 8L;
            file.write8(word, file.read8(word) | (1L << (index % 64)));
        }
    }

    private void markClosed(long slot, int index) {
        long word = slot + ShmLayout.SLOT_OPEN + (index / 64) * 8L;
        file.write8(word, file.read8(word) & ~(1L << (index % 64)));
    }

    /** How many open endpoints of live processes, but for {@code users}' slots, have entry {@code index} open. */
    private int openers(int index, java.util.Set<Long> users) {
        int n = 0;
        for (int i = 0; i < ShmLayout.MAX_ENDPOINTS; i++) {
            long slot = ShmLayout.slot(i);
            long owner = file.read8(slot + ShmLayout.SLOT_OWNER);
            if (owner == 0 || users.contains(slot)
                    || (file.read8(slot + ShmLayout.SLOT_OPEN + (index / 64) * 8L) & (1L << (index % 64))) == 0) {
                continue;
            }
            if (file.read8(slot + ShmLayout.SLOT_ID) != 0 && liveness.isAlive(owner)) {
                n++;
            }
        }
        return n;
    }

    /**
     * Finishes what drops left: a ready table whose live id was cleared (its dropper died between the
     * two stores) or whose parent is no longer live is dropped; a dropped table that no open endpoint
     * of a live process has open is freed; a blob whose caller closed or died is freed. Under the lock.
     */
    private void sweep() {
        int entries = (int) file.read8(ShmLayout.HEADER_TABLES);
        for (int i = 0; i < entries; i++) {
            long entry = ShmLayout.dirEntry(i);
            long state = file.read8(entry + ShmLayout.DIR_STATE);
            if (state == ShmLayout.DIR_READY) {
                long parent = file.read8(entry + ShmLayout.DIR_PARENT);
                if (file.read8(entry + ShmLayout.DIR_LIVE_ID) != file.read8(entry + ShmLayout.DIR_ID)
                        || (parent != 0 && !isLive((int) parent))) {
                    file.write8(entry + ShmLayout.DIR_LIVE_ID, 0);
                    file.write8(entry + ShmLayout.DIR_STATE, ShmLayout.DIR_DROPPED);
                    state = ShmLayout.DIR_DROPPED;
                }
            }
            if (state == ShmLayout.DIR_DROPPED && openers(i, java.util.Set.of()) == 0) {
                file.write8(entry + ShmLayout.DIR_STATE, ShmLayout.DIR_FREE);
            }
        }
        for (int b = 0; b < ShmLayout.BLOBS; b++) {
            long blob = ShmLayout.blob(b);
            long owner = file.read8(blob + ShmLayout.BLOB_OWNER);
            if (owner != 0) {
                long slot = ShmLayout.slot((int) file.read8(blob + ShmLayout.BLOB_SLOT));
                if (file.read8(slot + ShmLayout.SLOT_ID) != owner || !liveness.isAlive(file.read8(slot + ShmLayout.SLOT_OWNER))) {
                    file.write8(blob + ShmLayout.BLOB_OWNER, 0);
                }
            }
        }
    }

    /**
     * Drops table {@code name} and the tables its service created, unless an open endpoint of a live
     * process, other than those at the slots {@code users}, has one of them open ({@code force}: even
     * then). A table nobody has open is freed at once, its memory given back to the heap; one dropped
     * under open endpoints is hidden at once (its name makes a new table, verbs on it fail with
     * {@link io.lockfabric.fabric.TableDroppedException}) and freed once they have closed or died.
     * The users' marks are cleared: they must not use the table afterwards.
     *
     * @return the bytes of the tables dropped, or 0 if there is no such table
     * @throws TableInUseException      if another endpoint has it open and {@code force} is false
     * @throws IllegalArgumentException if another table's service created it
     */
    long drop(String name, boolean force, java.util.Set<Long> users) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        return locked(() -> {
            sweep();
            int index = find(bytes);
            if (index < 0) {
                return 0L;
            }
            long entry = ShmLayout.dirEntry(index);
            long parent = file.read8(entry + ShmLayout.DIR_PARENT);
            if (parent != 0) {
                throw new IllegalArgumentException("table '" + name + "' belongs to the table of region " + parent
                        + " (its service created it); drop that one");
            }
            java.util.List<Integer> family = new java.util.ArrayList<>();
            family.add(index);
            int id = (int) file.read8(entry + ShmLayout.DIR_ID);
            int entries = (int) file.read8(ShmLayout.HEADER_TABLES);
            for (int i = 0; i < entries; i++) {
                long e = ShmLayout.dirEntry(i);
                if (file.read8(e + ShmLayout.DIR_STATE) == ShmLayout.DIR_READY && file.read8(e + ShmLayout.DIR_PARENT) == id) {
                    family.add(i);
                }
            }
            if (!force) {
                int others = 0;
                for (int i : family) {
                    others = Math.max(others, openers(i, users));
                }
                if (others > 0) {
                    throw new TableInUseException("table '" + name + "' is open by " + others + " other endpoint"
                            + (others == 1 ? "" : "s") + " (of this or another process); a forced drop drops it under "
                            + "them (their later verbs on it fail: table dropped)");
                }
            }
            long freed = 0;
            for (int i : family) { // the parent first: a dropper killed after it leaves orphans the sweep drops
                long e = ShmLayout.dirEntry(i);
                freed += file.read8(e + ShmLayout.DIR_BYTES);
                file.write8(e + ShmLayout.DIR_LIVE_ID, 0);
                file.write8(e + ShmLayout.DIR_STATE, ShmLayout.DIR_DROPPED);
                for (long slot : users) {
                    markClosed(slot, i);
                }
            }
            sweep();
            return freed;
        });
    }

    /**
     * The tables of the directory that clients created (not those their services created, whose
     * bytes count in their parent's), as {@link ShmFabric#tables} describes them.
     */
    java.util.List<ShmFabric.TableRow> tables() {
        return locked(() -> {
            sweep();
            java.util.Map<Long, Long> childBytes = new java.util.HashMap<>();
            int entries = (int) file.read8(ShmLayout.HEADER_TABLES);
            for (int i = 0; i < entries; i++) {
                long e = ShmLayout.dirEntry(i);
                long parent = file.read8(e + ShmLayout.DIR_PARENT);
                if (file.read8(e + ShmLayout.DIR_STATE) != ShmLayout.DIR_FREE && parent != 0) {
                    childBytes.merge(parent, file.read8(e + ShmLayout.DIR_BYTES), Long::sum);
                }
            }
            java.util.List<ShmFabric.TableRow> rows = new java.util.ArrayList<>();
            for (int i = 0; i < entries; i++) {
                long e = ShmLayout.dirEntry(i);
                long state = file.read8(e + ShmLayout.DIR_STATE);
                if (state == ShmLayout.DIR_FREE || file.read8(e + ShmLayout.DIR_PARENT) != 0) {
                    continue;
                }
                TableSpec spec = specAt(i);
                rows.add(new ShmFabric.TableRow(spec.name(), spec.protocol(),
                        spec.bytes() + childBytes.getOrDefault(file.read8(e + ShmLayout.DIR_ID), 0L),
                        openers(i, java.util.Set.of()), state == ShmLayout.DIR_DROPPED));
            }
            return rows;
        });
    }

    /** Whether region {@code id} is a table that is there now. */
    boolean isLive(int id) {
        return id > 0 && id <= ShmLayout.idOf(ShmLayout.MAX_TABLES - 1, ShmLayout.GENERATIONS - 1)
                && file.read8(ShmLayout.dirEntry(ShmLayout.indexOf(id)) + ShmLayout.DIR_LIVE_ID) == id;
    }

    /** The index of the ready table named {@code name}; -1 if there is none. */
    int find(byte[] name) {
        int tables = (int) file.read8(ShmLayout.HEADER_TABLES);
        for (int i = 0; i < tables; i++) {
            long entry = ShmLayout.dirEntry(i);
            if (file.read8(entry + ShmLayout.DIR_STATE) == ShmLayout.DIR_READY
                    && file.read8(entry + ShmLayout.DIR_NAME_LENGTH) == name.length
                    && Arrays.equals(file.read(entry + ShmLayout.DIR_NAME, name.length), name)) {
                return i;
            }
        }
        return -1;
    }

    /** The spec of directory entry {@code index} as the file has it (its fill pattern is not kept). */
    private TableSpec specAt(int index) {
        long entry = ShmLayout.dirEntry(index);
        String name = new String(file.read(entry + ShmLayout.DIR_NAME, (int) file.read8(entry + ShmLayout.DIR_NAME_LENGTH)),
                StandardCharsets.UTF_8);
        String protocol = new String(file.read(entry + ShmLayout.DIR_PROTOCOL,
                (int) file.read8(entry + ShmLayout.DIR_PROTOCOL_LENGTH)), StandardCharsets.UTF_8);
        return new TableSpec(name, protocol, file.read8(entry + ShmLayout.DIR_LOCKS), file.read8(entry + ShmLayout.DIR_BYTES));
    }

    /**
     * The whole spec of the table of region {@code id} as its creator gave it, without its service,
     * and the options its service declared; null if there is no such table or its fill pattern was
     * too long to keep.
     */
    StoredTable storedTable(int id) {
        if (!isLive(id)) {
            return null;
        }
        int index = ShmLayout.indexOf(id);
        long entry = ShmLayout.dirEntry(index);
        int fillLength = (int) file.read8(entry + ShmLayout.DIR_FILL_LENGTH);
        if (fillLength > ShmLayout.DIR_FILL_MAX) {
            return null;
        }
        TableSpec spec = specAt(index).withFill(file.read(entry + ShmLayout.DIR_FILL, fillLength));
        String options = new String(file.read(entry + ShmLayout.DIR_OPTIONS,
                (int) file.read8(entry + ShmLayout.DIR_OPTIONS_LENGTH)), StandardCharsets.UTF_8);
        StoredTable stored = new StoredTable(spec, options.isEmpty() ? java.util.List.of()
                : java.util.List.of(options.split("\n")), new Table(spec, 0, RemoteAddress.of(id, 0), id));
        return isLive(id) ? stored : null; // not dropped (and its entry reused) while it was read
    }

    /** A table as the directory keeps it: its spec (no service), its service's options, where it is. */
    record StoredTable(TableSpec spec, java.util.List<String> serviceOptions, Table table) {
    }

    /**
     * Checks that rpcs can go to the service of region {@code id}.
     *
     * @throws TableDroppedException if its table was dropped
     * @throws io.lockfabric.fabric.RpcException if there is no such table, or it has no service
     */
    void checkService(int id) {
        if (hasService(id)) {
            return;
        }
        if (id > 0 && id <= ShmLayout.idOf(ShmLayout.MAX_TABLES - 1, ShmLayout.GENERATIONS - 1) && !isLive(id)
                && file.read8(ShmLayout.dirEntry(ShmLayout.indexOf(id)) + ShmLayout.DIR_ID) >= id) {
            throw new TableDroppedException("shm " + path + ": the table of rpc service " + id + " was dropped");
        }
        throw new io.lockfabric.fabric.RpcException("shm " + path + " has no rpc service " + id);
    }

    /** Whether the table of region {@code id} exists and its spec had a service. */
    boolean hasService(int id) {
        return isLive(id) && file.read8(ShmLayout.dirEntry(ShmLayout.indexOf(id)) + ShmLayout.DIR_HAS_SERVICE) == 1;
    }

    /**
     * The region an address points into (a table of this file, whichever process created it),
     * checked against the directory on every call: one read of the entry's live id.
     *
     * @throws TableDroppedException if its table was dropped
     * @throws RemoteAccessException if it names no table
     */
    MemoryRegion region(long address) {
        int id = RemoteAddress.region(address);
        if (id > 0 && id <= ShmLayout.idOf(ShmLayout.MAX_TABLES - 1, ShmLayout.GENERATIONS - 1)) {
            int index = ShmLayout.indexOf(id);
            long entry = ShmLayout.dirEntry(index);
            long live = file.read8(entry + ShmLayout.DIR_LIVE_ID);
            MemoryRegion r = regions.get(index);
            if (live == id) {
                if (r != null && r.id() == id) {
                    return r;
                }
                long at = file.read8(entry + ShmLayout.DIR_OFFSET);
                long bytes = file.read8(entry + ShmLayout.DIR_BYTES);
                r = MemoryRegion.over(id, mapping.asSlice(at, bytes), new StripeGuard(file, locks, at));
                if (file.read8(entry + ShmLayout.DIR_LIVE_ID) == id) { // not dropped while its extent was read
                    regions.set(index, r);
                    return r;
                }
            } else if (file.read8(entry + ShmLayout.DIR_ID) >= id || (r != null && r.id() == id)) {
                throw new TableDroppedException("shm " + path + ": the table of region " + id + " was dropped");
            }
        }
        throw new RemoteAccessException("shm " + path + ": no region " + id + " (address " + RemoteAddress.toString(address)
                + ")");
    }

    // ---------------------------------------------------------------- rpc blobs

    /**
     * Stores {@code data} in a blob of the heap owned by the caller {@code owner} (at slot index
     * {@code slot}) for its call {@code call}: freed by {@link #freeBlobs}, or by a sweep once the
     * caller's endpoint closed or its process died.
     *
     * @return 1 + the blob's index
     * @throws FabricException if the file has no room for it now
     */
    long storeBlob(long owner, int slot, long call, byte[] data) {
        long[] where = locked(() -> {
            sweep();
            for (int b = 0; b < ShmLayout.BLOBS; b++) {
                long blob = ShmLayout.blob(b);
                if (file.read8(blob + ShmLayout.BLOB_OWNER) == 0) {
                    long at = allocate(data.length, "an rpc message of " + data.length + " bytes");
                    file.write8(blob + ShmLayout.BLOB_SLOT, slot);
                    file.write8(blob + ShmLayout.BLOB_CALL, call);
                    file.write8(blob + ShmLayout.BLOB_OFFSET, at);
                    file.write8(blob + ShmLayout.BLOB_LENGTH, data.length);
                    raiseHighWater(at + data.length);
                    file.write8(blob + ShmLayout.BLOB_OWNER, owner); // last: the memory is taken
                    return new long[] {b + 1, at};
                }
            }
            throw new FabricException("shm " + path + " has " + ShmLayout.BLOBS + " long rpc messages in flight already");
        });
        file.write(where[1], data, 0, data.length);
        return where[0];
    }

    /** The data of blob {@code blob} (1 + its index), {@code length} bytes. */
    byte[] readBlob(long blob, int length) {
        return file.read(file.read8(ShmLayout.blob((int) blob - 1) + ShmLayout.BLOB_OFFSET), length);
    }

    /** Frees the blobs of caller {@code owner}'s call {@code call}. */
    void freeBlobs(long owner, long call) {
        locked(() -> {
            for (int b = 0; b < ShmLayout.BLOBS; b++) {
                long blob = ShmLayout.blob(b);
                if (file.read8(blob + ShmLayout.BLOB_OWNER) == owner && file.read8(blob + ShmLayout.BLOB_CALL) == call) {
                    file.write8(blob + ShmLayout.BLOB_OWNER, 0);
                }
            }
            return null;
        });
    }

    /** Only for a test of the redo log: reads the entry at a file offset. */
    Int128 entryAt(long fileOffset) {
        return new Int128(file.read8(fileOffset), file.read8(fileOffset + 8));
    }

    @Override
    public void close() {
        directory.shutdown();
        try {
            directory.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // the mapping goes with the arena
        }
        arena.close();
    }
}
