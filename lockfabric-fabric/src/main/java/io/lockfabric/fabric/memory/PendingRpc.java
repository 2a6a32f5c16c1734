package io.lockfabric.fabric.memory;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.RpcCall;

import java.util.Objects;

/**
 * An rpc handed to a memory node's service ({@link MemoryNode#call}) and not answered yet: the one
 * implementation of {@link RpcCall} every fabric uses. It completes exactly once, whichever of
 * {@link #reply} or {@link #fail} comes first and from whatever thread (a lock manager replies when
 * it grants, from another client's call); later answers are ignored. A reply is copied, so the
 * service may reuse its array. A fabric says in {@link #replied} and {@link #failed} how the answer
 * travels back (wakes a waiting thread, writes a frame, schedules an event). Thread-safe.
 */
public abstract class PendingRpc implements RpcCall {
    private final EndpointId caller;
    private final byte[] request;
    private boolean done;

    /** {@code request} is kept as given: copy it first if the caller may change it. */
    protected PendingRpc(EndpointId caller, byte[] request) {
        this.caller = caller;
        this.request = Objects.requireNonNull(request, "request");
    }

    @Override
    public final EndpointId caller() {
        return caller;
    }

    @Override
    public final byte[] request() {
        return request;
    }

    @Override
    public final void reply(byte[] response) {
        synchronized (this) {
            if (done) {
                return;
            }
            done = true;
        }
        replied(response.clone());
    }

    @Override
    public final void fail(String reason) {
        synchronized (this) {
            if (done) {
                return;
            }
            done = true;
        }
        failed(reason);
    }

    /** The call's one answer: {@code response} is the caller's own copy. */
    protected abstract void replied(byte[] response);

    /** The call failed: no such service, the service refused it, or it threw. */
    protected abstract void failed(String reason);
}
