package io.lockfabric.fabric;

/**
 * The address of a client's mailbox: a 16-bit node (compute node) id and a 24-bit queue number,
 * as ShiftLock's TailPtr. Packed into 40 bits, the value 0 is reserved for "nobody" so every real
 * endpoint has a queue number of at least 1.
 *
 * <pre>
 *  39            24 23                          0
 * +----------------+-----------------------------+
 * |   node (16)    |        queue (24)           |
 * +----------------+-----------------------------+
 * </pre>
 */
public record EndpointId(int node, int queue) {
    public static final int NODE_BITS = 16;
    public static final int QUEUE_BITS = 24;
    public static final int MAX_NODE = (1 << NODE_BITS) - 1;
    public static final int MAX_QUEUE = (1 << QUEUE_BITS) - 1;
    public static final int PACKED_BITS = NODE_BITS + QUEUE_BITS;
    public static final long PACKED_MASK = (1L << PACKED_BITS) - 1;

    public EndpointId {
        if (node < 0 || node > MAX_NODE) {
            throw new IllegalArgumentException("node " + node + " is outside [0, " + MAX_NODE + "]");
        }
        if (queue < 1 || queue > MAX_QUEUE) {
            throw new IllegalArgumentException("queue " + queue + " is outside [1, " + MAX_QUEUE + "]");
        }
    }

    /** The 40-bit packed form; never 0. */
    public long pack() {
        return ((long) node << QUEUE_BITS) | queue;
    }

    /** Unpacks a value made by {@link #pack()}; returns null for 0 ("nobody"). */
    public static EndpointId unpack(long packed) {
        if ((packed & ~PACKED_MASK) != 0) {
            throw new IllegalArgumentException("not a packed endpoint id: 0x" + Long.toHexString(packed));
        }
        if (packed == 0) {
            return null;
        }
        return new EndpointId((int) (packed >>> QUEUE_BITS), (int) (packed & MAX_QUEUE));
    }

    @Override
    public String toString() {
        return node + "." + queue;
    }
}
