package io.lockfabric.lock.shiftlock;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.local.LocalFabric;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Messages for other locks, tables or attempts wait in the inbox until their own waiter asks. */
class ShiftLockInboxTest {
    @Test
    void awaitingOneMessageKeepsTheOthers() {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint a = fabric.newEndpoint();
             Endpoint b = fabric.newEndpoint()) {
            a.mailbox().send(b.id(), 1, ShiftLockMessages.SUCCESSOR, 5, 10, 0);
            a.mailbox().send(b.id(), 2, ShiftLockMessages.SUCCESSOR, 5, 11, 0);
            a.mailbox().send(b.id(), 2, ShiftLockMessages.HANDOVER, 6, 12, 0);
            a.mailbox().send(b.id(), 2, ShiftLockMessages.HANDOVER, 6, 13, 0);
            ShiftLockInbox inbox = ShiftLockInbox.of(b.mailbox());
            assertSame(inbox, ShiftLockInbox.of(b.mailbox()), "one inbox per mailbox, shared by the endpoint's clients");
            long deadline = b.clock().nanoTime() + 5_000_000_000L;
            Message m = inbox.await(2, 6, x -> x.a() == 13, deadline);
            assertEquals(13, m.a());
            assertEquals(3, inbox.size());
            assertEquals(12, inbox.take(2, 6, x -> true).a());
            assertEquals(11, inbox.take(2, 5, x -> true).a());
            inbox.discard(1, 5, x -> x.a() == 10);
            assertEquals(0, inbox.size());
            assertNull(inbox.await(1, 5, x -> true, b.clock().nanoTime() + 1_000_000), "nothing more came");
        }
    }
}
