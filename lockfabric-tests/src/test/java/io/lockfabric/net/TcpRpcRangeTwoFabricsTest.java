package io.lockfabric.net;

import io.lockfabric.check.Hold;
import io.lockfabric.check.History;
import io.lockfabric.check.RangeExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.protocols.RangeLockProtocols;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rpc-range}'s server-side range lock manager on a tcp memory node that clients of two
 * fabrics (as of two processes: each fabric connects by URI, so the server builds the table's
 * service from the protocol's name) share: requests from both wait in one FIFO, and no two
 * conflicting ranges are ever granted together.
 */
@Tag("stress")
class TcpRpcRangeTwoFabricsTest {
    private static final RangeLockProtocol RPC_RANGE = RangeLockProtocols.byName("rpc-range");

    /**
     * Client a (fabric A) holds [0, 100); b (fabric B) asks for [50, 150) and waits; then c
     * (fabric A) asks for [140, 200), which overlaps only the waiting b: FIFO puts it behind b,
     * though nothing granted blocks it. d (fabric B) asks for [300, 400), which overlaps nothing,
     * and is granted at once. a's release grants b (not c); b's release grants c. The server
     * has one io thread, so a request whose rpc it counted is queued before the next one is read.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void grantsAreFifoAcrossClientsOfTwoFabrics() throws Exception {
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).ioThreads(1).capacityBytes(16L << 20).start();
             TcpFabric fa = TcpFabric.connect(server.uri());
             TcpFabric fb = TcpFabric.connect(server.uri())) {
            RangeLockClient a = open(fa, "fifo");
            RangeLockClient b = open(fb, "fifo");
            RangeLockClient c = open(fa, "fifo");
            RangeLockClient d = open(fb, "fifo");
            RangeGrant ga = a.acquire(0, 100, Mode.EXCLUSIVE);

            AtomicReference<RangeGrant> gb = new AtomicReference<>();
            AtomicReference<RangeGrant> gc = new AtomicReference<>();
            List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
            long rpcs = rpcs(server);
            ClientThread tb = fb.spawn("b", () -> run(failures, () -> gb.set(b.acquire(50, 150, Mode.EXCLUSIVE))));
            awaitRpcs(server, rpcs + 1);
            ClientThread tc = fa.spawn("c", () -> run(failures, () -> gc.set(c.acquire(140, 200, Mode.EXCLUSIVE))));
            awaitRpcs(server, rpcs + 2);

            RangeGrant gd = d.acquire(300, 400, Mode.EXCLUSIVE); // conflicts with nothing: granted while b, c wait
            assertNull(gb.get(), "b waits for a");
            assertNull(gc.get(), "c waits behind b though no granted range blocks it");
            d.release(gd);

            a.release(ga);
            tb.join();
            assertNotNull(gb.get(), "a's release granted b");
            assertNull(gc.get(), "b holds [50, 150), which c overlaps");
            b.release(gb.get());
            tc.join();
            assertTrue(failures.isEmpty(), failures.toString());
            assertNotNull(gc.get(), "b's release granted c");
            c.release(gc.get());
            // exclusive tokens count grants: a, d, b, c in grant order
            assertTrue(ga.fencingToken() < gd.fencingToken() && gd.fencingToken() < gb.get().fencingToken()
                    && gb.get().fencingToken() < gc.get().fencingToken(),
                    "tokens in grant order: a " + ga + ", d " + gd + ", b " + gb.get() + ", c " + gc.get());
        }
    }

    /**
     * 4 clients on each of two fabrics lock random ranges (a fifth shared) of one rpc-range table:
     * the merged history has no overlapping conflicting holds and exclusive tokens increase.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void randomRangesFromTwoFabricsNeverOverlap() {
        int perFabric = 4;
        int ops = 300;
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).start();
             TcpFabric fa = TcpFabric.connect(server.uri());
             TcpFabric fb = TcpFabric.connect(server.uri())) {
            // one clock for both fabrics' holds: both are this JVM's (System.nanoTime)
            History history = new History(System::nanoTime);
            List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
            List<ClientThread> threads = new ArrayList<>();
            for (int i = 0; i < 2 * perFabric; i++) {
                TcpFabric fabric = i < perFabric ? fa : fb;
                int client = i;
                RangeLockClient lock = open(fabric, "random");
                History.Recorder rec = history.recorder(client);
                threads.add(fabric.spawn("r" + client, () -> run(failures, () -> {
                    SplittableRandom rnd = new SplittableRandom(client * 7919L + 1);
                    for (int op = 0; op < ops; op++) {
                        long size = 1 + rnd.nextLong(64);
                        long start = rnd.nextLong(1_024 - size);
                        Mode mode = rnd.nextInt(5) == 0 ? Mode.SHARED : Mode.EXCLUSIVE;
                        rec.requesting();
                        RangeGrant g = lock.acquire(start, start + size, mode);
                        rec.granted(g);
                        rec.releasing(g);
                        lock.release(g);
                    }
                })));
            }
            threads.forEach(ClientThread::join);
            assertTrue(failures.isEmpty(), failures.toString());
            List<Hold> holds = history.holds();
            List<Violation> v = new ArrayList<>(RangeExclusionChecker.violations(holds));
            v.addAll(RangeExclusionChecker.fencing(holds));
            assertTrue(v.isEmpty(), v.toString());
            assertEquals(2L * perFabric * ops, holds.size());
            assertEquals(2L * holds.size(), rpcs(server), "one acquire and one release rpc per hold, on one server");
        }
    }

    private static RangeLockClient open(TcpFabric fabric, String table) {
        Endpoint e = fabric.newEndpoint();
        return RPC_RANGE.open(e, table, LockOptions.parse(List.of()));
    }

    private static long rpcs(TcpMemoryNode server) {
        return server.counters().ops(VerbKind.RPC);
    }

    private static void awaitRpcs(TcpMemoryNode server, long n) throws InterruptedException {
        while (rpcs(server) < n) {
            Thread.sleep(1);
        }
    }

    private static void run(List<Throwable> failures, Runnable body) {
        try {
            body.run();
        } catch (Throwable t) {
            failures.add(t);
        }
    }
}
