package io.lockfabric.shm;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.fabric.WaitInterruptedException;
import io.lockfabric.fabric.memory.MemoryRegion;
import io.lockfabric.fabric.realtime.InlineQueuePair;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A queue pair of the shm fabric: every verb runs on the caller's thread, on the file's mapping in
 * this process, through the {@link io.lockfabric.fabric.memory.MemoryRegion} of its table (64-bit
 * verbs as hardware atomics; 128-bit ones through the {@link StripeGuard}). No memory-node CPU is on
 * the path. Counts every verb. As on the local fabric, a verb of an interrupted thread is not run:
 * it throws {@link WaitInterruptedException}.
 *
 * <p><b>Bound to one rpc server.</b> The first rpc binds the queue pair to the server it goes to
 * (its process token and the file's {@linkplain ShmLayout#SERVER_EPOCH epoch}): what its rpcs leave
 * on the server (an {@code rpc} lock held, a place in a queue) lives in that server's memory only.
 * Once that server is gone (dead, stopped, or followed by another: {@link ShmFabric}'s watch, or the
 * next rpc, sees it), the endpoint has lost its memory node as a tcp endpoint whose server
 * restarted has: its loss listeners are told, and every later verb, rpc and table open fails with
 * the reason. A queue pair that never sent an rpc depends on no server and is never lost.
 */
final class ShmQueuePair extends InlineQueuePair {
    private final ShmFabric fabric;
    private final ShmFile file;
    private final EndpointId owner;
    /** Numbers this queue pair's rpcs: the endpoint's ordinal above, a count below (unique in the file). */
    private long nextCall;
    /**
     * The token of the rpc server this queue pair is bound to, 0 until its first rpc. Written by the
     * endpoint's thread only, after {@link #boundEpoch}: the watch reads the token first, so it never
     * sees a token with the epoch before it.
     */
    private volatile long boundToken;
    /** The file's server epoch when this queue pair was bound. */
    private volatile long boundEpoch;
    /** Why the queue pair is lost, or null while it is not. */
    private volatile FabricException lost;
    /** Told once when the queue pair is lost; guarded by {@code this}. */
    private final List<Consumer<? super FabricException>> lossListeners = new ArrayList<>();

    ShmQueuePair(ShmFabric fabric, EndpointId owner, long ordinal) {
        super(0);
        this.fabric = fabric;
        this.file = fabric.file();
        this.owner = owner;
        this.nextCall = ordinal << 32;
    }

    @Override
    protected MemoryRegion region(long address) {
        checkNotLost();
        return file.region(address);
    }

    @Override
    protected Object run(Verb verb) {
        checkNotLost();
        return file.region(verb.address()).execute(verb, RemoteAddress.offset(verb.address()));
    }

    @Override
    public byte[] rpc(int service, byte[] request) {
        checkInterrupt();
        checkNotLost();
        counters.record(VerbKind.RPC, request.length);
        return fabric.rpc(this, service, owner, ++nextCall, request);
    }

    /** Throws why this queue pair is lost, if it is. */
    void checkNotLost() {
        FabricException why = lost;
        if (why != null) {
            throw new FabricException(why.getMessage(), why);
        }
    }

    /**
     * Binds this queue pair to the server of {@code token} in {@code epoch} at its first rpc, or
     * checks that it still goes to the server it is bound to; loses it (and throws) if not. The
     * caller read both under the ring lock, under which servers claim the file (or is that server).
     */
    void bindOrCheck(long token, long epoch) {
        if (boundToken == 0) {
            boundEpoch = epoch;
            boundToken = token;
            fabric.watchServer(this);
            return;
        }
        if (boundToken != token || boundEpoch != epoch) {
            lose(fabric.serverGone(boundToken, token));
            checkNotLost();
        }
    }

    /** The token of the server this queue pair is bound to, or 0 if it has sent no rpc. */
    long boundToken() {
        return boundToken;
    }

    /** The file's server epoch when this queue pair was bound. */
    long boundEpoch() {
        return boundEpoch;
    }

    /** Whether this queue pair is lost. */
    boolean isLost() {
        return lost != null;
    }

    /**
     * Marks this queue pair lost for {@code why} and tells its listeners, on the calling thread,
     * once; later calls do nothing.
     */
    void lose(FabricException why) {
        List<Consumer<? super FabricException>> told;
        synchronized (this) {
            if (lost != null) {
                return;
            }
            lost = why;
            told = List.copyOf(lossListeners);
            lossListeners.clear();
        }
        for (Consumer<? super FabricException> l : told) {
            l.accept(why);
        }
    }

    /** Tells {@code listener} when this queue pair is lost: at once, on this thread, if it is already. */
    void onLost(Consumer<? super FabricException> listener) {
        FabricException why;
        synchronized (this) {
            why = lost;
            if (why == null) {
                lossListeners.add(listener);
                return;
            }
        }
        listener.accept(why);
    }
}
