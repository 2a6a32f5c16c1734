package io.lockfabric.apps.objstore;

import io.lockfabric.LockFabric;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client process of {@link TwoProcessObjectStoreTest}: opens store NAME on the tcp memory node
 * URI with PROTOCOL and stresses its hot keys from THREADS threads (OPS operations each), its values
 * tagged with PROCESS; prints {@code RESULT ...} and exits 0 if every get was whole, 1 if not.
 * Arguments: URI NAME PROTOCOL PROCESS THREADS OPS.
 */
public final class ObjectStoreProcessMain {
    private ObjectStoreProcessMain() {
    }

    public static void main(String[] args) throws Exception {
        java.util.logging.Logger.getLogger("io.lockfabric").setLevel(java.util.logging.Level.WARNING);
        String uri = args[0];
        String name = args[1];
        String protocol = args[2];
        long process = Long.parseLong(args[3]);
        int threads = Integer.parseInt(args[4]);
        int ops = Integer.parseInt(args[5]);
        AtomicLong foreign = new AtomicLong();
        try (LockFabric lf = LockFabric.builder(uri).poolSize(threads).open()) {
            ObjectStore store = ObjectStore.open(lf, name, ObjectStoreOptions.DEFAULTS.withProtocol(protocol)
                    .withObjects(16).withMaxValueBytes(4000));
            ObjectStoreStress.Outcome o = ObjectStoreStress.run(t -> new ObjectStoreStress.Store() {
                @Override
                public byte[] get(long key) {
                    byte[] v = store.get(key);
                    if (v != null && v.length >= 8
                            && ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getLong(0) >>> 56 != process) {
                        foreign.incrementAndGet();
                    }
                    return v;
                }

                @Override
                public void set(long key, byte[] value) {
                    // the seed's top byte names this process: the other process's gets count it as foreign
                    long seed = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).getLong(0) | process << 56;
                    store.set(key, ObjectStoreStress.value(seed, value.length));
                }
            }, threads, 3, ops, 4000, 100 + process);
            System.out.println("RESULT process " + process + ": " + o.summary() + ", " + foreign.get()
                    + " gets read the other process's value");
            System.exit(o.violations().isEmpty() ? 0 : 1);
        }
    }
}
