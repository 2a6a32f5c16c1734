package io.lockfabric.apps.fs;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.lock.citron.CitronClient;
import io.lockfabric.lock.citron.CitronProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.protocols.RangeLockProtocols;

import java.util.List;
import java.util.Objects;

/**
 * What protects CitronFS's I/O: a byte-range lock per file ({@link Range}, any registered range
 * protocol) or a mutex per file ({@link Mutex}, the paper's inode-mutex baseline, any registered
 * lock protocol). Found by name ({@link #byName}). Immutable.
 */
public sealed interface FsLockManager {
    /** The lock protocol {@code mutex} alone names: DSLR, a ticket lock of one-sided FAAs (like CITRON's bakery nodes). */
    String DEFAULT_MUTEX = "dslr";
    /** The prefix of a mutex manager's name. */
    String MUTEX = "mutex";

    /** The name it is found by: {@code citron}, {@code mutex:dslr}. */
    String name();

    /**
     * Whether it grants SHARED (readers overlapping readers) to clients opened with {@code options}
     * (citron does with its {@code shared-lanes} option).
     */
    boolean supportsShared(LockOptions options);

    /** The protocol's tunables. */
    List<LockOption> options();

    /** What the protocol promises when clients crash or pause, with {@code options}. */
    FailureModel failureModel(LockOptions options);

    /** Whether grants carry fencing tokens that increase from one overlapping exclusive grant to the next. */
    boolean strictFencing(LockOptions options);

    /** One endpoint's locks of file system {@code fs} (its lock tables are opened file by file, when first used). */
    FsLocks open(Endpoint endpoint, String fs, int maxFiles, LockOptions options);

