package io.lockfabric.net;

import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.Mailbox;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.realtime.RealTimeClock;
import io.lockfabric.net.wire.Frame;

import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * A client endpoint of the tcp fabric: one connection to the memory node (its queue pair) and one
 * listener for messages from other endpoints. Closing it closes both, so the directory marks it
 * dead and senders see it gone. Belongs to one thread at a time.
 */
final class TcpEndpoint implements Endpoint {
    private final TcpFabric fabric;
    private final EndpointId id;
    private final int ordinal;
    private final ServerLink link;
    private final PeerListener listener;
    private final TcpQueuePair queuePair;
    private final TcpMailbox mailbox;
    private final RandomGenerator random;
    private volatile boolean closed;

    TcpEndpoint(TcpFabric fabric, EndpointId id, int ordinal, ServerLink link, PeerListener listener, TcpMailbox mailbox,
                long seed) {
        this.fabric = fabric;
        this.id = id;
        this.ordinal = ordinal;
        this.link = link;
        this.listener = listener;
        this.queuePair = new TcpQueuePair(link);
        this.mailbox = mailbox;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public Fabric fabric() {
        return fabric;
    }

    @Override
    public EndpointId id() {
        return id;
    }

    @Override
    public int ordinal() {
        return ordinal;
    }

    @Override
    public QueuePair queuePair(int memoryNode) {
        if (memoryNode != 0) {
            throw new IllegalArgumentException("no memory node " + memoryNode + " (fabric has 1)");
        }
        return queuePair;
    }

    @Override
    public Mailbox mailbox() {
        return mailbox;
    }

    @Override
    public Clock clock() {
        return RealTimeClock.INSTANCE;
    }

    @Override
    public RandomGenerator random() {
        return random;
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
            default -> throw TcpQueuePair.unexpected(reply);
        };
    }

    @Override
    public CounterSnapshot counters() {
        return queuePair.counters().plus(mailbox.counters());
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
        link.channel().close().syncUninterruptibly();
    }
}
