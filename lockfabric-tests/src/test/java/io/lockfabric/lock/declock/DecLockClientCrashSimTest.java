package io.lockfabric.lock.declock;

import org.junit.jupiter.api.Tag;

import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimProcess;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.declock.DecLockClient;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hierarchical DecLock when one client crashes but its compute node lives on (2 nodes x 3
 * clients, lease and timeout 1 ms): the crashed client holds the node's lock (as the node's CQL
 * holder, after a local handover, or sharing it), waits in the node's local queue, or waits in
 * the CQL queue for its node. The other five clients must all finish their acquisitions (a stuck
 * simulation fails the test), never overlap one another, and some client must have found the dead
 * one. (The seed sweeps in lockfabric-bench check the crashed client's own holds with the checker.)
 */
@Tag("faults")
class DecLockClientCrashSimTest {
    static final long CRASH_AT = 60_000;
    static final long WORKERS_START = 30_000;
    static final int CYCLES = 20;

    @ParameterizedTest(name = "{0}: victim {1}, helper {2}")
    @CsvSource({
            // protocol, victim's mode, helper (endpoint index, -1 none), helper's mode, helper's hold (ns)
            "declock-tf, cql-holder, EXCLUSIVE, -1, EXCLUSIVE, 0",
            "declock-pf, cql-holder, EXCLUSIVE, -1, EXCLUSIVE, 0",
            "declock-tf, handover-holder, EXCLUSIVE, 1, EXCLUSIVE, 20000",
            "declock-pf, shared-holder, SHARED, 1, SHARED, 20000",
            "declock-tf, shared-holder, SHARED, 1, SHARED, 200000",
            "declock-tf, local-waiter, EXCLUSIVE, 1, EXCLUSIVE, 200000",
            "declock-pf, local-waiter, SHARED, 1, EXCLUSIVE, 200000",
            "declock-tf, cql-waiter, EXCLUSIVE, 3, EXCLUSIVE, 200000",
            "declock-pf, cql-waiter, SHARED, 3, EXCLUSIVE, 200000",
    })
    void othersProceedAfterOneClientCrashes(String protocol, String role, Mode victimMode, int helper, Mode helperMode,
                                            long helperHoldNs) {
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger readers = new AtomicInteger();
        List<String> overlaps = new ArrayList<>();
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(3).seed(11)
                .build())) {
            var p = LockProtocols.byName(protocol);
            var options = LockOptions.parse(List.of("lease-ns=1ms", "timeout-ns=1ms"));
            List<Endpoint> endpoints = new ArrayList<>();
            List<LockClient> clients = new ArrayList<>();
            for (int c = 0; c < 6; c++) {
                Endpoint e = fabric.newEndpoint();
                assertEquals(c < 3 ? 0 : 1, e.id().node());
                endpoints.add(e);
                clients.add(p.open(e, "crash", 1, options));
            }
            // the victim is client 0 on node 0; it enters after the helper (if any) holds the lock
            SimProcess victim = (SimProcess) fabric.spawn("victim", () -> {
                endpoints.get(0).clock().sleepNanos(10_000);
                // not counted in writers/readers: its hold ends with its crash, which no code sees
                clients.get(0).acquire(0, victimMode);
                endpoints.get(0).clock().sleepNanos(1_000_000_000L); // holds until it crashes
            });
            fabric.crashAt(victim, CRASH_AT);
            List<ClientThread> threads = new ArrayList<>();
            if (helper >= 0) {
                threads.add(fabric.spawn("helper", () -> {
                    Grant g = clients.get(helper).acquire(0, helperMode);
                    enter(g, writers, readers, overlaps);
                    endpoints.get(helper).clock().sleepNanos(helperHoldNs);
                    leave(g, writers, readers);
                    clients.get(helper).release(g);
                }));
            }
            for (int c = 1; c < 6; c++) {
                if (c == helper) {
                    continue;
                }
                int me = c;
                threads.add(fabric.spawn("worker" + c, () -> {
                    endpoints.get(me).clock().sleepNanos(WORKERS_START);
                    for (int i = 0; i < CYCLES; i++) {
                        Grant g = clients.get(me).acquire(0, (i + me) % 2 == 0 ? Mode.SHARED : Mode.EXCLUSIVE);
                        enter(g, writers, readers, overlaps);
                        endpoints.get(me).clock().sleepNanos(5_000);
                        leave(g, writers, readers);
                        clients.get(me).release(g);
                    }
                }));
            }
            threads.forEach(ClientThread::join);
            assertTrue(victim.crashed(), role + ": the victim crashed (holding or waiting)");
            assertTrue(overlaps.isEmpty(), role + ": " + overlaps);
            long found = clients.stream().mapToLong(c -> ((DecLockClient) c).deadLocals()).sum();
            long resets = clients.stream().mapToLong(c -> c.stats().resets()).sum();
            System.out.printf("%s %s: dead locals found %d, resets %d, finished at %d ns%n", protocol, role, found,
                    resets, fabric.observerNanoTime());
            assertTrue(found > 0, role + ": a node-mate found the dead client and released for it");
        }
    }

    private static void enter(Grant g, AtomicInteger writers, AtomicInteger readers, List<String> overlaps) {
        if (g.mode() == Mode.EXCLUSIVE) {
            if (writers.incrementAndGet() > 1 || readers.get() > 0) {
                overlaps.add("writer entered with " + writers.get() + " writers, " + readers.get() + " readers");
            }
        } else {
            readers.incrementAndGet();
            if (writers.get() > 0) {
                overlaps.add("reader entered with " + writers.get() + " writers");
            }
        }
    }

    private static void leave(Grant g, AtomicInteger writers, AtomicInteger readers) {
        if (g.mode() == Mode.EXCLUSIVE) {
            writers.decrementAndGet();
        } else {
            readers.decrementAndGet();
        }
    }
}
