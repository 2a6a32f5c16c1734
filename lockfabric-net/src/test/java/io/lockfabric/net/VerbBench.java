package io.lockfabric.net;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A small concurrent benchmark that runs while a test attacks a server: {@code threads} endpoints
 * add 1 to one shared counter word with FAA and read it back, until stopped; {@link #stop} checks
 * that the counter holds exactly the adds that completed.
 */
final class VerbBench implements AutoCloseable {
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong ops = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final QueuePair checker;
    private final Table table;
    private volatile boolean stop;

    VerbBench(Fabric fabric, String tableName, int clients) {
        Endpoint first = fabric.newEndpoint();
        table = first.openTable(new TableSpec(tableName, "bench", 1, 64));
        checker = first.queuePair(0);
        for (int i = 0; i < clients; i++) {
            Endpoint e = i == 0 ? first : fabric.newEndpoint();
            e.openTable(new TableSpec(tableName, "bench", 1, 64));
            QueuePair qp = e.queuePair(0);
            threads.add(Thread.ofPlatform().name("verb-bench-" + i).start(() -> {
                try {
                    while (!stop) {
                        qp.faa(table.at(0), 1);
                        qp.read8(table.at(8));
                        ops.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
    }

    /** Add-and-read cycles completed so far. */
    long ops() {
        return ops.get();
    }

    /** Stops the clients and returns the cycles completed; throws what any client hit. */
    long stop() throws InterruptedException {
        stop = true;
        for (Thread t : threads) {
            t.join(10_000);
        }
        if (failure.get() != null) {
            throw new AssertionError("a bench client failed", failure.get());
        }
        long counted = checker.read8(table.at(0));
        if (counted != ops.get()) {
            throw new AssertionError("the counter holds " + counted + " adds, the clients completed " + ops.get());
        }
        return ops.get();
    }

    @Override
    public void close() {
        stop = true;
        for (Thread t : threads) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
