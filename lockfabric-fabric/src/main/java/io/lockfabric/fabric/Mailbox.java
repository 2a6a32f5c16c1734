package io.lockfabric.fabric;

/**
 * Two-sided messaging between clients (RDMA SEND/RECV over dynamic connections). Sends are
 * reliable, in order per (sender, receiver) pair, and never block; a send to a client that is gone
 * fails at once with {@link PeerUnreachableException} (RNR). Receiving belongs to the endpoint's
 * thread.
 */
public interface Mailbox {
    /** This mailbox's address. */
    EndpointId id();

    /**
     * Sends a message stamped with {@link #id()} as its sender.
     *
     * @throws PeerUnreachableException if {@code to} is not a live endpoint
     */
    void send(EndpointId to, int channel, int type, long lock, long a, long b);

    /**
     * A liveness probe: fails exactly as {@link #send} would, and costs what a send costs (it is
     * counted as a {@link VerbKind#SEND} of {@link Message#WIRE_BYTES} and, on a simulated fabric,
     * takes the same CPU, NIC and wire time), but the receiver's queue gets nothing. For a sender
     * that only wants to know whether {@code to} is still there: a live receiver that does not read
     * its mailbox for a long time (a lock holder running its critical section) would otherwise
     * collect one message per probe.
     *
     * @throws PeerUnreachableException if {@code to} is not a live endpoint
     */
    void ping(EndpointId to);

    /** The next message, or null if none has arrived. */
    Message poll();

    /**
     * Waits for the next message until {@code deadlineNanos} on this endpoint's {@link Clock};
     * returns null if none arrived by then.
     */
    Message await(long deadlineNanos);
}
