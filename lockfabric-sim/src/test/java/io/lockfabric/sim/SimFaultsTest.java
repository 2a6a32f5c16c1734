package io.lockfabric.sim;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fault plans, their seed-made schedules, and message and memory-node faults on the simulator. */
@Tag("faults")
class SimFaultsTest {
    private static final SimConfig QUIET = SimConfig.builder().networkJitterNs(0).clockDrift(0).build();

    @Test
    void planTextRoundTripsAndDefaultsAreFilledIn() {
        FaultPlan p = FaultPlan.parse(" crash=2, pause@1ms..5ms ,mn-pause=3@50us,drop,delay=0.5@10us");
        assertEquals(2, p.crashes());
        assertEquals(new FaultPlan.Pauses(1, 1_000_000, 5_000_000), p.clientPauses());
        assertEquals(new FaultPlan.Pauses(3, 50_000, 50_000), p.mnPauses());
        assertEquals(FaultPlan.DEFAULT_DROP, p.dropProbability());
        assertEquals(0.5, p.delayProbability());
        assertEquals(10_000, p.delayNs());
        assertEquals(p, FaultPlan.parse(p.spec()));
        assertEquals("crash=2,pause=1@1ms..5ms,mn-pause=3@50us,drop=0.01,delay=0.5@10us", p.spec());
        assertEquals(FaultPlan.DEFAULT_CLIENT_PAUSES, FaultPlan.parse("pause").clientPauses());
        assertTrue(FaultPlan.parse("none").isNone());
        assertTrue(FaultPlan.parse("").isNone());
    }

    @ParameterizedTest
    @ValueSource(strings = {"explode", "crash=-1", "crash=x", "crash@1ms", "pause@0ms", "pause@5ms..1ms", "pause@5",
            "drop=2", "drop=x", "delay=-0.1"})
    void badPlansAreRefusedWithAReason(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FaultPlan.parse(text));
        assertTrue(e.getMessage().contains("fault") || e.getMessage().contains("duration"), e.getMessage());
    }

    @Test
    void theScheduleIsAFunctionOfTheSeed() {
        FaultPlan p = FaultPlan.parse("crash=3,pause=3,mn-pause=2");
        List<Fault> a = p.schedule(7, 10, 2, 1_000, 5_000_000);
        assertEquals(a, p.schedule(7, 10, 2, 1_000, 5_000_000));
        assertNotEquals(a, p.schedule(8, 10, 2, 1_000, 5_000_000));
        assertEquals(8, a.size());
        for (int i = 0; i < a.size(); i++) {
            Fault f = a.get(i);
            assertTrue(f.atNs() >= 1_000 && f.atNs() < 5_001_000, f.toString());
            assertTrue(i == 0 || a.get(i - 1).atNs() <= f.atNs(), "in time order");
            switch (f.kind()) {
                case CRASH -> assertEquals(0, f.lengthNs());
                case PAUSE -> assertTrue(f.lengthNs() >= 1_000 && f.lengthNs() <= 20_000_000, f.toString());
                case MN_PAUSE -> assertTrue(f.target() < 2 && f.lengthNs() <= 1_000_000, f.toString());
            }
        }
    }

    /** Sends 20 messages from a to b under {@code plan}; returns b's arrival times (of those that arrived). */
    private static List<Long> sendTwenty(SimFabric fabric, FaultPlan plan) {
        Endpoint a = fabric.newEndpoint();
        Endpoint b = fabric.newEndpoint();
        List<Long> arrivals = new ArrayList<>();
        List<Long> values = new ArrayList<>();
        ClientThread receiver = fabric.spawn("b", () -> {
            while (true) {
                Message m = b.mailbox().await(b.clock().nanoTime() + 2_000_000);
                if (m == null) {
                    return;
                }
                arrivals.add(b.clock().nanoTime());
                values.add(m.a());
            }
        });
        ClientThread sender = fabric.spawn("a", () -> {
            for (int i = 0; i < 20; i++) {
                a.mailbox().send(b.id(), 0, 1, 0, i, 0);
            }
        });
        fabric.inject(plan, List.of(), List.of(sender, receiver));
        sender.join();
        receiver.join();
        for (int i = 1; i < values.size(); i++) {
            assertTrue(values.get(i - 1) < values.get(i), "in order, none twice: " + values);
        }
        return arrivals;
    }

    @Test
    void droppedMessagesNeverArriveAndAreCounted() {
        try (SimFabric fabric = new SimFabric(QUIET)) {
            assertEquals(0, sendTwenty(fabric, FaultPlan.parse("drop=1")).size());
            assertEquals(20, fabric.droppedMessages());
            assertEquals(20, fabric.droppedMessagesSince(0));
            assertEquals(0, fabric.droppedMessagesSince(fabric.observerNanoTime() + 1), "all were lost before now");
        }
        try (SimFabric fabric = new SimFabric(QUIET.toBuilder().seed(3).build())) {
            int arrived = sendTwenty(fabric, FaultPlan.parse("drop=0.5")).size();
            assertEquals(20 - fabric.droppedMessages(), arrived);
            assertTrue(arrived > 0 && arrived < 20, "about half are lost: " + arrived);
            // the sender's sends are spaced by their CPU time, so the losses are spread in time
            long half = fabric.droppedMessagesSince(fabric.config().clientMessageCpuNs() * 20);
            assertTrue(half < fabric.droppedMessages() && fabric.droppedMessagesSince(0) == fabric.droppedMessages(),
                    half + " of " + fabric.droppedMessages());
        }
    }

    @Test
    void delayedMessagesArriveLateButInOrder() {
        long plain;
        try (SimFabric fabric = new SimFabric(QUIET)) {
            plain = sendTwenty(fabric, FaultPlan.NONE).getFirst();
        }
        try (SimFabric fabric = new SimFabric(QUIET)) {
            List<Long> late = sendTwenty(fabric, FaultPlan.parse("delay=1@50us"));
            assertEquals(20, late.size());
            assertEquals(20, fabric.delayedMessages());
            assertTrue(late.getFirst() >= plain + 50_000, late.getFirst() + " vs " + plain);
        }
    }

    @Test
    void everyMemoryNodePauseHoldsVerbsBack() {
        try (SimFabric fabric = new SimFabric(QUIET)) {
            Endpoint e = fabric.newEndpoint();
            Table t = e.openTable(new TableSpec("t", "test", 1, 64));
            fabric.pauseMemoryNodeAt(0, 10_000, 100_000);
            fabric.pauseMemoryNodeAt(0, 300_000, 100_000);
            AtomicLong firstDone = new AtomicLong();
            AtomicLong secondDone = new AtomicLong();
            fabric.spawn("c", () -> {
                e.clock().sleepNanos(20_000);
                e.queuePair(0).faa(t.address(), 1);
                firstDone.set(e.clock().nanoTime());
                e.clock().sleepNanos(300_000 - e.clock().nanoTime());
                e.queuePair(0).faa(t.address(), 1);
                secondDone.set(e.clock().nanoTime());
            }).join();
            assertTrue(firstDone.get() >= 110_000, "served after the first pause: " + firstDone.get());
            assertTrue(secondDone.get() >= 400_000, "served after the second pause: " + secondDone.get());
            assertEquals(2, e.queuePair(0).read8(t.address()));
        }
    }
}
