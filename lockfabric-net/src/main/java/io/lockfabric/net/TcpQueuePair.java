package io.lockfabric.net;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.CountingQueuePair;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.RemoteAccessException;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.RpcException;
import io.lockfabric.fabric.TableDroppedException;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.net.wire.BatchLayout;
import io.lockfabric.net.wire.ErrorCode;
import io.lockfabric.net.wire.Frame;
import io.lockfabric.net.wire.VerbLayout;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.List;
import java.util.function.Consumer;

/**
 * A queue pair of the tcp fabric: each verb is one VERB frame and one RESULTS reply, a
 * {@link Batch} one BATCH frame and one reply, an rpc one RPC frame and its (possibly late) reply.
 * The link is shared with other endpoints of the fabric; the memory node executes the frames of a
 * connection in order, so this queue pair's verbs execute in the order they were posted.
 * Counts every verb that completed, like the local fabric. Belongs to its endpoint's thread.
 */
final class TcpQueuePair extends CountingQueuePair {
    private final ServerLink link;
    /** The endpoint's packed id: rpcs name their caller on the shared connection. */
    private final long endpoint;
    /** The failure of a posted verb or rpc, set by the thread that read its reply; thrown by the next call. */
    private volatile RuntimeException postedFailure;

    TcpQueuePair(ServerLink link, long endpoint) {
        super(0);
        this.link = link;
        this.endpoint = endpoint;
    }

    @Override
    public Object execute(Verb verb) {
        throwPostedFailure();
        checkFits(verb);
        Frame reply = link.call(id -> new Frame.VerbRequest(id, verb));
        byte[] payload = results(reply);
        ByteBuf in = Unpooled.wrappedBuffer(payload);
        Object result = VerbLayout.decodeResult(verb, in);
        counters.recordAll(verb);
        return result;
    }

    @Override
    public void execute(Batch batch) {
        throwPostedFailure();
        List<Verb> verbs = List.copyOf(batch.verbs());
        if (verbs.isEmpty()) {
            batch.complete(new Object[0]);
            return;
        }
        if (verbs.size() > BatchLayout.MAX_VERBS) {
            throw new IllegalArgumentException("a batch on the tcp fabric holds at most " + BatchLayout.MAX_VERBS
                    + " verbs, got " + verbs.size());
        }
        for (Verb v : verbs) {
            checkFits(v);
        }
        Frame reply = link.call(id -> new Frame.BatchRequest(id, verbs));
        ByteBuf in = Unpooled.wrappedBuffer(results(reply));
        Object[] results = new Object[verbs.size()];
        for (int i = 0; i < results.length; i++) {
            results[i] = VerbLayout.decodeResult(verbs.get(i), in);
        }
        for (Verb v : verbs) {
            counters.recordAll(v);
        }
        batch.complete(results);
    }

    @Override
    public byte[] rpc(int service, byte[] request) {
        throwPostedFailure();
        counters.record(VerbKind.RPC, request.length);
        Frame reply = link.call(id -> new Frame.RpcRequest(id, endpoint, service, request.clone()));
        return switch (reply) {
            case Frame.Results r -> r.payload();
            case Frame.ErrorReply e when e.code() == ErrorCode.RPC_FAILED -> throw new RpcException(e.message());
            default -> throw unexpected(reply);
        };
    }

    /**
     * Sends the verb's frame and returns; its reply is read by whichever thread reads the link
     * next, and only looked at for a failure.
     */
    @Override
    public void post(Verb verb) {
        throwPostedFailure();
        checkFits(verb);
        counters.recordAll(verb);
        link.post(id -> new Frame.VerbRequest(id, verb), reply -> {
            try {
                results(reply);
            } catch (RuntimeException e) {
                postedFailure = e;
            }
        });
    }

    @Override
    public void postRpc(int service, byte[] request, Consumer<byte[]> onReply) {
        throwPostedFailure();
        counters.record(VerbKind.RPC, request.length);
        link.post(id -> new Frame.RpcRequest(id, endpoint, service, request.clone()), reply -> {
            try {
                onReply.accept(switch (reply) {
                    case Frame.Results r -> r.payload();
                    case Frame.ErrorReply e when e.code() == ErrorCode.RPC_FAILED ->
                            throw new RpcException(e.message());
                    default -> throw unexpected(reply);
                });
            } catch (RuntimeException e) {
                postedFailure = e;
            }
        });
    }

    /** Throws (once) the failure of a verb or rpc posted earlier, as a queue pair in the error state would. */
    private void throwPostedFailure() {
        RuntimeException e = postedFailure;
        if (e != null) {
            postedFailure = null;
            throw e;
        }
    }

    /** A range the wire cannot carry fails like a bad length on an RNIC: nothing is sent. */
    private static void checkFits(Verb verb) {
        int length = switch (verb) {
            case Verb.Read r -> r.length();
            case Verb.Write w -> w.data().length;
            default -> 0;
        };
        if (length < 0 || length > VerbLayout.MAX_RANGE_BYTES) {
            throw new RemoteAccessException(verb.kind().label() + " of " + length + " bytes at "
                    + RemoteAddress.toString(verb.address()) + ": lengths on the tcp fabric are in [0, "
                    + VerbLayout.MAX_RANGE_BYTES + "]");
        }
    }

    private static byte[] results(Frame reply) {
        return switch (reply) {
            case Frame.Results r -> r.payload();
            case Frame.ErrorReply e when e.code() == ErrorCode.REMOTE_ACCESS -> throw new RemoteAccessException(e.message());
            case Frame.ErrorReply e when e.code() == ErrorCode.TABLE_DROPPED -> throw new TableDroppedException(e.message());
            default -> throw unexpected(reply);
        };
    }

    static FabricException unexpected(Frame reply) {
        if (reply instanceof Frame.ErrorReply e) {
            return new FabricException("memory node refused the request (" + e.code() + "): " + e.message());
        }
        return new FabricException("unexpected reply from the memory node: " + reply.type());
    }
}
