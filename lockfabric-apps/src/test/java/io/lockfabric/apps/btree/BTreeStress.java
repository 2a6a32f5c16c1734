package io.lockfabric.apps.btree;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A concurrent run on any fabric, then the check: clients increment keys (read-modify-write under the
 * leaf lock, inserting absent keys with 1) or search them, on a tree bulk-loaded with every
 * {@code loadEvery}-th key at 0; afterwards the full scan must hold exactly the loaded keys and the
 * incremented ones, each with its number of increments, and the structure must check out.
 */
final class BTreeStress {
    private BTreeStress() {
    }

    record Outcome(BTreeCheck check, long increments, long searches, long splits) {
    }

    static Outcome run(Fabric fabric, String name, BTreeOptions options, int clients, int opsPerClient, int keys,
                       int loadEvery, double searchRatio, long seed) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Endpoint loader = fabric.newEndpoint();
        join(List.of(fabric.spawn(name + "-loader", guard(failure, () -> {
            try (BTreeClient c = BTreeClient.open(loader, name, options)) {
                List<Long> loaded = new ArrayList<>();
                for (long k = 0; loadEvery > 0 && k < keys; k += loadEvery) {
                    loaded.add(k);
                }
                c.load(loaded.stream().mapToLong(Long::longValue).toArray(), new long[loaded.size()]);
            }
        }))));
        rethrow(failure);
        long[][] counts = new long[clients][keys];
        long[] searches = new long[clients];
        long[] splits = new long[clients];
        List<Endpoint> endpoints = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            endpoints.add(fabric.newEndpoint());
        }
        List<ClientThread> threads = new ArrayList<>();
        SplittableRandom seeds = new SplittableRandom(seed);
        for (int i = 0; i < clients; i++) {
            int me = i;
            SplittableRandom random = seeds.split();
            threads.add(fabric.spawn(name + "-client-" + i, guard(failure, () -> {
                try (BTreeClient c = BTreeClient.open(endpoints.get(me), name, options)) {
                    for (int op = 0; op < opsPerClient; op++) {
                        // skewed: half the operations on the first eighth of the keys
                        int k = random.nextBoolean() ? random.nextInt(Math.max(1, keys / 8)) : random.nextInt(keys);
                        if (random.nextDouble() < searchRatio) {
                            c.search(k).ifPresent(v -> assertTrue(v >= 0, "a value read is a count"));
                            searches[me]++;
                        } else {
                            c.merge(k, 1, v -> v + 1);
                            counts[me][k]++;
                        }
                    }
                    splits[me] = c.splits();
                }
            })));
        }
        join(threads);
        rethrow(failure);
        AtomicReference<BTreeCheck> check = new AtomicReference<>();
        Endpoint checker = fabric.newEndpoint();
        join(List.of(fabric.spawn(name + "-checker", guard(failure, () -> {
            try (BTreeClient c = BTreeClient.open(checker, name, options)) {
                check.set(c.check());
            }
        }))));
        rethrow(failure);
        BTreeCheck result = check.get();
        assertTrue(result.ok(), name + ": " + result);
        List<Long> expectedKeys = new ArrayList<>();
        List<Long> expectedValues = new ArrayList<>();
        long increments = 0;
        for (int k = 0; k < keys; k++) {
            long n = 0;
            for (long[] perClient : counts) {
                n += perClient[k];
            }
            increments += n;
            if (n > 0 || (loadEvery > 0 && k % loadEvery == 0)) {
                expectedKeys.add((long) k);
                expectedValues.add(n);
            }
        }
        assertEquals(expectedKeys, boxed(result.keys()), name + ": the scan holds exactly the keys loaded and inserted");
        assertEquals(expectedValues, boxed(result.values()), name + ": each key holds its number of increments");
        long totalSplits = 0;
        for (long s : splits) {
            totalSplits += s;
        }
        long totalSearches = 0;
        for (long s : searches) {
            totalSearches += s;
        }
        return new Outcome(result, increments, totalSearches, totalSplits);
    }

    private static List<Long> boxed(long[] a) {
        List<Long> l = new ArrayList<>(a.length);
        for (long v : a) {
            l.add(v);
        }
        return l;
    }

    private static Runnable guard(AtomicReference<Throwable> failure, Runnable body) {
        return () -> {
            try {
                body.run();
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        };
    }

    private static void join(List<ClientThread> threads) {
        for (ClientThread t : threads) {
            t.join();
        }
    }

    private static void rethrow(AtomicReference<Throwable> failure) {
        Throwable t = failure.get();
        if (t != null) {
            throw new AssertionError("a client failed: " + t, t);
        }
    }
}
