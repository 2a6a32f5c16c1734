package io.lockfabric.fabric;

/**
 * Server-side code run by the memory node's CPU for {@link QueuePair#rpc}. A handler is called
 * concurrently from any number of clients and must be thread-safe; it may reply at once or keep
 * the {@link RpcCall} and reply later from another call (a lock manager replies when it grants).
 */
@FunctionalInterface
public interface RpcHandler {
    void handle(RpcCall call);
}
