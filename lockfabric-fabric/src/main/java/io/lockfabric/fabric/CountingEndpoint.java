package io.lockfabric.fabric;

import java.util.Objects;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * The plumbing every fabric's endpoint shares: its fabric, address and ordinal, its clock, a
 * random generator seeded for it, its queue pairs (one per memory node, bounds-checked) and
 * mailbox, the sum of their counters, and the attachments of the endpoint and of its compute node.
 * A fabric extends it with how tables are opened and what closing means.
 *
 * <p>A subclass calls {@link #connect} once, at the end of its constructor, when its queue pairs
 * and mailbox exist (they may need the endpoint itself). Belongs to one thread at a time.
 */
public abstract class CountingEndpoint implements Endpoint {
    private final Fabric fabric;
    private final EndpointId id;
    private final int ordinal;
    private final Clock clock;
    private final RandomGenerator random;
    private final Attachments attachments = new Attachments();
    private final Attachments computeNode;
    private CountingQueuePair[] queuePairs;
    private CountingMailbox mailbox;

    /**
     * @param seed        of this endpoint's {@link #random()} generator
     * @param computeNode the attachments this endpoint's compute node shares with its other endpoints
     */
    protected CountingEndpoint(Fabric fabric, EndpointId id, int ordinal, Clock clock, long seed,
                               Attachments computeNode) {
        this.fabric = Objects.requireNonNull(fabric, "fabric");
        this.id = Objects.requireNonNull(id, "id");
        this.ordinal = ordinal;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.random = new SplittableRandom(seed);
        this.computeNode = Objects.requireNonNull(computeNode, "computeNode");
    }

    /** Gives the endpoint its mailbox and its queue pairs, the one for memory node i at index i. */
    protected final void connect(CountingMailbox mailbox, CountingQueuePair... queuePairs) {
        if (this.mailbox != null) {
            throw new IllegalStateException("endpoint " + id + " is connected already");
        }
        if (!mailbox.id().equals(id)) {
            throw new IllegalArgumentException("mailbox " + mailbox.id() + " is not endpoint " + id + "'s");
        }
        for (int i = 0; i < queuePairs.length; i++) {
            if (queuePairs[i].memoryNode() != i) {
                throw new IllegalArgumentException("queue pair " + i + " reaches memory node " + queuePairs[i].memoryNode());
            }
        }
        this.mailbox = mailbox;
        this.queuePairs = queuePairs.clone();
    }

    @Override
    public final Fabric fabric() {
        return fabric;
    }

    @Override
    public final EndpointId id() {
        return id;
    }

    @Override
    public final int ordinal() {
        return ordinal;
    }

    @Override
    public final QueuePair queuePair(int memoryNode) {
        if (memoryNode < 0 || memoryNode >= queuePairs.length) {
            throw new IllegalArgumentException("no memory node " + memoryNode + " (fabric has " + queuePairs.length + ")");
        }
        return queuePairs[memoryNode];
    }

    @Override
    public final Mailbox mailbox() {
        return mailbox;
    }

    @Override
    public final Clock clock() {
        return clock;
    }

    @Override
    public final RandomGenerator random() {
        return random;
    }

    @Override
    public final Attachments attachments() {
        return attachments;
    }

    @Override
    public final Attachments computeNode() {
        return computeNode;
    }

    /** The sum of what the mailbox and every queue pair sent. */
    @Override
    public final CounterSnapshot counters() {
        CounterSnapshot total = mailbox.counters();
        for (CountingQueuePair qp : queuePairs) {
            total = total.plus(qp.counters());
        }
        return total;
    }
}
