package io.lockfabric.bench.txn;

import io.lockfabric.bench.Operation;
import io.lockfabric.bench.Session;
import io.lockfabric.check.History;
import io.lockfabric.fabric.Clock;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;
import io.lockfabric.txn.Transaction;
import io.lockfabric.txn.TxnWorkload;

import java.util.Arrays;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * One client of a {@link TransactionWorkload} run: an operation draws a transaction, merges and
 * sorts its lock ids, takes them in ascending order, spends the transaction's work, and releases
 * them (two-phase locking), then reports the transaction's type and its lock count.
 */
final class TransactionSession implements Session {
    private final LockClient client;
    private final Clock clock;
    private final boolean spin;
    private final TxnWorkload generator;
    private final TransactionWorkload workload;
    private final History.Recorder recorder;
    private final RandomGenerator random;
    private final LongSupplier observerNanos;
    private long[] ids = new long[16];
    private boolean[] exclusive = new boolean[16];
    private Grant[] grants = new Grant[16];

    TransactionSession(LockClient client, Clock clock, boolean spin, TransactionWorkload workload,
                       History.Recorder recorder, RandomGenerator random, LongSupplier observerNanos) {
        this.client = client;
        this.clock = clock;
        this.spin = spin;
        this.generator = workload.generator();
        this.workload = workload;
        this.recorder = recorder;
        this.random = random;
        this.observerNanos = observerNanos;
    }

    @Override
    public void operate(Operation op) {
        Transaction tx = generator.next(random);
        int n = prepare(tx);
        int held = 0;
        try {
            for (; held < n; held++) {
                if (recorder != null) {
                    recorder.requesting();
                }
                grants[held] = client.acquire(ids[held], exclusive[held] ? Mode.EXCLUSIVE : Mode.SHARED);
                if (recorder != null) {
                    recorder.granted(grants[held]);
                }
            }
            op.granted(observerNanos.getAsLong());
            spend(workload.workOf(tx.workNs()));
        } finally {
            op.releasing(observerNanos.getAsLong());
            for (int i = held - 1; i >= 0; i--) {
                if (recorder != null) {
                    recorder.releasing(grants[i]);
                }
                client.release(grants[i]);
                grants[i] = null;
            }
        }
        op.kind(tx.type(), n);
    }

    /**
     * The transaction's lock ids sorted into {@link #ids}, a lock wanted twice kept once in the
     * stronger mode; the number of distinct locks.
     */
    private int prepare(Transaction tx) {
        long[] raw = tx.lockIds();
        int m = raw.length;
        if (ids.length < m) {
            ids = new long[m];
            exclusive = new boolean[m];
            grants = new Grant[m];
        }
        // encode (id, mode) so one sort orders ids, and a lock's exclusive request comes first
        long[] keys = new long[m];
        for (int i = 0; i < m; i++) {
            boolean x = tx.locks().get(i).mode() == Mode.EXCLUSIVE;
            keys[i] = raw[i] * 2 + (x ? 0 : 1);
        }
        Arrays.sort(keys);
        int n = 0;
        for (int i = 0; i < m; i++) {
            long id = keys[i] >>> 1;
            if (n > 0 && ids[n - 1] == id) {
                continue; // the first of a lock's requests is its strongest
            }
            ids[n] = id;
            exclusive[n] = (keys[i] & 1) == 0;
            n++;
        }
        return n;
    }

    private void spend(long ns) {
        if (ns <= 0) {
            return;
        }
        if (spin) {
            long end = clock.nanoTime() + ns;
            while (clock.nanoTime() < end) {
                Thread.onSpinWait();
            }
        } else {
            clock.sleepNanos(ns);
        }
    }

    @Override
    public LockStats stats() {
        return client.stats();
    }

    @Override
    public Optional<String> describeAddress(long address) {
        return client.describeAddress(address);
    }

    @Override
    public void close() {
        client.close();
    }
}
