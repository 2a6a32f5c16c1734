package io.lockfabric.fabric;

import java.io.Serial;

/** A SEND to a client that is gone (RDMA's receiver-not-ready error): the message was not delivered. */
public final class PeerUnreachableException extends FabricException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final transient EndpointId peer;

    public PeerUnreachableException(EndpointId peer) {
        super("peer " + peer + " is unreachable");
        this.peer = peer;
    }

    public EndpointId peer() {
        return peer;
    }
}
