package io.lockfabric.lock.citron;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.Table;

import java.util.HashMap;
import java.util.Map;

/**
 * CITRON's background maximizer poller, one per client machine and table (FAST'23 §4.5: "each
 * client machine runs a background thread that polls the maximizer once per 10 ms and scales up
 * the lock tree whenever necessary"). A machine is a compute node as the fabric gives it out
 * ({@link Endpoint#computeNode()}: the one node of the local fabric, a simulated compute node, one
 * process on tcp); the running pollers are kept in its attachments. The first citron client of a table on a machine with a finite
 * {@code scale-poll-ns} starts it ({@link #join}); the others share it; the last to close stops
 * it.
 *
 * <p>It runs as {@link Fabric#spawn} runs clients: a platform thread on the local and tcp fabrics,
 * a simulated process in virtual time on the simulator (deterministic: one seed, one run). It has
 * an endpoint of its own ({@link Fabric#newEndpointBeside}: the first client's compute node and
 * clock, taking no client's place) and a scaler of its own (a {@link CitronClient} that never
 * acquires), so no client thread runs a scale-up and clients may hold grants meanwhile. Every
 * period it sleeps, then READs the maximizer and the configuration word in one round trip; if a
 * request reached past the tree it runs {@link CitronClient#scaleUp} (Algorithm 4). Cost per
 * machine and table: one thread (or simulated process), and one 2-READ round trip to the memory
 * node per period; nothing on the lock path. It ends at its first wake-up after the last client
 * closed, or at its first fabric error (the fabric closing under clients never closed); an error
 * while clients are open is kept for {@link #failure()}. Thread-safe.
 */
final class CitronScalePoller {
    private record Key(int memoryNode, String table) {
    }

    /**
     * The running pollers of one compute node, by table; a poller removes itself when it ends. Its
     * monitor guards them and their client counts.
     */
    private static final class Running {
        private final Map<Key, CitronScalePoller> byTable = new HashMap<>();
    }

    private final Running running;
    private final Key key;
    private final ClientThread thread;
    private int clients;
    /** The client that started it: the one its scale-ups are counted for. */
    private Object owner;
    private volatile boolean stopped;
    private volatile long scaleUps;
    private volatile long polls;
    private volatile long interruptedScaleUps;
    private volatile RuntimeException failure;

    private CitronScalePoller(Running running, Key key, Endpoint beside, Table table, CitronLayout base,
                              CitronClient.Params scalerParams, long periodNs) {
        this.running = running;
        this.key = key;
        Fabric fabric = beside.fabric();
        Endpoint own = fabric.newEndpointBeside(beside);
        this.thread = fabric.spawn("citron-scale-poller-" + key.table() + "-cn" + beside.id().node(),
                () -> run(own, table, base, scalerParams, periodNs));
    }

    /**
     * The poller of {@code client}'s machine for {@code table}, started if there is none; the
     * caller must {@link #leave} it when it closes. {@code scalerParams} must have no poll period
     * of their own (the scaler never polls).
     */
    static CitronScalePoller join(Object joiner, Endpoint client, Table table, CitronLayout base,
                                  CitronClient.Params scalerParams, long periodNs) {
        Running running = client.computeNode().computeIfAbsent(Running.class, Running::new);
        Key key = new Key(table.memoryNode(), table.spec().name());
        synchronized (running) {
            CitronScalePoller p = running.byTable.get(key);
            if (p == null || p.stopped) {
                p = new CitronScalePoller(running, key, client, table, base, scalerParams, periodNs);
                p.owner = joiner;
                running.byTable.put(key, p);
            }
            p.clients++;
            return p;
        }
    }

    /** A client of this poller closed; the last one stops it (at its next wake-up). */
    void leave() {
        synchronized (running) {
            if (--clients == 0) {
                stopped = true;
                forget();
            }
        }
    }

    private void forget() {
        synchronized (running) {
            running.byTable.remove(key, this);
        }
    }

    private void run(Endpoint own, Table table, CitronLayout base, CitronClient.Params params, long periodNs) {
        try {
            CitronClient scaler = new CitronClient(own, table, base, params);
            while (!stopped) {
                own.clock().sleepNanos(periodNs);
                if (stopped) {
                    break;
                }
                polls++;
                if (scaler.scaleUpWanted()) {
                    scaler.scaleUp();
                    scaleUps = scaler.scaleUps();
                    interruptedScaleUps = scaler.interruptedScaleUps();
                }
            }
            own.close();
        } catch (RuntimeException e) {
            if (!stopped) {
                failure = e; // most often the fabric closing under clients that were never closed
            }
        } finally {
            stopped = true;
            forget(); // also when the simulator tears the process down
        }
    }

    /** Whether {@code client} started this poller (its scale-ups count as that client's). */
    boolean startedBy(Object client) {
        synchronized (running) {
            return owner == client;
        }
    }

    /** Scale-ups this poller performed. */
    long scaleUps() {
        return scaleUps;
    }

    /** Scale-ups this poller completed after another scaler's crash. */
    long interruptedScaleUps() {
        return interruptedScaleUps;
    }

    /** Maximizer polls so far. */
    long polls() {
        return polls;
    }

    /** What ended the poller while clients were open, or null. */
    RuntimeException failure() {
        return failure;
    }

    /** The poller's thread of control. */
    ClientThread thread() {
        return thread;
    }
}
