package io.lockfabric.examples;

import io.lockfabric.Held;
import io.lockfabric.LockFabric;
import io.lockfabric.LockSpace;
import io.lockfabric.RangeSpace;
import io.lockfabric.lock.Mode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * A complete program on the client API, the one the README's "Using LockFabric from Java" quotes:
 * an order store whose writes carry fencing tokens, a stock counter that threads (platform and
 * virtual) increment under one lock, and a range lock on a file.
 *
 * <pre>
 * java -cp ... io.lockfabric.examples.OrdersExample                        # the in-process fabric
 * java -cp ... io.lockfabric.examples.OrdersExample tcp://127.0.0.1:7420   # a lockfabric serve
 * </pre>
 *
 * <p>It checks what it relies on and throws (so {@code java} exits with status 1) if anything is
 * wrong: the counter is exact, fencing tokens increase from one holder to the next, a write with a
 * stale token is refused. It prints {@value #OK_LINE} and the address when all held.
 */
public final class OrdersExample {
    /** The last line's start when every check passed. */
    public static final String OK_LINE = "OrdersExample: ok on ";
    /** Platform threads and virtual threads each incrementing the stock counter. */
    static final int THREADS_OF_EACH_KIND = 4;
    /** Increments of the stock counter per thread. */
    static final int INCREMENTS = 100;
    /** Writes of one order per thread, each under its own exclusive hold. */
    static final int WRITES = 20;

    private OrdersExample() {
    }

    /**
     * A store that keeps, per key, the value of the newest writer and refuses a write whose fencing
     * token is not above the last one it accepted: a holder that lost its lock (paused past its
     * lease) cannot overwrite what the next holder wrote.
     */
    static final class Store {
        private final Map<String, Long> lastToken = new HashMap<>();
        private final Map<String, String> values = new HashMap<>();

        synchronized void write(String key, String value, long token) {
            Long last = lastToken.get(key);
            if (last != null && token <= last) {
                throw new IllegalStateException("stale fencing token " + token + " for " + key + " (last " + last + ")");
            }
            lastToken.put(key, token);
            values.put(key, value);
        }

        synchronized String read(String key) {
            return values.get(key);
        }
    }

    /** A counter with no synchronization of its own: only the lock makes its increments exact. */
    private static final class Unguarded {
        long value;
    }

    /**
     * Runs the example on the fabric at {@code args[0]} ({@code local} if none).
     *
     * @throws IllegalStateException if a check fails
     */
    public static void main(String[] args) throws Exception {
        String address = args.length > 0 ? args[0] : "local";
        Store store = new Store();
        String value = "paid";
        // --- README: Using LockFabric from Java
        try (LockFabric lf = LockFabric.open(address)) {              // "local" or "tcp://127.0.0.1:7420"
            LockSpace orders = lf.lockSpace("orders");                 // or lockSpace(name, SpaceOptions)
            ReadWriteLock rw = orders.readWriteLock("order:42");       // java.util.concurrent.locks
            Lock m = orders.lock("inventory");                         // exclusive, reentrant, thread-owned
            m.lock();
            try {
                rw.readLock().lock();
                rw.readLock().unlock();
            } finally {
                m.unlock();
            }
            try (Held h = orders.acquire("order:42")) {                // exclusive; acquire(key, Mode) for shared
                store.write("order:42", value, h.fencingToken());
            }
            Optional<Held> maybe = orders.tryAcquire("order:43", Mode.SHARED, Duration.ofMillis(50));
            maybe.ifPresent(Held::close);
            CompletableFuture<Held> later = orders.acquireAsync("order:44", Mode.EXCLUSIVE);
            later.thenAccept(Held::close).get(10, TimeUnit.SECONDS);
            RangeSpace file = lf.rangeSpace("file:/data/a");           // CITRON by default
            try (Held r = file.acquire(4096, 8192)) {                  // [start, end), exclusive
                check(r.isValid(), "a fresh range hold is valid");
            }
            // --- end of the README's excerpt
            check(value.equals(store.read("order:42")), "the store holds the value written under the lock");
            countUnderOneLock(m);
            fencingTokensIncrease(orders, store);
            System.out.println(orders.stats());
        }
        System.out.println(OK_LINE + address);
    }

    /** Platform and virtual threads increment one unguarded counter under {@code m}: the count is exact. */
    private static void countUnderOneLock(Lock m) throws InterruptedException {
        Unguarded stock = new Unguarded();
        Runnable work = () -> {
            for (int i = 0; i < INCREMENTS; i++) {
                m.lock();
                try {
                    stock.value++;
                } finally {
                    m.unlock();
                }
            }
        };
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS_OF_EACH_KIND; t++) {
            threads.add(Thread.ofPlatform().name("stock-" + t).start(work));
            threads.add(Thread.ofVirtual().name("stock-v" + t).start(work));
        }
        for (Thread t : threads) {
            t.join();
        }
        long expected = 2L * THREADS_OF_EACH_KIND * INCREMENTS;
        check(stock.value == expected, "the stock counter is " + stock.value + ", expected " + expected);
        System.out.println("stock counter: " + stock.value + " increments by " + threads.size() + " threads, exact");
    }

    /**
     * Threads write one order in turn, each under its own exclusive hold: the store accepts every
     * write (each token above the last), and refuses a replay of the first holder's write.
     */
    private static void fencingTokensIncrease(LockSpace orders, Store store) throws Exception {
        long first;
        try (Held h = orders.acquire("order:7")) {
            first = h.fencingToken();
            store.write("order:7", "created", first);
        }
        try (ExecutorService writers = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS_OF_EACH_KIND; t++) {
                int writer = t;
                done.add(writers.submit(() -> {
                    for (int i = 0; i < WRITES; i++) {
                        try (Held h = orders.acquire("order:7")) {
                            store.write("order:7", "update " + writer + "." + i, h.fencingToken());
                        }
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS); // a refused write comes out here, as an ExecutionException
            }
        }
        boolean refused = false;
        try {
            store.write("order:7", "a late write of the first holder", first);
        } catch (IllegalStateException expected) {
            refused = true;
        }
        check(refused, "the store refuses a write with the first holder's token " + first);
        System.out.println("fencing tokens: " + (1 + THREADS_OF_EACH_KIND * WRITES)
                + " holders wrote order:7 with increasing tokens; a stale token was refused");
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("OrdersExample failed: " + what);
        }
    }
}
