package io.lockfabric.net.wire;

import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.Verb;
import io.netty.buffer.ByteBuf;

/**
 * One verb inside a {@link FrameType#VERB} or {@link FrameType#BATCH} body, and its result inside
 * a {@link FrameType#RESULTS} body. A verb is an opcode, the remote address, then its operands;
 * 128-bit operands are two words, word 0 ({@code lo}) first.
 *
 * <pre>
 *  0        1                          9
 * +--------+--------------------------+------------------------------------------+
 * | opcode | remote address (i64)     | operands                                 |
 * +--------+--------------------------+------------------------------------------+
 *
 * opcode        operands                                          result
 *  1 READ8      -                                                 value (8)
 *  2 READ16     -                                                 lo (8) hi (8)
 *  3 READ       length (u32 &lt;= MAX_RANGE_BYTES)                   length bytes
 *  4 WRITE8     value (8)                                         -
 *  5 WRITE      length (u32 &lt;= MAX_RANGE_BYTES), data             -
 *  6 CAS        expect (8) swap (8)                               old (8)
 *  7 FAA        delta (8)                                         old (8)
 *  8 MCAS       compare, compareMask, swap, swapMask (4 x 8)      old (8)
 *  9 MFAA       add, boundaryMask (2 x 8)                         old (8)
 * 10 MCAS128    compare, compareMask, swap, swapMask (4 x 16)     old lo (8) hi (8)
 * 11 MFAA128    add, boundaryMask (2 x 16)                        old lo (8) hi (8)
 * </pre>
 *
 * The results of a batch are its verbs' results concatenated in order; the requester, who knows
 * the verbs, splits them.
 */
public final class VerbLayout {
    public static final int OPCODE_BYTES = 1;
    public static final int ADDRESS_BYTES = 8;
    public static final int WORD_BYTES = 8;
    public static final int INT128_BYTES = 16;
    public static final int LENGTH_BYTES = 4;
    /** Longest range READ or WRITE: what fits in one frame with room for the header. */
    public static final int MAX_RANGE_BYTES = FrameHeaderLayout.MAX_BODY_BYTES - 64;

    public static final int READ8 = 1;
    public static final int READ16 = 2;
    public static final int READ = 3;
    public static final int WRITE8 = 4;
    public static final int WRITE = 5;
    public static final int CAS = 6;
    public static final int FAA = 7;
    public static final int MCAS = 8;
    public static final int MFAA = 9;
    public static final int MCAS128 = 10;
    public static final int MFAA128 = 11;

    private VerbLayout() {
    }

    /** Bytes the verb takes on the wire. */
    public static int encodedBytes(Verb verb) {
        int head = OPCODE_BYTES + ADDRESS_BYTES;
        return head + switch (verb) {
            case Verb.Read8 v -> 0;
            case Verb.Read16 v -> 0;
            case Verb.Read v -> LENGTH_BYTES;
            case Verb.Write8 v -> WORD_BYTES;
            case Verb.Write v -> LENGTH_BYTES + v.data().length;
            case Verb.Cas v -> 2 * WORD_BYTES;
            case Verb.Faa v -> WORD_BYTES;
            case Verb.MaskedCas v -> 4 * WORD_BYTES;
            case Verb.MaskedFaa v -> 2 * WORD_BYTES;
            case Verb.MaskedCas128 v -> 4 * INT128_BYTES;
            case Verb.MaskedFaa128 v -> 2 * INT128_BYTES;
        };
    }

    /** Bytes of the verb's result in a RESULTS body. */
    public static int resultBytes(Verb verb) {
        return switch (verb) {
            case Verb.Read8 v -> WORD_BYTES;
            case Verb.Read16 v -> INT128_BYTES;
            case Verb.Read v -> v.length();
            case Verb.Write8 v -> 0;
            case Verb.Write v -> 0;
            case Verb.Cas v -> WORD_BYTES;
            case Verb.Faa v -> WORD_BYTES;
            case Verb.MaskedCas v -> WORD_BYTES;
            case Verb.MaskedFaa v -> WORD_BYTES;
            case Verb.MaskedCas128 v -> INT128_BYTES;
            case Verb.MaskedFaa128 v -> INT128_BYTES;
        };
    }

