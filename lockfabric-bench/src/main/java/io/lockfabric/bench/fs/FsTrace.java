package io.lockfabric.bench.fs;

import java.util.List;
import java.util.Locale;

/**
 * The file-system workloads CitronFS runs (CITRON FAST'23 §4.3, §4.5), as our own generators: what
 * files a run has, what each client's role is and which I/O it does next. Immutable values; the
 * per-client state lives in {@link FsSession}.
 */
public sealed interface FsTrace {
    /** The name: {@code btio}, {@code oltp}, {@code hardwrite}. */
    String name();

    /** The kinds of operations, in {@link io.lockfabric.bench.Operation#kind} order. */
    List<String> kinds();

    /** Bytes one operation of kind {@code kind} moves. */
    long bytesOf(int kind);

    /** The files, by name, in inode order of first creation. */
    List<String> files();

    /** Bytes each file is preallocated with (0: none, the file grows with its writes). */
    long preallocatedBytes();

    /** The largest file the run needs, in bytes (the file system is sized for it). */
    long maxFileBytes();

    /** The range-lock granularity the paper gives static segmentation for this workload, bytes. */
    long granularity();

    /** One line for headers. */
    String describe();

    /**
     * BT-IO class D (NAS Parallel Benchmarks): the solution array, {@code nx * ny * nz} cells of
     * five doubles (40 B) in x-fastest order, appended to one shared file every output step; each of
     * {@code processes} = q^2 processes owns an x-slab of {@code nx / q} cells and a y-slab of
     * {@code ny / q} rows (all z), so its writes are runs of {@code nx / q * 40} bytes (class D's
     * nx = 408: 16 320 B for 1 process, 2 040 B for 64), interleaved with the other processes' and
     * never overlapping. A process writes its runs of every step in order, then reads them all back
     * and checks them (BT-IO's verification), then starts over (the same offsets, new contents).
     */
    record BtIo(int processes, int nx, int ny, int nz, int steps) implements FsTrace {
        public static final int CELL_BYTES = 40;
        /** Class D's x (and y, z) dimension. */
        public static final int CLASS_D_NX = 408;
        public static final int WRITE = 0;
        public static final int READ = 1;

        public BtIo {
            int q = side(processes);
            if (nx % q != 0 || ny % q != 0 || nz < 1 || steps < 1) {
                throw new IllegalArgumentException("BT-IO needs nx and ny divisible by sqrt(processes) = " + q
                        + " and nz, steps >= 1; got " + nx + " x " + ny + " x " + nz + ", " + steps + " steps");
            }
        }

        /** Class D's x dimension and granularity, a reduced y-z plane of {@code rows x rows} and {@code steps} steps. */
        public static BtIo classD(int processes, int rows, int steps) {
            return new BtIo(processes, CLASS_D_NX, rows, rows, steps);
        }

        static int side(int processes) {
            int q = (int) Math.round(Math.sqrt(processes));
            if (processes < 1 || q * q != processes) {
                throw new IllegalArgumentException("BT-IO runs on a square number of processes, got " + processes);
            }
            return q;
        }

        public int side() {
            return side(processes);
        }

        /** Bytes of one contiguous run (one I/O). */
        @Override
        public long granularity() {
            return (long) nx / side() * CELL_BYTES;
        }

        /** Runs per process per step. */
        public int runsPerStep() {
            return ny / side() * nz;
        }

        public long stepBytes() {
            return (long) nx * ny * nz * CELL_BYTES;
        }

        /** The offset of process {@code p}'s run {@code r} of step {@code step}. */
        public long offset(int p, int step, int r) {
            int q = side();
            int px = p % q;
            int py = p / q;
            int rowsPerProcess = ny / q;
            int z = r / rowsPerProcess;
            int y = py * rowsPerProcess + r % rowsPerProcess;
            long cell = ((long) z * ny + y) * nx + (long) px * (nx / q);
            return step * stepBytes() + cell * CELL_BYTES;
        }

        @Override
        public String name() {
            return "btio";
        }

        @Override
        public List<String> kinds() {
            return List.of("write", "read");
        }

        @Override
        public long bytesOf(int kind) {
            return granularity();
        }

        @Override
        public List<String> files() {
            return List.of("btio.out");
        }

        @Override
        public long preallocatedBytes() {
            return 0;
        }

        @Override
        public long maxFileBytes() {
            return steps * stepBytes();
        }

        @Override
        public String describe() {
            return String.format(Locale.ROOT, "BT-IO class D: %d processes, %d x %d x %d cells, %d steps (%.1f MB file), "
                    + "%d B per I/O", processes, nx, ny, nz, steps, maxFileBytes() / 1e6, granularity());
        }
    }

