package io.lockfabric.fabric;

import java.util.function.Consumer;

/**
 * One client's connection to one memory node (an RDMA RC queue pair). Every verb blocks until it
 * completes; a {@link Batch} completes several in one round trip. Verbs posted on one queue pair
 * are executed in order.
 *
 * <p>A queue pair belongs to its endpoint's thread; it is not thread-safe. Errors: a bad address,
 * length or alignment throws {@link RemoteAccessException} and changes nothing.
 *
 * <p>Implementations must implement {@link #execute(Verb)}, {@link #execute(Batch)} and
 * {@link #rpc}; the typed verbs default to {@code execute(Verb)} and a fabric may override them to
 * avoid allocation on its hot path.
 */
public interface QueuePair {
    /** The memory node this queue pair is connected to. */
    int memoryNode();

    /** Executes one verb and returns its result (see {@link Verb} for the result of each kind). */
    Object execute(Verb verb);

    /** Executes every verb of the batch, in order, as one round trip; results land in the batch. */
    void execute(Batch batch);

    /**
     * A request served by the memory node's CPU: {@code service} names a handler registered on
     * the memory node (a lock table's service id). Blocks until the handler replies, which it may
     * do later (a server-side lock manager replies when it grants).
     *
     * @throws RpcException if no such service exists or the handler failed the call
     */
    byte[] rpc(int service, byte[] request);

    /**
     * Posts {@code verb} unsignaled, as an RDMA work request without a completion: it executes in
     * order with this queue pair's other verbs (every verb posted after it sees its effect), and the
     * caller does not wait for it. For the verbs whose result the caller does not need, a lock's
     * release above all: the next verb may leave at once, one round trip sooner.
     *
     * <p>A failure of a posted verb is not lost: it is thrown once, by the post itself where the
     * fabric executes it at once, else by a later call on this queue pair (the first one made after
     * its reply came), as an RC queue pair in the error state fails the work requests posted after
     * the failed one. Unlike an RDMA queue pair, the verbs posted after a failed one still execute.
     * The verb counts as sent when it is posted.
     *
     * <p>The default executes the verb at once and drops its result: what a fabric whose verbs
     * complete without a wait does (local, shm, and the simulator, whose timing stays that of a
     * signaled verb). The tcp fabric sends the frame and returns.
     *
     * @throws RemoteAccessException if the verb is malformed (a bad length: nothing is posted), or it
     *                               or an earlier posted verb failed
     */
    default void post(Verb verb) {
        execute(verb);
    }

    /**
     * Posts an rpc whose reply the caller does not wait for: {@code onReply} gets it when it comes
     * (on whatever thread reads it; it must be quick and not block), in order with the queue pair's
     * other requests. If the handler fails the call, the {@link RpcException} is thrown by a later
     * call on this queue pair, as for {@link #post(Verb)}; {@code onReply} may throw an
     * {@link IllegalStateException} to have its reply treated the same way.
     *
     * <p>The default calls {@link #rpc} at once and hands the reply to {@code onReply} before it
     * returns (its exceptions propagate).
     */
    default void postRpc(int service, byte[] request, Consumer<byte[]> onReply) {
        onReply.accept(rpc(service, request));
    }

    default long read8(long address) {
        return (Long) execute(new Verb.Read8(address));
    }

    default Int128 read16(long address) {
        return (Int128) execute(new Verb.Read16(address));
    }

    default byte[] read(long address, int length) {
        return (byte[]) execute(new Verb.Read(address, length));
    }

    default void write8(long address, long value) {
        execute(new Verb.Write8(address, value));
    }

    default void write(long address, byte[] data) {
        execute(new Verb.Write(address, data));
    }

    /** Compare-and-swap; returns the old value (the swap happened iff it equals {@code expect}). */
    default long cas(long address, long expect, long swap) {
        return (Long) execute(new Verb.Cas(address, expect, swap));
    }

    /** Fetch-and-add (wraps modulo 2^64); returns the old value. */
    default long faa(long address, long delta) {
        return (Long) execute(new Verb.Faa(address, delta));
    }

    /** Masked compare-and-swap; returns the whole old value (see {@link Verb.MaskedCas}). */
    default long maskedCas(long address, long compare, long compareMask, long swap, long swapMask) {
        return (Long) execute(new Verb.MaskedCas(address, compare, compareMask, swap, swapMask));
    }

    /** Masked fetch-and-add; returns the old value (see {@link Verb.MaskedFaa}). */
    default long maskedFaa(long address, long add, long boundaryMask) {
        return (Long) execute(new Verb.MaskedFaa(address, add, boundaryMask));
    }

    default Int128 maskedCas128(long address, Int128 compare, Int128 compareMask, Int128 swap, Int128 swapMask) {
        return (Int128) execute(new Verb.MaskedCas128(address, compare, compareMask, swap, swapMask));
    }

    default Int128 maskedFaa128(long address, Int128 add, Int128 boundaryMask) {
        return (Int128) execute(new Verb.MaskedFaa128(address, add, boundaryMask));
    }
}
