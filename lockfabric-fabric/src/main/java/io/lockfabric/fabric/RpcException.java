package io.lockfabric.fabric;

import java.io.Serial;

/** An rpc that the memory node could not serve: unknown service, or the handler failed it. */
public final class RpcException extends FabricException {
    @Serial
    private static final long serialVersionUID = 1L;

    public RpcException(String message) {
        super(message);
    }
}
