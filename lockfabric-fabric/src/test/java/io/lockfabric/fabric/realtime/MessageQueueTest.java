package io.lockfabric.fabric.realtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.WaitInterruptedException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A platform-thread owner that has parked is woken by the next delivery (no lost wake-up, even
 * though it parks until its deadline), gives up at its deadline and when interrupted, and yields
 * less before parking after each wait whose message came only once it had parked.
 */
class MessageQueueTest {
    private static final long LONG_NS = TimeUnit.SECONDS.toNanos(20);

    private static Message message(int i) {
        return new Message(new EndpointId(1, 2), 0, 1, i, 0, 0);
    }

    @Test
    void aParkedOwnerIsWokenByEachDeliveryAndYieldsLessEachTime() throws Exception {
        MessageQueue q = new MessageQueue();
        assertEquals(MessageQueue.MAX_YIELDS, q.yieldBudget());
        int expected = MessageQueue.MAX_YIELDS;
        for (int i = 0; i < 6; i++) {
            int n = i;
            Thread sender = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(50); // the owner has spun, yielded and parked long before
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                q.deliver(message(n));
            });
            long start = System.nanoTime();
            Message m = q.await(start + LONG_NS);
            long waited = System.nanoTime() - start;
            sender.join();
            assertEquals(message(i), m);
            assertTrue(waited < LONG_NS / 2, "woken by the delivery, not by the deadline: " + waited + " ns");
            expected >>= 1;
            assertEquals(expected, q.yieldBudget(), "halved after a message that came once the owner parked");
        }
        assertEquals(0, q.yieldBudget());
    }

    @Test
    void anOwnerGivesUpAtItsDeadlineAndWhenInterrupted() {
        MessageQueue q = new MessageQueue();
        long start = System.nanoTime();
        assertNull(q.await(start + TimeUnit.MILLISECONDS.toNanos(30)));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(30));
        assertEquals(MessageQueue.MAX_YIELDS, q.yieldBudget(), "a wait that timed out leaves the budget alone");
        Thread.currentThread().interrupt();
        try {
            assertThrows(WaitInterruptedException.class, () -> q.await(System.nanoTime() + LONG_NS));
        } finally {
            Thread.interrupted();
        }
        q.deliver(message(7));
        assertEquals(message(7), q.await(System.nanoTime()), "a queued message is returned even at the deadline");
    }
}
