package io.lockfabric.lock;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.local.LocalFabric;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Messages for other locks, tables or attempts wait in the inbox until their own waiter asks. */
class InboxTest {
    private static final int SUCCESSOR = 0;
    private static final int HANDOVER = 2;

    @Test
    void awaitingOneMessageKeepsTheOthers() {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint a = fabric.newEndpoint();
             Endpoint b = fabric.newEndpoint()) {
            a.mailbox().send(b.id(), 1, SUCCESSOR, 5, 10, 0);
            a.mailbox().send(b.id(), 2, SUCCESSOR, 5, 11, 0);
            a.mailbox().send(b.id(), 2, HANDOVER, 6, 12, 0);
            a.mailbox().send(b.id(), 2, HANDOVER, 6, 13, 0);
            Inbox inbox = Inbox.of(b);
            assertSame(inbox, Inbox.of(b), "one inbox per endpoint, shared by the endpoint's clients");
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

    /** A table view (mcs, rmarw) and a direct user (shiftlock) of one endpoint never lose each other's messages. */
    @Test
    void tableViewsAndDirectUsersShareOneInbox() {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint a = fabric.newEndpoint();
             Endpoint b = fabric.newEndpoint()) {
            TableSpec spec = new TableSpec("t", "mcs", 1, 8);
            Table mcsTable = new Table(spec, 0, RemoteAddress.of(1, 0), 1);
            Table otherTable = new Table(spec, 0, RemoteAddress.of(2, 0), 2);
            int other = Inbox.channelOf(otherTable);
            var view = new TableInbox(b, mcsTable);
            a.mailbox().send(b.id(), other, HANDOVER, 7, 1, 0);
            a.mailbox().send(b.id(), view.channel(), SUCCESSOR, 7, 2, 0);
            a.mailbox().send(b.id(), other, SUCCESSOR, 7, 3, 0);
            a.mailbox().send(b.id(), view.channel(), HANDOVER, 7, 4, 0);
            assertEquals(4, view.await(7, HANDOVER).a(), "the view finds its message past the others");
            assertEquals(2, view.take(SUCCESSOR, 7).a());
            assertNull(view.take(SUCCESSOR, 7));
            Inbox inbox = Inbox.of(b);
            assertEquals(1, inbox.take(other, 7, m -> m.type() == HANDOVER).a(), "kept for the other channel");
            assertEquals(3, inbox.take(other, 7, m -> true).a());
            assertEquals(0, inbox.size());
        }
    }

    /**
     * The inbox is the endpoint's own state, given out by the fabric: every endpoint has its own
     * (a message kept for one is never handed to another), an endpoint wrapped by an instrumenting
     * delegate still has the one of the endpoint it wraps, and a closed fabric takes them along.
     */
    @Test
    void eachEndpointHasItsOwnInboxInItsAttachments() {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint a = fabric.newEndpoint();
             Endpoint b = fabric.newEndpoint()) {
            Inbox ofA = Inbox.of(a);
            Inbox ofB = Inbox.of(b);
            assertNotSame(ofA, ofB, "one inbox per endpoint");
            assertSame(ofB, b.attachments().getIfPresent(Inbox.class), "kept in the endpoint's attachments");
            assertSame(ofB, Inbox.of(new io.lockfabric.fabric.ForwardingEndpoint(b)), "a wrapper shares its endpoint's");
            a.mailbox().send(b.id(), 1, SUCCESSOR, 5, 10, 0);
            b.mailbox().send(a.id(), 1, SUCCESSOR, 5, 20, 0);
            ofB.drain();
            assertEquals(1, ofB.size(), "b's inbox keeps b's message");
            assertEquals(0, ofA.size(), "and a's inbox has nothing of it");
            assertEquals(20, ofA.await(1, 5, m -> true, a.clock().nanoTime() + 1_000_000_000L).a(), "a's own");
        }
    }

    /**
     * A waiter can serve a key of its own while it waits for another (ShiftLock's predecessor
     * answering Reasks on its control key while it waits for a Successor): {@code meanwhile} runs
     * once the mailbox is drained and after every other message that arrives.
     */
    @Test
    void awaitServesAnotherKeyMeanwhile() {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint a = fabric.newEndpoint();
             Endpoint b = fabric.newEndpoint()) {
            Inbox inbox = Inbox.of(b);
            java.util.List<Long> served = new java.util.ArrayList<>();
            Runnable serveControl = () -> {
                for (Message m = inbox.take(1, -1, x -> true); m != null; m = inbox.take(1, -1, x -> true)) {
                    served.add(m.a());
                }
            };
            a.mailbox().send(b.id(), 1, HANDOVER, -1, 1, 0);
            a.mailbox().send(b.id(), 1, HANDOVER, 7, 2, 0);
            long deadline = b.clock().nanoTime() + 5_000_000_000L;
            assertNull(inbox.await(1, 5, x -> true, b.clock().nanoTime() + 100_000_000, serveControl),
                    "nothing for lock 5");
            assertEquals(java.util.List.of(1L), served, "the control key was served while waiting");
            a.mailbox().send(b.id(), 1, HANDOVER, -1, 3, 0);
            a.mailbox().send(b.id(), 1, SUCCESSOR, 5, 4, 0);
            assertEquals(4, inbox.await(1, 5, x -> true, deadline, serveControl).a());
            assertEquals(java.util.List.of(1L, 3L), served);
            assertEquals(2, inbox.take(1, 7, x -> true).a(), "other keys are kept as ever");
            assertEquals(0, inbox.size());
        }
    }

    @Test
    void channelsOfDifferentTablesDiffer() {
        TableSpec spec = new TableSpec("t", "mcs", 1, 8);
        int a = Inbox.channelOf(new Table(spec, 0, RemoteAddress.of(1, 0), 1));
        int b = Inbox.channelOf(new Table(spec, 1, RemoteAddress.of(1, 0), 1));
        int c = Inbox.channelOf(new Table(spec, 0, RemoteAddress.of(2, 0), 2));
        assertEquals(3, java.util.Set.of(a, b, c).size());
    }
}
