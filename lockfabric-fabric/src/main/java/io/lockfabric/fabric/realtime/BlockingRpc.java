package io.lockfabric.fabric.realtime;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.IdleStrategy;
import io.lockfabric.fabric.RpcException;
import io.lockfabric.fabric.WaitInterruptedException;
import io.lockfabric.fabric.memory.MemoryNode;
import io.lockfabric.fabric.memory.PendingRpc;

/**
 * An rpc whose caller's thread reaches the memory node directly (the local fabric, a shared-memory
 * fabric): the call is handed to the node's service as a {@link PendingRpc} and the caller idles
 * (spin, yield, park) until the service answers, which it may do later from another thread.
 */
public final class BlockingRpc extends PendingRpc {
    private byte[] response;
    private String failure;
    private volatile boolean done;

    private BlockingRpc(EndpointId caller, byte[] request) {
        super(caller, request);
    }

    /**
     * Calls {@code service} on {@code node} for {@code caller} and waits for its answer. The
     * request is copied first, so the caller may reuse its array.
     *
     * @throws RpcException if the node has no such service or the service failed the call
     * @throws WaitInterruptedException if the caller is interrupted while it waits (the service may
     *                                  still carry the call out; its answer is dropped)
     */
    public static byte[] call(MemoryNode node, int service, EndpointId caller, byte[] request) {
        return call(c -> node.call(service, c), caller, request);
    }

    /**
     * {@link #call(MemoryNode, int, EndpointId, byte[])} with the call handed to {@code dispatch}
     * (whatever finds the service and runs it: the shm fabric's serving process).
     */
    public static byte[] call(java.util.function.Consumer<? super PendingRpc> dispatch, EndpointId caller, byte[] request) {
        BlockingRpc call = new BlockingRpc(caller, request.clone());
        dispatch.accept(call);
        IdleStrategy idle = RealTimeClock.INSTANCE.idleStrategy();
        while (!call.done) {
            WaitInterruptedException.throwIfInterrupted("an rpc's reply");
            idle.idle();
        }
        if (call.failure != null) {
            throw new RpcException(call.failure);
        }
        return call.response;
    }

    @Override
    protected void replied(byte[] response) {
        this.response = response;
        done = true;
    }

    @Override
    protected void failed(String reason) {
        this.failure = reason;
        done = true;
    }
}
