package io.lockfabric.apps.fs;

import io.lockfabric.LockFabric;
import io.lockfabric.lock.LockOptions;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * CitronFS: a distributed in-memory file system on a LockFabric (CITRON FAST'23 §4.3), whose files'
 * inodes, extent maps and bytes live on the fabric's memory nodes and whose every I/O takes a
 * byte-range lock on the bytes it touches (any registered range protocol; CITRON by default) or
 * the file's mutex (the paper's inode-mutex baseline). See {@link FsClient} for where the metadata
 * lives and why, and what it changes that memory nodes, not client machines, hold the data.
 *
 * <pre>{@code
 * try (LockFabric lf = LockFabric.open("tcp://127.0.0.1:7420")) {
 *     CitronFs fs = CitronFs.open(lf, "fs", FsOptions.DEFAULTS);            // citron range locks
 *     try (FsFile f = fs.create("log")) {
 *         f.pwrite(bytes, 0);
 *         int n = f.pread(buffer, 0);
 *         f.truncate(4096);
 *     }
 * }
 * }</pre>
 *
 * <p>Every process that opens a file system of the same name and shape on the same memory nodes
 * shares its files. A call runs an {@link FsClient} on an endpoint of the {@code LockFabric}'s pool
 * ({@link LockFabric#withEndpoint}), one client per endpoint. A protocol with a lease gets the client
 * API's (1 s) unless the options give one. Thread-safe.
 */
public final class CitronFs {
    private static final String LEASE_OPTION = "lease-ns";
    private final LockFabric lockFabric;
    private final String name;
    private final FsOptions options;
    private final FsLockManager manager;
    private final LockOptions lockOptions;

    private CitronFs(LockFabric lockFabric, String name, FsOptions options) {
        this.lockFabric = lockFabric;
        this.name = name;
        this.options = options;
        this.manager = FsLockManager.byName(options.lockManager());
        this.lockOptions = LockOptions.parse(withDefaultLease(manager, options.lockOptions()));
    }

    /** Opens (creating if needed) file system {@code name} with {@link FsOptions#DEFAULTS}. */
    public static CitronFs open(LockFabric lockFabric, String name) {
        return open(lockFabric, name, FsOptions.DEFAULTS);
    }

    /**
     * Opens (creating if needed) file system {@code name}.
     *
     * @throws IllegalArgumentException if the name is blank, the lock manager unknown or its options invalid
     * @throws IllegalStateException    if the file system exists with another shape
     */
    public static CitronFs open(LockFabric lockFabric, String name, FsOptions options) {
        Objects.requireNonNull(lockFabric, "lockFabric");
        Objects.requireNonNull(options, "options");
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a file system needs a name");
        }
        CitronFs fs = new CitronFs(lockFabric, name, options);
        fs.run(c -> c.lookup("/")); // opens the tables and checks the superblock now
        return fs;
    }

    private static List<String> withDefaultLease(FsLockManager manager, List<String> pairs) {
        boolean leased = manager.options().stream().anyMatch(o -> o.name().equals(LEASE_OPTION));
        if (!leased || pairs.stream().anyMatch(p -> p.startsWith(LEASE_OPTION + "="))) {
            return pairs;
        }
        List<String> out = new ArrayList<>();
        out.add(LEASE_OPTION + "=" + io.lockfabric.SpaceOptions.DEFAULT_LEASE.toNanos() + "ns");
        out.addAll(pairs);
        return out;
    }

    <T> T run(Function<FsClient, T> body) {
        return lockFabric.withEndpoint(this, FsClient.class, ep -> {
            try {
                return FsClient.open(ep, name, options.layout(ep.fabric().memoryNodes()), manager, lockOptions,
                        options.sharedReads());
            } catch (io.lockfabric.fabric.TableMismatchException e) {
                throw new IllegalStateException("file system " + name + ": " + e.getMessage(), e);
            }
        }, body);
    }

    /**
     * Opens file {@code fileName}, creating it empty if there is none.
     *
     * @throws FsFullException if it must be created and every inode is taken
     */
    public FsFile create(String fileName) {
        int inode = run(c -> c.create(fileName));
        return new FsFile(this, fileName, inode);
    }

    /**
     * Opens file {@code fileName}.
     *
     * @throws java.util.NoSuchElementException if there is none
     */
    public FsFile open(String fileName) {
        int inode = run(c -> c.lookup(fileName));
        if (inode < 0) {
            throw new java.util.NoSuchElementException("no file '" + fileName + "' in " + name);
        }
        return new FsFile(this, fileName, inode);
    }

    public String name() {
        return name;
    }

    public FsOptions options() {
        return options;
    }

    /** The lock manager's name: {@code citron}, {@code mutex:dslr}. */
    public String lockManager() {
        return manager.name();
    }

    @Override
    public String toString() {
        return "CitronFS '" + name + "' (" + manager.name() + (options.sharedReads() ? ", shared reads" : "") + ")";
    }
}
