package io.lockfabric.bench.objstore;

import io.lockfabric.apps.objstore.ObjectStoreClient;
import io.lockfabric.apps.objstore.ObjectTrace;
import io.lockfabric.apps.objstore.StoredValue;
import io.lockfabric.bench.Operation;
import io.lockfabric.bench.Session;
import io.lockfabric.check.History;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * One client of an {@link ObjectStoreWorkload} run: its first operation loads the objects (client
 * 0, with bulk WRITEs: {@link ObjectStoreClient#bulkLoad}) or waits until they are loaded (the
 * others), every later one is a get or a set of a key the trace draws, under the key's slot lock,
 * with the value verified on every get. Values written are this client's own random bytes (a
 * different stream per client) with the set's sequence number in their first 8 bytes.
 */
final class ObjectStoreSession implements Session {
    /** How often a client waiting for the bulk load looks at the loaded word. */
    static final long LOAD_POLL_NS = 20_000;
    private final int client;
    private final ObjectStoreClient store;
    private final ObjectTrace trace;
    private final History.Recorder recorder;
    private final RandomGenerator random;
    private final LongSupplier observerNanos;
    private final ObjectStoreTrial trial;
    private final byte[] buffer;
    private long sets;
    private boolean loaded;

    ObjectStoreSession(int client, ObjectStoreClient store, ObjectTrace trace, History.Recorder recorder,
                       RandomGenerator random, LongSupplier observerNanos, ObjectStoreTrial trial) {
        this.client = client;
        this.store = store;
        this.trace = trace;
        this.recorder = recorder;
        this.random = random;
        this.observerNanos = observerNanos;
        this.trial = trial;
        this.buffer = new byte[Math.max(Long.BYTES, trace.maxValueBytes())];
        random.nextBytes(buffer);
    }

    @Override
    public void operate(Operation op) {
        long reads = store.dataReads();
        long writes = store.dataWrites();
        if (!loaded) {
            loaded = true;
            // client 0 bulk-loads every object; the others wait for it (their first operation)
            if (client != 0 || !store.bulkLoad(trace.objects(), trace::sizeOf, buffer)) {
                store.awaitLoaded(LOAD_POLL_NS);
            }
            op.granted(observerNanos.getAsLong());
            op.releasing(observerNanos.getAsLong());
            op.issued(store.dataReads() - reads, store.dataWrites() - writes);
            op.kind(ObjectStoreWorkload.SET, 0);
            return;
        }
        long key = trace.nextKey(random);
        if (key == 0) {
            op.hottest();
        }
        int kind;
        if (trace.nextIsGet(random)) {
            kind = get(key, op);
        } else {
            set(key, op);
            kind = ObjectStoreWorkload.SET;
        }
        op.issued(store.dataReads() - reads, store.dataWrites() - writes);
        op.kind(kind, 1);
    }

    private int get(long key, Operation op) {
        long slot = store.slotOf(key, false);
        if (slot < 0) {
            long now = observerNanos.getAsLong();
            op.granted(now);
            op.releasing(now);
            return ObjectStoreWorkload.MISS;
        }
        Grant g = acquire(slot, store.readMode());
        StoredValue v;
        try {
            op.granted(observerNanos.getAsLong());
            v = store.readHeld(slot, key, trace.sizeOf(key));
            op.releasing(observerNanos.getAsLong());
        } finally {
            release(g);
        }
        if (v == null) {
            return ObjectStoreWorkload.MISS;
        }
        if (!v.intact()) {
            trial.torn(slot, client, observerNanos.getAsLong(), "key " + key + ": " + v.problem());
        }
        return ObjectStoreWorkload.GET;
    }

    private void set(long key, Operation op) {
        long slot = store.slotOf(key, true);
        Grant g = acquire(slot, Mode.EXCLUSIVE);
        try {
            op.granted(observerNanos.getAsLong());
            write(slot, key);
            op.releasing(observerNanos.getAsLong());
        } finally {
            release(g);
        }
    }

    private void write(long slot, long key) {
        ByteBuffer.wrap(buffer).order(ByteOrder.LITTLE_ENDIAN).putLong(0, ++sets);
        store.writeHeld(slot, key, buffer, trace.sizeOf(key));
    }

    private Grant acquire(long slot, Mode mode) {
        if (recorder != null) {
            recorder.requesting();
        }
        Grant g = store.locks().acquire(slot, mode);
        if (recorder != null) {
            recorder.granted(g);
        }
        return g;
    }

    private void release(Grant g) {
        if (recorder != null) {
            recorder.releasing(g);
        }
        store.locks().release(g);
    }

    @Override
    public LockStats stats() {
        return store.locks().stats();
    }

    @Override
    public Optional<String> describeAddress(long address) {
        return store.locks().describeAddress(address);
    }

    @Override
    public void close() {
        store.close();
    }
}
