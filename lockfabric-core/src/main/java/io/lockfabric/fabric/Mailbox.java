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

    /** The next message, or null if none has arrived. */
    Message poll();

    /**
     * Waits for the next message until {@code deadlineNanos} on this endpoint's {@link Clock};
     * returns null if none arrived by then.
     */
    Message await(long deadlineNanos);
}
