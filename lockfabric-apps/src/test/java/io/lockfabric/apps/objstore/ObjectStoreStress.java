package io.lockfabric.apps.objstore;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Threads that get and set a few hot keys of one store at once and verify every value they get
 * twice over: the store's own check word ({@link TornValueException}) and the bytes themselves,
 * which each set derives from a seed it writes first (so a value made of two sets' bytes shows).
 */
final class ObjectStoreStress {
    /** What a stress run did and found. */
    record Outcome(long gets, long sets, long absent, List<String> violations) {
        String summary() {
            return gets + " gets verified, " + sets + " sets, " + absent + " absent, " + violations.size()
                    + " violations" + (violations.isEmpty() ? "" : ": " + violations.subList(0, Math.min(3, violations.size())));
        }
    }

    private ObjectStoreStress() {
    }

    /** A value of {@code length} >= 8 bytes: {@code seed}, then bytes drawn from it. */
    static byte[] value(long seed, int length) {
        byte[] v = new byte[length];
        ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).putLong(0, seed);
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 8; i < length; i++) {
            v[i] = (byte) r.nextInt(256);
        }
        return v;
    }

    /** Null if {@code v} is a whole {@link #value}; otherwise what is wrong. */
    static String verify(byte[] v) {
        if (v.length < 8) {
            return "value of " + v.length + " bytes, shorter than its seed";
        }
        long seed = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        byte[] expected = value(seed, v.length);
        for (int i = 8; i < v.length; i++) {
            if (v[i] != expected[i]) {
                return "byte " + i + " of the " + v.length + "-byte value of seed " + seed + " differs";
            }
        }
        return null;
    }

    /** One client's operations: a get is verified, a set writes a seeded value. */
    interface Store {
        byte[] get(long key);

        void set(long key, byte[] value);
    }

    /**
     * Runs {@code threads} threads, each doing {@code ops} operations on keys [0, keys): half gets,
     * half sets of 8 to {@code maxBytes} bytes.
     */
    static Outcome run(java.util.function.IntFunction<Store> storeOfThread, int threads, int keys, int ops, int maxBytes,
                       long seed) throws InterruptedException {
        AtomicLong gets = new AtomicLong();
        AtomicLong sets = new AtomicLong();
        AtomicLong absent = new AtomicLong();
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            ts.add(Thread.ofPlatform().name("stress-" + t).start(() -> {
                Store store = storeOfThread.apply(id);
                SplittableRandom r = new SplittableRandom(seed * 31 + id);
                try {
                    for (int i = 0; i < ops; i++) {
                        long key = r.nextInt(keys);
                        if (r.nextBoolean()) {
                            byte[] v = store.get(key);
                            if (v == null) {
                                absent.incrementAndGet();
                            } else {
                                String problem = verify(v);
                                if (problem != null) {
                                    violations.add("key " + key + ": " + problem);
                                }
                                gets.incrementAndGet();
                            }
                        } else {
                            store.set(key, value(((long) id << 32) | i, 8 + r.nextInt(maxBytes - 7)));
                            sets.incrementAndGet();
                        }
                    }
                } catch (TornValueException e) {
                    violations.add(e.getMessage());
                } catch (RuntimeException e) {
                    violations.add("thread " + id + " failed: " + e);
                }
            }));
        }
        for (Thread t : ts) {
            t.join();
        }
        return new Outcome(gets.get(), sets.get(), absent.get(), List.copyOf(violations));
    }
}
