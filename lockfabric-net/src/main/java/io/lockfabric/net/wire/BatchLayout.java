package io.lockfabric.net.wire;

import io.lockfabric.fabric.Verb;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * {@link FrameType#BATCH}: verbs posted together, executed in order, answered by one
 * {@link FrameType#RESULTS} frame (their results concatenated) or one {@link FrameType#ERROR}
 * naming the first verb that failed (those before it took effect, it and those after did not).
 * A {@link FrameType#VERB} body is a single verb with no count.
 *
 * <pre>
 *  0              2
 * +--------------+----------------+----------------+-----+----------------+
 * | count (u16)  | verb 0         | verb 1         | ... | verb count-1   |
 * +--------------+----------------+----------------+-----+----------------+
 *                  each as in VerbLayout
 * </pre>
 */
public final class BatchLayout {
    public static final int COUNT_BYTES = 2;
    /** Most verbs in one batch. */
    public static final int MAX_VERBS = 4096;

    private BatchLayout() {
    }

    static void encode(Frame.BatchRequest f, ByteBuf out) {
        if (f.verbs().size() > MAX_VERBS) {
            throw new IllegalArgumentException("a batch holds at most " + MAX_VERBS + " verbs, got " + f.verbs().size());
        }
        out.writeShort(f.verbs().size());
        for (Verb v : f.verbs()) {
            VerbLayout.encode(v, out);
        }
    }

    static Frame.BatchRequest decode(long requestId, ByteBuf in) {
        int count = Fields.u16(in, "batch count");
        if (count > MAX_VERBS) {
            throw new MalformedFrameException("batch of " + count + " verbs exceeds " + MAX_VERBS);
        }
        List<Verb> verbs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            verbs.add(VerbLayout.decode(in));
        }
        return new Frame.BatchRequest(requestId, verbs);
    }
}
