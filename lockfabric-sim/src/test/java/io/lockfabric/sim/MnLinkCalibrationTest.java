package io.lockfabric.sim;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The memory node's link model ({@link SimConfig#mnLinkGbps()}), calibrated on DecLock's testbed
 * ({@link SimConfig#DECLOCK_TESTBED_MN_LINK_GBPS}): large transfers saturate at the link rate,
 * small verbs stay bound by the NIC's verb rate, and a message costs exactly its wire bytes.
 */
@Tag("experiments")
class MnLinkCalibrationTest {
    /** The large Twitter trace's mean object (DecLock §6, the object store): 9 213 B, rounded to 9 KiB. */
    private static final int LARGE = 9 * 1024;
    private static final long WARMUP_NS = 100_000;
    private static final double GBPS = SimConfig.DECLOCK_TESTBED_MN_LINK_GBPS;

    /** What a closed-loop run of one verb per client measured over its window. */
    private record Measured(long verbs, long windowNs, NicQueueing nic) {
        double perSecond() {
            return verbs * 1e9 / windowNs;
        }
    }

    /**
     * {@code cfg}'s clients, each running {@code verb} on its own {@code bytes} in a loop; counts the
     * verbs completed in a window of {@code windowNs} after a warmup.
     */
    private static Measured run(SimConfig cfg, int bytes, long windowNs, BiConsumer<QueuePair, Long> verb) {
        try (SimFabric fabric = new SimFabric(cfg)) {
            int clients = cfg.clients();
            long start = fabric.observerNanoTime();
            long from = start + WARMUP_NS;
            long to = from + windowNs;
            AtomicLong done = new AtomicLong();
            List<ClientThread> threads = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                Endpoint e = fabric.newEndpoint();
                Table t = e.openTable(new TableSpec("objects", "test", clients, (long) bytes * clients));
                long object = t.address() + (long) bytes * i;
                threads.add(fabric.spawn("c" + i, () -> {
                    while (fabric.observerNanoTime() < to) {
                        verb.accept(e.queuePair(0), object);
                        long now = fabric.observerNanoTime();
                        if (now > from && now <= to) {
                            done.incrementAndGet();
                        }
                    }
                }));
            }
            fabric.runUntil(() -> false, from, "warmup");
            fabric.trackMemoryNodeQueueing(true);
            fabric.runUntil(() -> false, to, "window");
            NicQueueing nic = fabric.memoryNodeQueueing(0, 0);
            threads.forEach(ClientThread::join);
            return new Measured(done.get(), windowNs, nic);
        }
    }

    private static SimConfig cluster(int cns, int perCn, double gbps) {
        return SimConfig.builder().computeNodes(cns).clientsPerComputeNode(perCn).mnLinkGbps(gbps).seed(3).build();
    }

    @Test
    void largeReadsSaturateAtTheLinkRate() {
        Measured on = run(cluster(2, 16, GBPS), LARGE, 500_000, (qp, a) -> qp.read(a, LARGE));
        long wire = MemoryNodeLink.replyBytes(new io.lockfabric.fabric.Verb.Read(0, LARGE));
        double wireGbps = on.perSecond() * wire * 8 / 1e9;
        assertEquals(GBPS, wireGbps, GBPS * 0.02, "9 KiB READs, 32 clients: " + wireGbps + " Gb/s on the wire");
        double payloadGbps = on.perSecond() * LARGE * 8 / 1e9;
        assertTrue(payloadGbps > GBPS * 0.97 && payloadGbps < GBPS, "payload " + payloadGbps + " Gb/s");
        assertEquals(1.0, on.nic().linkOutboundBusyFraction(), 0.02, "outbound link busy");
        assertTrue(on.nic().linkInboundBusyFraction() < 0.05, "inbound carries only requests: "
                + on.nic().linkInboundBusyFraction());
        assertTrue(on.nic().unitBusyFraction() < 0.1, "units mostly idle: " + on.nic().unitBusyFraction());
        // Without the link the 16 units move them at once: many times the port's rate (the gap this closes).
        Measured off = run(cluster(2, 16, 0), LARGE, 100_000, (qp, a) -> qp.read(a, LARGE));
        assertTrue(off.perSecond() > 3 * on.perSecond(), "off " + off.perSecond() + "/s, on " + on.perSecond() + "/s");
        assertEquals(0, off.nic().linkOutboundBusyFraction());
    }

    @Test
    void largeWritesSaturateTheInboundLink() {
        byte[] data = new byte[LARGE];
        Measured on = run(cluster(2, 16, GBPS), LARGE, 500_000, (qp, a) -> qp.write(a, data));
        long wire = MemoryNodeLink.requestBytes(new io.lockfabric.fabric.Verb.Write(0, data));
        double wireGbps = on.perSecond() * wire * 8 / 1e9;
        assertEquals(GBPS, wireGbps, GBPS * 0.02, "9 KiB WRITEs: " + wireGbps + " Gb/s on the wire");
        assertEquals(1.0, on.nic().linkInboundBusyFraction(), 0.02, "inbound link busy");
        assertTrue(on.nic().linkOutboundBusyFraction() < 0.05, "outbound carries only acks");
    }

    @Test
    void smallVerbsStayBoundByTheVerbRate() {
        // One unit, so that 128 clients saturate it: the NIC's verb rate binds, not the link.
        SimConfig off = cluster(4, 32, 0).toBuilder().nicUnits(1).build();
        SimConfig on = off.toBuilder().mnLinkGbps(GBPS).build();
        for (String kind : List.of("read", "cas")) {
            BiConsumer<QueuePair, Long> verb = kind.equals("read") ? (qp, a) -> qp.read8(a)
                    : (qp, a) -> qp.cas(a, 0, 0);
            Measured without = run(off, 8, 300_000, verb);
            Measured with = run(on, 8, 300_000, verb);
            assertEquals(1.0, with.nic().unitBusyFraction(), 0.03, kind + ": units saturated");
            assertEquals(without.perSecond(), with.perSecond(), without.perSecond() * 0.02,
                    "8-byte " + kind + ": " + without.perSecond() + "/s off, " + with.perSecond() + "/s on");
            assertTrue(with.nic().linkInboundBusyFraction() < 0.3 && with.nic().linkOutboundBusyFraction() < 0.3,
                    kind + ": link far from busy: in " + with.nic().linkInboundBusyFraction() + ", out "
                            + with.nic().linkOutboundBusyFraction());
        }
    }

    @Test
    void aMessageCostsItsWireBytesAtTheLinkRate() {
        SimConfig base = SimConfig.builder().networkJitterNs(0).build();
        long off = oneReadNs(base);
        long on = oneReadNs(base.toBuilder().mnLinkGbps(GBPS).build());
        // request: 1 packet (26) + RETH (16) = 42 B = 3.36 ns -> 4; response: 9216 + 3 x 26 + 2 x AETH (4)
        // = 9302 B = 744.16 ns -> 745 (each rounded up to the next nanosecond)
        assertEquals(4 + 745, on - off);
    }

    @Test
    void aBatchWaitsForItsLastReplyToLeave() {
        SimConfig base = SimConfig.builder().networkJitterNs(0).build();
        long off = twoReadBatchNs(base);
        long on = twoReadBatchNs(base.toBuilder().mnLinkGbps(GBPS).build());
        // each request 4 ns in; the first reply (745 ns) leaves while the second READ is served (797 ns),
        // so only the second reply's 745 ns add to the batch
        assertEquals(4 + 4 + 745, on - off);
    }

    private static long twoReadBatchNs(SimConfig cfg) {
        try (SimFabric fabric = new SimFabric(cfg)) {
            Endpoint e = fabric.newEndpoint();
            Table t = e.openTable(new TableSpec("t", "test", 1, 2L * LARGE));
            AtomicLong elapsed = new AtomicLong();
            fabric.spawn("c", () -> {
                long start = fabric.observerNanoTime();
                io.lockfabric.fabric.Batch batch = new io.lockfabric.fabric.Batch();
                batch.read(t.address(), LARGE);
                batch.read(t.address() + LARGE, LARGE);
                e.queuePair(0).execute(batch);
                elapsed.set(fabric.observerNanoTime() - start);
            }).join();
            return elapsed.get();
        }
    }

    private static long oneReadNs(SimConfig cfg) {
        try (SimFabric fabric = new SimFabric(cfg)) {
            Endpoint e = fabric.newEndpoint();
            Table t = e.openTable(new TableSpec("t", "test", 1, LARGE));
            AtomicLong elapsed = new AtomicLong();
            fabric.spawn("c", () -> {
                long start = fabric.observerNanoTime();
                e.queuePair(0).read(t.address(), LARGE);
                elapsed.set(fabric.observerNanoTime() - start);
            }).join();
            return elapsed.get();
        }
    }

    @Test
    void aRateOfZeroIsOffAndANegativeOneIsRefused() {
        assertTrue(!SimConfig.defaults().mnLinkModelled());
        assertEquals(0, SimConfig.defaults().mnLinkGbps());
        assertThrowsIae(() -> SimConfig.builder().mnLinkGbps(-1).build());
        assertThrowsIae(() -> SimConfig.builder().mnLinkGbps(Double.NaN).build());
    }

    private static void assertThrowsIae(Runnable r) {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, r::run);
    }
}
