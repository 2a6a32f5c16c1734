package io.lockfabric.bench.fs;

import io.lockfabric.apps.fs.FsClient;
import io.lockfabric.apps.fs.FsGrant;
import io.lockfabric.bench.Operation;
import io.lockfabric.bench.Session;
import io.lockfabric.check.History;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * One client of an {@link FsWorkload} run: its first operation creates (and preallocates) the
 * trace's files; every later one is one I/O of its role in the trace (see {@link FsTrace}), whose
 * lock grant and release times the file system's observer reports. Written bytes carry a stamp in
 * every 8-byte word (BT-IO: its cycle and the word's offset; OLTP: the writer and its sequence
 * number), which reads check.
 */
final class FsSession implements Session, FsClient.Observer {
    /**
     * A paced OLTP writer whose group's reads have not moved for this long stops waiting and returns
     * without I/O (an operation of no kind, not reported): the readers have stopped at the run's end,
     * so the writer must not outlast them by more than this.
     */
    static final long READERS_IDLE_NS = 100_000L;
    /** Filebench OLTP's log-writer semaphore high-water mark, in reads. */
    static final long LOG_HIGHWATER_READS = 1_000;
    /** Filebench OLTP's data-writer semaphore high-water mark, in reads. */
    static final long DATA_HIGHWATER_READS = 2_000;
    /** How often a paced writer (or a held-back reader) looks at its group's counters. */
    static final long PACING_POLL_NS = 5_000L;

    private final int client;
    private final FsWorkload workload;
    private final FsTrace trace;
    private final FsClient fs;
    private final History.Recorder recorder;
    private final RandomGenerator random;
    private final LongSupplier observerNanos;
    private final FsTrial trial;
    private final byte[] buffer;
    private final ByteBuffer words;
    private int[] inodes;
    private Operation op;
    /** BT-IO: position in the cycle; OLTP and hard-write: this client's I/O count. */
    private long k;
    private long cycle;

    FsSession(int client, FsWorkload workload, FsClient fs, History.Recorder recorder, RandomGenerator random,
              LongSupplier observerNanos, FsTrial trial) {
        this.client = client;
        this.workload = workload;
        this.trace = workload.trace();
        this.fs = fs;
        this.recorder = recorder;
        this.random = random;
        this.observerNanos = observerNanos;
        this.trial = trial;
        long most = 0;
        for (int kind = 0; kind < trace.kinds().size(); kind++) {
            most = Math.max(most, trace.bytesOf(kind));
        }
        this.buffer = new byte[(int) most];
        this.words = ByteBuffer.wrap(buffer).order(ByteOrder.LITTLE_ENDIAN);
        fs.observer(this);
    }

    @Override
    public void requesting() {
        if (recorder != null) {
            recorder.requesting();
        }
    }

    @Override
    public void granted(FsGrant grant) {
        op.granted(observerNanos.getAsLong());
        if (recorder != null) {
            recorder.granted(grant);
        }
    }

    @Override
    public void releasing(FsGrant grant) {
        if (recorder != null) {
            recorder.releasing(grant);
        }
        op.releasing(observerNanos.getAsLong());
    }

    @Override
    public void operate(Operation op) {
        this.op = op;
        if (inodes == null) {
            setUp();
            long now = observerNanos.getAsLong();
            op.granted(now);
            op.releasing(now);
            return;
        }
        switch (trace) {
            case FsTrace.BtIo b -> btio(b);
            case FsTrace.Oltp o -> oltp(o);
            case FsTrace.HardWrite h -> hardWrite(h);
        }
    }

    /** Creates the trace's files (every client: create is create-or-open) and preallocates them (idempotent). */
    private void setUp() {
        var files = trace.files();
        int[] in = new int[files.size()];
        for (int i = 0; i < in.length; i++) {
            in[i] = fs.create(files.get(i));
            if (trace.preallocatedBytes() > 0) {
                fs.fallocate(in[i], trace.preallocatedBytes());
            }
        }
        inodes = in;
    }

    // ------------------------------------------------------------------ BT-IO

    private void btio(FsTrace.BtIo b) {
        long perPhase = (long) b.steps() * b.runsPerStep();
        boolean write = k < perPhase;
        long i = write ? k : k - perPhase;
        int step = (int) (i / b.runsPerStep());
        int run = (int) (i % b.runsPerStep());
        long offset = b.offset(client, step, run);
        int n = (int) b.granularity();
        if (write) {
            for (int w = 0; w < n; w += 8) {
                words.putLong(w, stamp(cycle, offset + w));
            }
            fs.pwrite(inodes[0], offset, buffer, 0, n);
            op.kind(FsTrace.BtIo.WRITE, 1);
        } else {
            int got = fs.pread(inodes[0], offset, buffer, 0, n);
            op.kind(FsTrace.BtIo.READ, 1);
            for (int w = 0; w < n; w += 8) {
                long want = stamp(cycle, offset + w);
                if (got != n || words.getLong(w) != want) {
                    trial.mismatch(offset, client, observerNanos.getAsLong(), "BT-IO process " + client + " read "
                            + got + " B at " + offset + ", word " + w / 8 + " is " + Long.toHexString(words.getLong(w))
                            + ", it wrote " + Long.toHexString(want));
                    break;
                }
            }
        }
        if (++k == 2 * perPhase) {
            k = 0;
            cycle++;
        }
    }

    private static long stamp(long cycle, long offset) {
        return (cycle + 1) << 48 ^ offset;
    }

    // ------------------------------------------------------------------ OLTP