    public static void encode(Verb verb, ByteBuf out) {
        switch (verb) {
            case Verb.Read8 v -> head(out, READ8, v.address());
            case Verb.Read16 v -> head(out, READ16, v.address());
            case Verb.Read v -> {
                checkRange(v.length());
                head(out, READ, v.address());
                out.writeInt(v.length());
            }
            case Verb.Write8 v -> {
                head(out, WRITE8, v.address());
                out.writeLong(v.value());
            }
            case Verb.Write v -> {
                checkRange(v.data().length);
                head(out, WRITE, v.address());
                Fields.writeBlob(out, v.data());
            }
            case Verb.Cas v -> {
                head(out, CAS, v.address());
                out.writeLong(v.expect());
                out.writeLong(v.swap());
            }
            case Verb.Faa v -> {
                head(out, FAA, v.address());
                out.writeLong(v.delta());
            }
            case Verb.MaskedCas v -> {
                head(out, MCAS, v.address());
                out.writeLong(v.compare());
                out.writeLong(v.compareMask());
                out.writeLong(v.swap());
                out.writeLong(v.swapMask());
            }
            case Verb.MaskedFaa v -> {
                head(out, MFAA, v.address());
                out.writeLong(v.add());
                out.writeLong(v.boundaryMask());
            }
            case Verb.MaskedCas128 v -> {
                head(out, MCAS128, v.address());
                int128(out, v.compare());
                int128(out, v.compareMask());
                int128(out, v.swap());
                int128(out, v.swapMask());
            }
            case Verb.MaskedFaa128 v -> {
                head(out, MFAA128, v.address());
                int128(out, v.add());
                int128(out, v.boundaryMask());
            }
        }
    }

    public static Verb decode(ByteBuf in) {
        int opcode = Fields.u8(in, "verb opcode");
        long a = Fields.i64(in, "verb address");
        return switch (opcode) {
            case READ8 -> new Verb.Read8(a);
            case READ16 -> new Verb.Read16(a);
            case READ -> new Verb.Read(a, rangeLength(in));
            case WRITE8 -> new Verb.Write8(a, Fields.i64(in, "write value"));
            case WRITE -> new Verb.Write(a, Fields.blob(in, MAX_RANGE_BYTES, "write data"));
            case CAS -> new Verb.Cas(a, Fields.i64(in, "cas expect"), Fields.i64(in, "cas swap"));
            case FAA -> new Verb.Faa(a, Fields.i64(in, "faa delta"));
            case MCAS -> new Verb.MaskedCas(a, Fields.i64(in, "mcas compare"), Fields.i64(in, "mcas compare mask"),
                    Fields.i64(in, "mcas swap"), Fields.i64(in, "mcas swap mask"));
            case MFAA -> new Verb.MaskedFaa(a, Fields.i64(in, "mfaa add"), Fields.i64(in, "mfaa boundary mask"));
            case MCAS128 -> new Verb.MaskedCas128(a, int128(in), int128(in), int128(in), int128(in));
            case MFAA128 -> new Verb.MaskedFaa128(a, int128(in), int128(in));
            default -> throw new MalformedFrameException("unknown verb opcode " + opcode);
        };
    }

    /** Appends verb's result (what {@link Verb} says its kind returns) to a RESULTS body. */
    public static void encodeResult(Verb verb, Object result, ByteBuf out) {
        switch (result) {
            case null -> { }
            case Long v -> out.writeLong(v);
            case Int128 v -> int128(out, v);
            case byte[] v -> out.writeBytes(v);
            default -> throw new IllegalArgumentException("not a verb result: " + result.getClass());
        }
    }

    /** Reads verb's result from a RESULTS body. */
    public static Object decodeResult(Verb verb, ByteBuf in) {
        return switch (verb) {
            case Verb.Write8 v -> null;
            case Verb.Write v -> null;
            case Verb.Read16 v -> int128(in);
            case Verb.MaskedCas128 v -> int128(in);
            case Verb.MaskedFaa128 v -> int128(in);
            case Verb.Read v -> {
                Fields.need(in, v.length(), "read result");
                byte[] b = new byte[v.length()];
                in.readBytes(b);
                yield b;
            }
            default -> Fields.i64(in, "verb result");
        };
    }

    private static int rangeLength(ByteBuf in) {
        long len = Fields.i32(in, "read length") & 0xFFFF_FFFFL;
        if (len > MAX_RANGE_BYTES) {
            throw new MalformedFrameException("read of " + len + " bytes exceeds " + MAX_RANGE_BYTES);
        }
        return (int) len;
    }

    private static void checkRange(int length) {
        if (length < 0 || length > MAX_RANGE_BYTES) {
            throw new IllegalArgumentException("a range of " + length + " bytes does not fit a frame (at most "
                    + MAX_RANGE_BYTES + ")");
        }
    }

    private static void head(ByteBuf out, int opcode, long address) {
        out.writeByte(opcode);
        out.writeLong(address);
    }

    private static void int128(ByteBuf out, Int128 v) {
        out.writeLong(v.lo());
        out.writeLong(v.hi());
    }

    private static Int128 int128(ByteBuf in) {
        return new Int128(Fields.i64(in, "128-bit word 0"), Fields.i64(in, "128-bit word 1"));
    }
}
