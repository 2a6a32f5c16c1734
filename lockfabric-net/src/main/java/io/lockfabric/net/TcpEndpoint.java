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
 * A client endpoint of the tcp fabric: one connection to the memory node (its queue pair) and one
 * listener for messages from other endpoints. Closing it closes both, so the directory marks it
 * dead and senders see it gone. Belongs to one thread at a time.
 */
final class TcpEndpoint extends CountingEndpoint {
    private final TcpFabric fabric;
    private final ServerLink link;
    private final PeerListener listener;
    private final TcpMailbox mailbox;
    private volatile boolean closed;

    TcpEndpoint(TcpFabric fabric, EndpointId id, int ordinal, ServerLink link, PeerListener listener, TcpMailbox mailbox,
                long seed, Attachments computeNode) {
        super(fabric, id, ordinal, RealTimeClock.INSTANCE, seed, computeNode);
        this.fabric = fabric;
        this.link = link;
        this.listener = listener;
        this.mailbox = mailbox;
        connect(mailbox, new TcpQueuePair(link));
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
        Frame reply = link.call(rid -> new Frame.OpenTable(rid, shape, wantsService, serviceOptions));
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
        link.onLost(java.util.Objects.requireNonNull(listener, "listener"));
    }

    TcpMailbox tcpMailbox() {
        return mailbox;
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        fabric.detach(this);
        listener.close();
        link.closeByOwner();
    }
}