    private void oltp(FsTrace.Oltp o) {
        int group = client / o.clientsPerGroup();
        int role = o.roleOf(client);
        if (role == FsTrace.Oltp.READ) {
            if (!readerMayGo(o, group)) {
                return;
            }
            int file = random.nextInt(o.dataFiles());
            long offset = random.nextLong(o.fileBytes() / o.ioBytes()) * o.ioBytes();
            int got = fs.pread(inodes[file], offset, buffer, 0, o.ioBytes());
            op.kind(FsTrace.Oltp.READ, 1);
            checkWhole(got, o.ioBytes(), inodes[file], offset);
            trial.groupReads.incrementAndGet(group);
            return;
        }
        boolean log = role == FsTrace.Oltp.LOG;
        double readsPerIo = log ? (double) o.readsPerLogWrite() * o.logWriters()
                : o.writesPerReads() == 0 ? Double.MAX_VALUE
                : (double) o.readsPerWrites() * o.dataWriters() / o.writesPerReads();
        long due = (long) Math.ceil((k + 1) * readsPerIo);
        long seen = trial.groupReads.get(group);
        long changedAt = observerNanos.getAsLong();
        while (seen < due) {
            long now = observerNanos.getAsLong();
            if (now - changedAt > READERS_IDLE_NS) { // the readers stopped: the run ends (or they stall); no I/O now
                op.granted(now);
                op.releasing(now);
                return;
            }
            fs.endpoint().clock().sleepNanos(PACING_POLL_NS);
            long r = trial.groupReads.get(group);
            if (r != seen) {
                seen = r;
                changedAt = observerNanos.getAsLong();
            }
        }
        k++;
        op.started(observerNanos.getAsLong());
        (log ? trial.groupLogWrites : trial.groupDataWrites).incrementAndGet(group);
        long stampValue = ((long) client + 1) << 32 | (k & 0xffff_ffffL);
        if (log) {
            int groups = trial.groupReads.length();
            long at = ((k - 1) * groups + group) * o.logBytes() % (o.fileBytes() / o.logBytes() * o.logBytes());
            fill(stampValue, o.logBytes());
            fs.pwrite(inodes[o.dataFiles()], at, buffer, 0, o.logBytes());
            op.kind(FsTrace.Oltp.LOG, 1);
        } else {
            int file = random.nextInt(o.dataFiles());
            long offset = random.nextLong(o.fileBytes() / o.ioBytes()) * o.ioBytes();
            fill(stampValue, o.ioBytes());
            fs.pwrite(inodes[file], offset, buffer, 0, o.ioBytes());
            op.kind(FsTrace.Oltp.WRITE, 1);
        }
    }

    /**
     * Filebench's blocking sempost: a reader does not run ahead of its group's writers by more than
     * their high-water marks ({@link #LOG_HIGHWATER_READS} reads past the log writer's next turn,
     * {@link #DATA_HIGHWATER_READS} past the data writers'), so slow writers hold the readers back. It
     * waits (unmeasured) for them; if they stop moving for {@link #READERS_IDLE_NS} (the run ends) it
     * returns without I/O. Returns whether the read may run now.
     */
    private boolean readerMayGo(FsTrace.Oltp o, int group) {
        long changedAt = observerNanos.getAsLong();
        long seen = -1;
        boolean waited = false;
        while (true) {
            long reads = trial.groupReads.get(group);
            long logs = trial.groupLogWrites.get(group);
            long data = trial.groupDataWrites.get(group);
            boolean logOk = o.logWriters() == 0
                    || reads < (logs + 1) * (long) o.readsPerLogWrite() * o.logWriters() + LOG_HIGHWATER_READS;
            boolean dataOk = o.dataWriters() == 0 || o.writesPerReads() == 0
                    || reads < (data + o.dataWriters()) * (long) o.readsPerWrites() / o.writesPerReads() + DATA_HIGHWATER_READS;
            if (logOk && dataOk) {
                if (waited) {
                    op.started(observerNanos.getAsLong());
                }
                return true;
            }
            long now = observerNanos.getAsLong();
            if (logs + data != seen) {
                seen = logs + data;
                changedAt = now;
            } else if (now - changedAt > READERS_IDLE_NS) {
                op.granted(now);
                op.releasing(now);
                return false;
            }
            waited = true;
            fs.endpoint().clock().sleepNanos(PACING_POLL_NS);
        }
    }

    private void fill(long stampValue, int n) {
        for (int w = 0; w < n; w += 8) {
            words.putLong(w, stampValue);
        }
    }

    /** An aligned block is one write's whole: every word carries one stamp (0 if never written). */
    private void checkWhole(int got, int n, int inode, long offset) {
        long first = words.getLong(0);
        for (int w = 8; w < n; w += 8) {
            if (got != n || words.getLong(w) != first) {
                trial.mismatch(offset, client, observerNanos.getAsLong(), "OLTP reader " + client + " read a torn block"
                        + " at " + offset + " of inode " + inode + ": word 0 is " + Long.toHexString(first) + ", word "
                        + w / 8 + " is " + Long.toHexString(words.getLong(w)) + " (" + got + " B read)");
                return;
            }
        }
    }

    // ------------------------------------------------------------------ IO500 hard-write

    private void hardWrite(FsTrace.HardWrite h) {
        long offset = h.offset(client, workload.clients(), k++);
        if (h.data()) {
            fill(((long) client + 1) << 32 | (k & 0xffff_ffffL), h.writeBytes());
            fs.pwrite(inodes[0], offset, buffer, 0, h.writeBytes());
        } else {
            fs.lockOnly(inodes[0], offset, offset + h.writeBytes(), Mode.EXCLUSIVE);
        }
        op.kind(FsTrace.HardWrite.WRITE, 1);
    }

    @Override
    public LockStats stats() {
        return fs.lockStats();
    }

    @Override
    public void close() {
        fs.close();
    }
}
