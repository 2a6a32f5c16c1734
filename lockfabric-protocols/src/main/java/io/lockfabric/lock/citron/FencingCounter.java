package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.QueuePair;

/**
 * Fencing tokens of CITRON grants (option {@code fencing}, on by default; off, as in the paper,
 * every token is 0): one 64-bit FAA counter in the table header ({@link CitronLayout#FENCE_OFFSET}).
 *
 * <p>Every node acquisition posts one FAA on it, in the batch that completes it (behind the leaf
 * MCAS or the four child MCASes, which it cannot overtake) or, after a descendant check, in a
 * round trip of its own (a FAA batched behind READs could overtake them). The grant's token is
 * that of the node acquired last, so it is taken while the grant holds every node, after every
 * overlapping earlier grant released: overlapping grants get increasing tokens. A grant wholly
 * past N takes one too (the spillover ticket wraps: the global counter does not). Cost: one
 * 8-byte atomic per node on one shared word (no extra round trip on the fast paths; one on an
 * internal node's slow path, which already waits T_wait). No local counter works: leaves are bare
 * bitmaps and overlapping grants may use disjoint nodes.
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
final class FencingCounter {
    private final QueuePair qp;
    private final long address;
    private final boolean on;

    FencingCounter(QueuePair qp, long address, boolean on) {
        this.qp = qp;
        this.address = address;
        this.on = on;
    }

    /** One FAA on the counter: a token above every token taken before it (0 with fencing off). */
    long take() {
        return on ? qp.faa(address, 1) + 1 : 0;
    }

    /** Adds the FAA to {@code b}: its result index, or −1 with fencing off. */
    int add(Batch b) {
        return on ? b.faa(address, 1) : -1;
    }

    /** The token the FAA at {@code index} of {@code b} took (0 with fencing off). */
    static long tokenOf(Batch b, int index) {
        return index < 0 ? 0 : b.longResult(index) + 1;
    }

    /** The counter's address (for reports that name hot words). */
    long address() {
        return address;
    }
}
