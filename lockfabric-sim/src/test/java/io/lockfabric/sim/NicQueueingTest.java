package io.lockfabric.sim;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link SimFabric#memoryNodeQueueing}: word waits land on the hot word, and tracking only observes. */
class NicQueueingTest {
    private static final int HAMMERS = 16;
    private static final int READERS = 16;
    private static final int OPS = 50;
    private static final long HOT = 0;

    /** The end time, the hot word's value and (if tracked) the queueing of one scripted run. */
    private record Run(long endNs, long hotValue, NicQueueing queueing, long table) {
    }

    /**
     * 16 clients FAA one word while 16 others READ a word each: the FAAs queue on their word
     * (serialized for sameWordSerialNs each), the READs never wait for a word.
     */
    private static Run run(boolean track) {
        SimConfig cfg = SimConfig.builder().networkJitterNs(0).clientsPerComputeNode(HAMMERS + READERS).seed(3).build();
        try (SimFabric fabric = new SimFabric(cfg)) {
            fabric.trackMemoryNodeQueueing(track);
            Table[] table = new Table[1];
            List<ClientThread> threads = new ArrayList<>();
            for (int i = 0; i < HAMMERS + READERS; i++) {
                Endpoint e = fabric.newEndpoint();
                table[0] = e.openTable(new TableSpec("q", "test", 1, 8L * (READERS + 1)));
                int client = i;
                threads.add(fabric.spawn("c" + i, () -> {
                    for (int k = 0; k < OPS; k++) {
                        if (client < HAMMERS) {
                            e.queuePair(0).faa(table[0].address() + HOT, 1);
                        } else {
                            e.queuePair(0).read8(table[0].address() + 8L * (client - HAMMERS + 1));
                        }
                    }
                }));
            }
            threads.forEach(ClientThread::join);
            long end = fabric.simulation().now();
            NicQueueing q = track ? fabric.memoryNodeQueueing(0, 100) : null;
            Endpoint probe = fabric.newEndpoint();
            return new Run(end, probe.queuePair(0).read8(table[0].address() + HOT), q, table[0].address());
        }
    }

    @Test
    void wordWaitsLandOnTheHotWordAndReadsOfOtherWordsNeverWait() {
        Run r = run(true);
        NicQueueing q = r.queueing();
        assertEquals((long) (HAMMERS + READERS) * OPS, q.verbs());
        assertEquals((long) HAMMERS * OPS, q.exclusiveVerbs());
        NicQueueing.Word hot = q.words().get(0);
        assertEquals(r.table() + HOT, hot.address(), "the FAA word costs the most word wait");
        assertEquals((long) HAMMERS * OPS, hot.exclusiveVerbs());
        assertTrue(hot.wordWaitNs() > 0 && hot.delayedVerbs() > 0, "FAAs on one word wait for each other: " + hot);
        long sum = 0;
        for (NicQueueing.Word w : q.words()) {
            sum += w.wordWaitNs();
            if (w.address() != hot.address()) {
                assertEquals(0, w.wordWaitNs(), "a READ of a word nobody writes never waits for it: " + w);
                assertEquals(OPS, w.reads());
            }
        }
        assertEquals(READERS + 1, q.words().size(), "every word touched is listed (top 100)");
        assertEquals(q.wordWaitNs(), sum, "the word waits add up to the total");
    }

    @Test
    void trackingOnlyObserves() {
        Run tracked = run(true);
        Run plain = run(false);
        assertEquals(plain.endNs(), tracked.endNs());
        assertEquals(plain.hotValue(), tracked.hotValue());
        assertEquals((long) HAMMERS * OPS, plain.hotValue());
    }

    @Test
    void queueingWithoutTrackingFailsClearly() {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().build())) {
            assertThrows(IllegalStateException.class, () -> fabric.memoryNodeQueueing(0, 5));
            assertThrows(IllegalArgumentException.class, () -> fabric.memoryNodeQueueing(1, 5));
            fabric.trackMemoryNodeQueueing(true);
            assertEquals(0, fabric.memoryNodeQueueing(0, 5).verbs());
        }
    }
}
