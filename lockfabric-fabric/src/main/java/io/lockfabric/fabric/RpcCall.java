package io.lockfabric.fabric;

/** One pending rpc on the memory node. Exactly one of {@link #reply} or {@link #fail} completes it. */
public interface RpcCall {
    /** The caller's endpoint. */
    EndpointId caller();

    byte[] request();

    void reply(byte[] response);

    void fail(String reason);
}