    /**
     * The manager of that name: {@code mutex} or {@code mutex:<lock protocol>}, else a range protocol.
     *
     * @throws IllegalArgumentException naming the known ones if there is none
     */
    static FsLockManager byName(String name) {
        Objects.requireNonNull(name, "lock manager");
        if (name.equals(MUTEX)) {
            return new Mutex(LockProtocols.byName(DEFAULT_MUTEX));
        }
        if (name.startsWith(MUTEX + ":")) {
            return new Mutex(LockProtocols.byName(name.substring(MUTEX.length() + 1)));
        }
        try {
            return new Range(RangeLockProtocols.byName(name));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown lock manager '" + name + "'; known: "
                    + String.join(", ", RangeLockProtocols.names()) + ", " + MUTEX + ", " + MUTEX + ":<lock protocol>");
        }
    }

    /** A byte-range lock per file, table {@code <fs>-range-<inode>}, over the file's bytes. */
    record Range(RangeLockProtocol protocol) implements FsLockManager {
        @Override
        public String name() {
            return protocol.name();
        }

        @Override
        public boolean supportsShared(LockOptions options) {
            return protocol.supportsShared(options);
        }

        @Override
        public List<LockOption> options() {
            return protocol.options();
        }

        @Override
        public FailureModel failureModel(LockOptions options) {
            return protocol.failureModel(options);
        }

        @Override
        public boolean strictFencing(LockOptions options) {
            return protocol.strictFencing(options);
        }

        @Override
        public FsLocks open(Endpoint endpoint, String fs, int maxFiles, LockOptions options) {
            options.validate(protocol.name(), protocol.options());
            return new RangeLocks(this, endpoint, fs, maxFiles, options);
        }
    }

    /** A mutex (or reader-writer lock) per file: lock {@code inode} of table {@code <fs>-mutex}. */
    record Mutex(LockProtocol protocol) implements FsLockManager {
        @Override
        public String name() {
            return MUTEX + ":" + protocol.name();
        }

        @Override
        public boolean supportsShared(LockOptions options) {
            return protocol.supportsShared();
        }

        @Override
        public List<LockOption> options() {
            return protocol.options();
        }

        @Override
        public FailureModel failureModel(LockOptions options) {
            return protocol.failureModel(options);
        }

        @Override
        public boolean strictFencing(LockOptions options) {
            return protocol.strictFencing();
        }

        @Override
        public FsLocks open(Endpoint endpoint, String fs, int maxFiles, LockOptions options) {
            LockClient c = protocol.open(endpoint, fs + "-mutex", maxFiles, options);
            return new MutexLocks(c);
        }
    }

    /** One endpoint's locks of one file system. One thread at a time, like the endpoint. */
    sealed interface FsLocks extends AutoCloseable {
        /** Takes bytes [start, end) of file {@code inode} in {@code mode}. */
        FsGrant acquire(int inode, long start, long end, Mode mode);

        void release(FsGrant grant);

        /** After a truncate of file {@code inode} to {@code size} bytes: lets its lock shrink (CITRON's scale-down). */
        default void shrunk(int inode, long size) {
        }

        /** What the lock clients counted so far, summed. */
        LockStats stats();

        @Override
        void close();
    }

    /** {@link Range}'s locks: a range lock client per file, opened at its first use. */
    final class RangeLocks implements FsLocks {
        private final Range manager;
        private final Endpoint endpoint;
        private final String fs;
        private final LockOptions options;
        private final RangeLockClient[] clients;
        private LockStats closedStats = LockStats.ZERO;

        RangeLocks(Range manager, Endpoint endpoint, String fs, int maxFiles, LockOptions options) {
            this.manager = manager;
            this.endpoint = endpoint;
            this.fs = fs;
            this.options = options;
            this.clients = new RangeLockClient[maxFiles];
        }

        /** The range lock table of file {@code inode}. */
        public static String tableName(String fs, int inode) {
            return fs + "-range-" + inode;
        }

        RangeLockClient client(int inode) {
            RangeLockClient c = clients[inode];
            if (c == null) {
                c = manager.protocol().open(endpoint, tableName(fs, inode), options);
                clients[inode] = c;
            }
            return c;
        }

        @Override
        public FsGrant acquire(int inode, long start, long end, Mode mode) {
            RangeGrant g = client(inode).acquire(start, end, mode);
            return new FsGrant(inode, start, end, g.mode(), g.fencingToken(), g);
        }

        @Override
        public void release(FsGrant grant) {
            clients[grant.inode()].release((RangeGrant) grant.inner());
        }

        /**
         * With CITRON, scales the file's lock tree down to the smallest earlier size that still covers
         * {@code size} bytes (§3.9.2: a blocking drain of the tree, as the paper has ftruncate do).
         */
        @Override
        public void shrunk(int inode, long size) {
            if (!(client(inode) instanceof CitronClient c)) {
                return;
            }
            long base = CitronProtocol.layout(options).units();
            long factor = options.get(CitronProtocol.SCALE_FACTOR);
            for (long u = base; u < c.units(); u *= factor) {
                if (u >= size) {
                    c.scaleDown(u);
                    return;
                }
            }
        }

        @Override
        public LockStats stats() {
            LockStats s = closedStats;
            for (RangeLockClient c : clients) {
                if (c != null) {
                    s = s.plus(c.stats());
                }
            }
            return s;
        }

        @Override
        public void close() {
            for (int i = 0; i < clients.length; i++) {
                if (clients[i] != null) {
                    closedStats = closedStats.plus(clients[i].stats());
                    clients[i].close();
                    clients[i] = null;
                }
            }
        }
    }

    /** {@link Mutex}'s locks: one lock client, lock id = inode. */
    final class MutexLocks implements FsLocks {
        private final LockClient client;

        MutexLocks(LockClient client) {
            this.client = client;
        }

        @Override
        public FsGrant acquire(int inode, long start, long end, Mode mode) {
            var g = client.acquire(inode, mode);
            return new FsGrant(inode, 0, FsOptions.FILE_SPAN, g.mode(), g.fencingToken(), g);
        }

        @Override
        public void release(FsGrant grant) {
            client.release(grant.inner());
        }

        @Override
        public LockStats stats() {
            return client.stats();
        }

        @Override
        public void close() {
            client.close();
        }
    }
}