    /**
     * Filebench OLTP, distributed (CITRON §4.3.2): {@code dataFiles} data files and one log file of
     * {@code fileBytes} each, preallocated. Each group of {@link #clientsPerGroup()} clients (one per
     * client machine) runs {@code logWriters} log writers, {@code dataWriters} data writers and
     * {@code readers} readers: readers READ {@code ioBytes} at a random aligned offset of a random data
     * file; per {@code readsPerWrites} reads of their group the data writers together write
     * {@code writesPerReads} random aligned {@code ioBytes} blocks spread over the data files; per
     * {@code readsPerLogWrite} reads the log writer appends {@code logBytes} to the log (wrapping at
     * its end). Writers wait for their turn (paced by the group's reads, as Filebench's flowop
     * events); the wait is not part of their latency, and a writer whose group's reads stop moving for
     * 100 µs gives its turn up (the run is ending). Readers in turn do not run ahead of their group's
     * writers by more than Filebench's high-water marks (1 000 reads past the log writer's next turn,
     * 2 000 past the data writers'), as its blocking sempost holds them: slow writers slow the readers.
     */
    record Oltp(int dataFiles, long fileBytes, int logWriters, int dataWriters, int readers, int ioBytes, int logBytes,
                int writesPerReads, int readsPerWrites, int readsPerLogWrite) implements FsTrace {
        public static final int READ = 0;
        public static final int WRITE = 1;
        public static final int LOG = 2;

        public Oltp {
            if (dataFiles < 1 || fileBytes < ioBytes || fileBytes < logBytes || readers < 1 || dataWriters < 0
                    || logWriters < 0 || ioBytes < 1 || logBytes < 1 || writesPerReads < 0 || readsPerWrites < 1
                    || readsPerLogWrite < 1 || fileBytes % ioBytes != 0) {
                throw new IllegalArgumentException("a bad OLTP shape: " + dataFiles + " files of " + fileBytes + " B, "
                        + readers + " readers, " + dataWriters + " writers, " + logWriters + " log writers");
            }
        }

        /** The paper's: 10 data files and a log of 10 MB; 1 log writer, 10 data writers, 50 readers per client machine. */
        public static Oltp paper() {
            return new Oltp(10, 10L << 20, 1, 10, 50, 8192, 256 * 1024, 100, 1000, 3200);
        }

        public int clientsPerGroup() {
            return logWriters + dataWriters + readers;
        }

        /** The role of client {@code client}: LOG, WRITE or READ. */
        public int roleOf(int client) {
            int i = client % clientsPerGroup();
            return i < logWriters ? LOG : i < logWriters + dataWriters ? WRITE : READ;
        }

        @Override
        public String name() {
            return "oltp";
        }

        @Override
        public List<String> kinds() {
            return List.of("read", "write", "log");
        }

        @Override
        public long bytesOf(int kind) {
            return kind == LOG ? logBytes : ioBytes;
        }

        @Override
        public List<String> files() {
            List<String> f = new java.util.ArrayList<>();
            for (int i = 0; i < dataFiles; i++) {
                f.add("oltp-data-" + i);
            }
            f.add("oltp-log");
            return f;
        }

        @Override
        public long preallocatedBytes() {
            return fileBytes;
        }

        @Override
        public long maxFileBytes() {
            return fileBytes;
        }

        @Override
        public long granularity() {
            return 4096;
        }

        @Override
        public String describe() {
            return String.format(Locale.ROOT, "Filebench OLTP: %d data files + 1 log of %.0f MB; per group %d log writer, "
                            + "%d data writers, %d readers; %d B reads, %d writes per %d reads, a %d B log write per %d reads",
                    dataFiles, fileBytes / 1e6, logWriters, dataWriters, readers, ioBytes, writesPerReads, readsPerWrites,
                    logBytes, readsPerLogWrite);
        }
    }

    /**
     * IO500 hard-write: {@code threads} threads append {@code writeBytes} writes to one shared file,
     * thread t's k-th at {@code (k * threads + t) * writeBytes}: the file grows without end. With
     * {@code data} the writes are real (offsets wrap at {@code wrapBytes}, rounded down to whole
     * rounds, so memory stays bounded); without, only the range lock is taken and released, as the
     * paper's scale-up experiment (Fig. 10), and offsets never wrap.
     */
    record HardWrite(int writeBytes, boolean data, long wrapBytes) implements FsTrace {
        public static final int IO500_WRITE_BYTES = 47_008;
        public static final int WRITE = 0;

        public HardWrite {
            if (writeBytes < 1 || (data && wrapBytes < writeBytes)) {
                throw new IllegalArgumentException("hard-write needs writes >= 1 B and a wrap of at least one write");
            }
        }

        /** The offset of the {@code k}-th write of thread {@code t} of {@code threads}. */
        public long offset(int t, int threads, long k) {
            long at = (k * threads + t) * (long) writeBytes;
            if (!data) {
                return at;
            }
            long round = (long) threads * writeBytes;
            long wrap = Math.max(round, wrapBytes / round * round);
            return at % wrap;
        }

        @Override
        public String name() {
            return "hardwrite";
        }

        @Override
        public List<String> kinds() {
            return List.of("write");
        }

        @Override
        public long bytesOf(int kind) {
            return writeBytes;
        }

        @Override
        public List<String> files() {
            return List.of("hardwrite.out");
        }

        @Override
        public long preallocatedBytes() {
            return 0;
        }

        @Override
        public long maxFileBytes() {
            return data ? wrapBytes + writeBytes : io.lockfabric.apps.fs.FsOptions.FILE_SPAN;
        }

        @Override
        public long granularity() {
            return writeBytes;
        }

        @Override
        public String describe() {
            return String.format(Locale.ROOT, "IO500 hard-write: %d B appends to one shared file, %s", writeBytes,
                    data ? String.format(Locale.ROOT, "real writes wrapping at %.0f MB", wrapBytes / 1e6) : "lock only");
        }
    }
}
