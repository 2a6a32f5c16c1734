package io.lockfabric.shm;

import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.RemoteAccessException;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.Table;
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
 * directory and the regions of the tables, the endpoint slots. The first process to open a path
 * creates and initialises the file; every later one finds it by its magic. Creating the file and
 * adding a table to its directory happen under an exclusive OS lock on the file's first byte (which
 * the OS drops if its holder dies) and, in this JVM, under a monitor (the OS lock is per process).
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
    private final AtomicReferenceArray<MemoryRegion> regions = new AtomicReferenceArray<>(ShmLayout.MAX_TABLES + 1);

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

    /** A number from the header's counter at {@code field}, never given out twice. */
    long next(long field) {
        return file.faa(field, 1);
    }

    // ---------------------------------------------------------------- tables

    /**
     * Finds the table of {@code spec}'s name in the directory, or adds it: a zeroed area of the heap
     * filled with the spec's pattern. {@code serviced} says whether the spec's service runs
     * somewhere (recorded for the errors of rpcs to it).
     *
     * @throws TableMismatchException if it exists with another shape
     * @throws FabricException        if the file is full
     */
    Table openTable(TableSpec spec) {
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
        Table found = find(spec, name);
        if (found != null) {
            return found;
        }
        synchronized (CREATION) {
            FileLock creation = null;
            try {
                creation = channel.lock(0, 1, false);
                found = find(spec, name);
                if (found != null) {
                    return found;
                }
                int index = (int) file.read8(ShmLayout.HEADER_TABLES);
                if (index >= ShmLayout.MAX_TABLES) {
                    throw new FabricException(path + " holds " + ShmLayout.MAX_TABLES + " tables already");
                }
                long at = ShmLayout.align(file.read8(ShmLayout.HEADER_HEAP_NEXT), ShmLayout.TABLE_ALIGNMENT);
                long size = file.size();
                if (spec.bytes() > size - at) {
                    throw new FabricException(String.format("shm file %s cannot hold %s: %d of %d bytes are in use "
                            + "(open it with a larger capacity, after deleting it)", path, spec, at, size));
                }
                byte[] fill = spec.fill();
                if (fill.length > 0) {
                    for (long off = 0; off < spec.bytes(); off += fill.length) {
                        file.write(at + off, fill, 0, (int) Math.min(fill.length, spec.bytes() - off));
                    }
                }
                long entry = ShmLayout.dirEntry(index);
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
                file.write8(entry + ShmLayout.DIR_STATE, ShmLayout.DIR_READY);
                file.write8(ShmLayout.HEADER_HEAP_NEXT, at + spec.bytes());
                file.write8(ShmLayout.HEADER_TABLES, index + 1);
                return new Table(spec, 0, RemoteAddress.of(index + 1, 0), index + 1);
            } catch (IOException e) {
                throw new FabricException("cannot lock shm file " + path + ": " + e.getMessage(), e);
            } finally {
                releaseQuietly(creation);
            }
        }
    }

    /** The ready table named as {@code spec}, checked against it; null if there is none. */
    private Table find(TableSpec spec, byte[] name) {
        int tables = (int) file.read8(ShmLayout.HEADER_TABLES);
        for (int i = 0; i < tables; i++) {
            long entry = ShmLayout.dirEntry(i);
            if (file.read8(entry + ShmLayout.DIR_STATE) != ShmLayout.DIR_READY
                    || file.read8(entry + ShmLayout.DIR_NAME_LENGTH) != name.length
                    || !Arrays.equals(file.read(entry + ShmLayout.DIR_NAME, name.length), name)) {
                continue;
            }
            TableSpec existing = specAt(i);
            byte[] fill = spec.fill();
            if (!existing.protocol().equals(spec.protocol()) || existing.locks() != spec.locks()
                    || existing.bytes() != spec.bytes() || spec.memoryNode() != 0
                    || file.read8(entry + ShmLayout.DIR_FILL_LENGTH) != fill.length
                    || file.read8(entry + ShmLayout.DIR_FILL_HASH) != Arrays.hashCode(fill)) {
                throw new TableMismatchException(existing, spec);
            }
            return new Table(spec, 0, RemoteAddress.of(i + 1, 0), i + 1);
        }
        return null;
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
        if (id <= 0 || id > Math.min(ShmLayout.MAX_TABLES, file.read8(ShmLayout.HEADER_TABLES))) {
            return null;
        }
        long entry = ShmLayout.dirEntry(id - 1);
        int fillLength = (int) file.read8(entry + ShmLayout.DIR_FILL_LENGTH);
        if (file.read8(entry + ShmLayout.DIR_STATE) != ShmLayout.DIR_READY || fillLength > ShmLayout.DIR_FILL_MAX) {
            return null;
        }
        TableSpec spec = specAt(id - 1).withFill(file.read(entry + ShmLayout.DIR_FILL, fillLength));
        String options = new String(file.read(entry + ShmLayout.DIR_OPTIONS,
                (int) file.read8(entry + ShmLayout.DIR_OPTIONS_LENGTH)), StandardCharsets.UTF_8);
        return new StoredTable(spec, options.isEmpty() ? java.util.List.of() : java.util.List.of(options.split("\n")),
                new Table(spec, 0, RemoteAddress.of(id, 0), id));
    }

    /** A table as the directory keeps it: its spec (no service), its service's options, where it is. */
    record StoredTable(TableSpec spec, java.util.List<String> serviceOptions, Table table) {
    }

    /** Whether the table of region {@code id} exists and its spec had a service. */
    boolean hasService(int id) {
        if (id <= 0 || id > Math.min(ShmLayout.MAX_TABLES, file.read8(ShmLayout.HEADER_TABLES))) {
            return false;
        }
        return file.read8(ShmLayout.dirEntry(id - 1) + ShmLayout.DIR_HAS_SERVICE) == 1;
    }

    /** The region an address points into (a table of this file, whichever process created it). */
    MemoryRegion region(long address) {
        int id = RemoteAddress.region(address);
        if (id > 0 && id <= ShmLayout.MAX_TABLES) {
            MemoryRegion r = regions.get(id);
            if (r != null) {
                return r;
            }
            long entry = ShmLayout.dirEntry(id - 1);
            if (file.read8(entry + ShmLayout.DIR_STATE) == ShmLayout.DIR_READY) {
                long at = file.read8(entry + ShmLayout.DIR_OFFSET);
                long bytes = file.read8(entry + ShmLayout.DIR_BYTES);
                r = MemoryRegion.over(id, mapping.asSlice(at, bytes), new StripeGuard(file, locks, at));
                regions.compareAndSet(id, null, r);
                return regions.get(id);
            }
        }
        throw new RemoteAccessException("shm " + path + ": no region " + id + " (address " + RemoteAddress.toString(address)
                + ")");
    }

    /** Only for a test of the redo log: reads the entry at a file offset. */
    Int128 entryAt(long fileOffset) {
        return new Int128(file.read8(fileOffset), file.read8(fileOffset + 8));
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // the mapping goes with the arena
        }
        arena.close();
    }
}
