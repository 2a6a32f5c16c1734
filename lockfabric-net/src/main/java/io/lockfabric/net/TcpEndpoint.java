package io.lockfabric.net;

import io.lockfabric.fabric.Attachments;
import io.lockfabric.fabric.CountingEndpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.fabric.TableRefusedException;
import io.lockfabric.net.wire.ErrorCode;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.realtime.RealTimeClock;
import io.lockfabric.net.wire.Frame;

import java.util.List;
import java.util.function.Consumer;

/**
 * A client endpoint of the tcp fabric: its queue pair on one of the fabric's shared connections to
 * the memory node (the same one for its whole life) and one listener for messages from other
 * endpoints. Closing it closes its listener, so senders see it gone, and says BYE on its
 * connection, so the directory marks it dead and its tables are closed. Belongs to one thread at a
 * time.
 */
final class TcpEndpoint extends CountingEndpoint {
    private final TcpFabric fabric;
    private final ServerLink link;
    private final PeerListener listener;
    private final TcpMailbox mailbox;
    /** How long a close waits for the memory node to acknowledge its BYE. */
    static final long BYE_TIMEOUT_NS = 5_000_000_000L;
    private volatile boolean closed;

    TcpEndpoint(TcpFabric fabric, EndpointId id, int ordinal, ServerLink link, PeerListener listener, TcpMailbox mailbox,
                long seed, Attachments computeNode) {
        super(fabric, id, ordinal, RealTimeClock.INSTANCE, seed, computeNode);
        this.fabric = fabric;
        this.link = link;
        this.listener = listener;
        this.mailbox = mailbox;
        connect(mailbox, new TcpQueuePair(link, id.pack()));
    }

    /** Where this endpoint's mailbox listens (tests). */
    java.net.InetSocketAddress mailboxAddress() {
        return (java.net.InetSocketAddress) listener.channel().localAddress();
    }

    @Override
    public Table openTable(TableSpec spec) {
        if (spec.memoryNode() != 0) {
            throw new IllegalArgumentException(spec + ": the tcp fabric " + fabric.name() + " has one memory node (0)");
        }
        boolean wantsService = spec.service() != null;
        if (wantsService) {
            fabric.offerService(spec);
        }
        TableSpec shape = new TableSpec(fabric.serverTableName(spec.name()), spec.protocol(), spec.locks(),
                spec.bytes(), spec.fill(), spec.memoryNode(), null);
        List<String> serviceOptions = wantsService ? spec.service().options() : List.of();
        Frame reply = link.call(rid -> new Frame.OpenTable(rid, id().pack(), shape, wantsService, serviceOptions));
        return switch (reply) {
            case Frame.TableOpened t -> new Table(spec, t.memoryNode(), t.address(), t.service());
            case Frame.TableMismatch m -> throw new TableMismatchException(fabric.clientSpec(m.existing()), spec);
            case Frame.ErrorReply e when e.code() == ErrorCode.REFUSED -> throw new TableRefusedException(
                    "the memory node " + fabric.name() + " refused the table: " + e.message());
            default -> throw TcpQueuePair.unexpected(reply);
        };
    }

    /** Told when this endpoint's connection to the memory node drops ({@link ServerLink#onLost}). */
    @Override
    public void onMemoryNodeLost(Consumer<? super FabricException> listener) {
        link.onLost(this, java.util.Objects.requireNonNull(listener, "listener"));
    }

    /** The shared connection this endpoint uses (tests). */
    ServerLink link() {
        return link;
    }

    TcpMailbox tcpMailbox() {
        return mailbox;
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        close(true);
    }

    /**
     * Closes this endpoint; with {@code bye}, tells the memory node (at once, waiting for its answer
     * so that a table drop after this sees the endpoint gone), else the fabric is closing its
     * connections anyway.
     */
    void close(boolean bye) {
        if (closed) {
            return;
        }
        closed = true;
        fabric.detach(this);
        link.forget(this);
        listener.close();
        if (bye && !link.isLost()) {
            try { // closing is not a wait the caller can give up
                link.callUninterruptibly(rid -> new Frame.Bye(rid, id().pack()), BYE_TIMEOUT_NS);
            } catch (FabricException lostOrSlow) {
                // the connection is lost (the endpoint is dead there already) or the server is stuck
            }
        }
    }
}
