package io.lockfabric.net.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.VerbKind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Round trips of every frame and verb, and what malformed input does to the decoder. */
@Tag("fuzz")
class WireCodecTest {
    private static final long A = RemoteAddress.of(3, 0x40);
    private static final Int128 X = Int128.of(0x0123_4567_89AB_CDEFL, -2L);
    private static final Int128 Y = Int128.of(-1L, 0x8000_0000_0000_0000L);

    static List<Verb> everyVerb() {
        return List.of(new Verb.Read8(A), new Verb.Read16(A), new Verb.Read(A, 77), new Verb.Write8(A, -5L),
                new Verb.Write(A, new byte[] {1, 2, 3, (byte) 0xFF}), new Verb.Cas(A, 1, 2), new Verb.Faa(A, -1L),
                new Verb.MaskedCas(A, 1, 2, 3, 4), new Verb.MaskedFaa(A, 5, 6), new Verb.MaskedCas128(A, X, Y, Y, X),
                new Verb.MaskedFaa128(A, X, Y));
    }

    /** One sample of every frame type. */
    static List<Frame> everyFrame() {
        Message m = new Message(new EndpointId(2, 9), 7, -3, Long.MIN_VALUE, -1L, 42);
        long[] ops = new long[VerbKind.count()];
        long[] bytes = new long[VerbKind.count()];
        Arrays.setAll(ops, i -> i * 3L);
        Arrays.setAll(bytes, i -> i * 1000L + Long.MAX_VALUE / 2);
        TableSpec spec = new TableSpec("t-ü", "shiftlock", 12, 4096).withFill(new byte[] {9, 8, 7});
        List<Frame> frames = new ArrayList<>(List.of(
                new Frame.Hello(1, 0xDEAD_BEEFL, "127.0.0.1", 65535),
                new Frame.Welcome(1, new EndpointId(3, 77).pack(), 77, 1),
                new Frame.BatchRequest(3, everyVerb()),
                new Frame.BatchRequest(4, List.of()),
                new Frame.RpcRequest(5, new EndpointId(3, 77).pack(), 17, new byte[] {0, 1, 2}),
                new Frame.RpcRequest(5, 0, -1, new byte[0]),
                new Frame.Bye(5, new EndpointId(3, 77).pack()),
                new Frame.Results(6, new byte[] {4, 5, 6, 7}),
                new Frame.Results(6, new byte[0]),
                new Frame.OpenTable(7, new EndpointId(3, 77).pack(), spec, true),
                new Frame.OpenTable(7, -1, spec, true, List.of("eras=4", "lease-ns=1000000")),
                new Frame.OpenTable(7, 1, new TableSpec("plain", "cas", 1, 8), false),
                new Frame.TableOpened(8, 0, RemoteAddress.of(5, 0), 5),
                new Frame.TableMismatch(9, spec),
                new Frame.Lookup(10, new EndpointId(1, 1).pack()),
                new Frame.PeerAddress(11, "10.0.0.7", 4711),
                new Frame.Stats(12, 0),
                new Frame.StatsReply(13, ops, bytes),
                new Frame.ErrorReply(14, ErrorCode.REMOTE_ACCESS, "no region 9"),
                new Frame.ErrorReply(14, ErrorCode.TABLE_DROPPED, "table 't' was dropped"),
                new Frame.ListTables(15),
                new Frame.DropTable(16, "bench-cas-1", true),
                new Frame.DropTable(16, "plain", false),
                new Frame.DropTable(16, "mine", false, List.of(0x1_0000_0002L, 7L)),
                new Frame.TableList(17, 3, List.of(new Frame.TableRow("a", "cas", 64, 2, -1),
                        new Frame.TableRow("b", "citron", 1 << 20, 0, 1234))),
                new Frame.TableList(17, 0, List.of()),
                new Frame.PeerMessage(new EndpointId(1, 5).pack(), m),
                new Frame.PeerPing(new EndpointId(1, 5).pack(), new EndpointId(0, 2).pack()),
                new Frame.Challenge(0, HandshakeLayout.WIRE_VERSION, true, filled(HandshakeLayout.NONCE_BYTES, 3)),
                new Frame.Challenge(0, 65535, false, filled(HandshakeLayout.NONCE_BYTES, 4)),
                new Frame.Auth(0, HandshakeLayout.WIRE_VERSION, filled(HandshakeLayout.NONCE_BYTES, 5),
                        filled(HandshakeLayout.PROOF_BYTES, 6)),
                new Frame.Auth(0, 2, filled(HandshakeLayout.NONCE_BYTES, 7), new byte[0]),
                new Frame.AuthOk(0, filled(HandshakeLayout.PROOF_BYTES, 8)),
                new Frame.AuthOk(0, new byte[0]),
                new Frame.ErrorReply(0, ErrorCode.AUTH_FAILED, "a client with a wrong shared secret")));
        long id = 100;
        for (Verb v : everyVerb()) {
            frames.add(new Frame.VerbRequest(id++, v));
        }
        return frames;
    }

    private static byte[] encode(Frame f) {
        ByteBuf out = Unpooled.buffer();
        WireCodec.encode(f, out);
        return ByteBufUtil.getBytes(out);
    }

    /** Decodes a whole encoded frame (length prefix included) after checking the prefix. */
    private static Frame decodeWhole(byte[] wire) {
        ByteBuf in = Unpooled.wrappedBuffer(wire);
        int length = in.readInt();
        assertEquals(wire.length - FrameHeaderLayout.LENGTH_BYTES, length, "the length prefix counts the rest");
        return WireCodec.decode(in);
    }

    private static ByteBuf afterPrefix(byte[] wire, int bodyBytesToKeep) {
        return Unpooled.wrappedBuffer(wire, FrameHeaderLayout.LENGTH_BYTES,
                FrameHeaderLayout.HEADER_BYTES + bodyBytesToKeep);
    }

    @Test
    void everyFrameRoundTripsByteForByte() {
        Set<FrameType> seen = EnumSet.noneOf(FrameType.class);
        for (Frame f : everyFrame()) {
            byte[] wire = encode(f);
            Frame back = decodeWhole(wire);
            assertEquals(f.type(), back.type(), "type of " + f);
            assertEquals(f.requestId(), back.requestId(), "request id of " + f);
            assertArrayEquals(wire, encode(back), "re-encoding " + f.type() + " gives the same bytes");
            assertEquals(f.type().code(), wire[FrameHeaderLayout.TYPE_OFFSET] & 0xFF, "type byte");
            seen.add(f.type());
        }
        assertEquals(EnumSet.allOf(FrameType.class), seen, "the samples cover every frame type");
    }

    @Test
    void decodedFieldsEqualTheEncodedOnes() {
        for (Frame f : everyFrame()) {
            Frame back = decodeWhole(encode(f));
            switch (f) {
                case Frame.VerbRequest v -> assertVerbEquals(v.verb(), ((Frame.VerbRequest) back).verb());
                case Frame.BatchRequest b -> {
                    List<Verb> got = ((Frame.BatchRequest) back).verbs();
                    assertEquals(b.verbs().size(), got.size());
                    for (int i = 0; i < got.size(); i++) {
                        assertVerbEquals(b.verbs().get(i), got.get(i));
                    }
                }
                case Frame.OpenTable o -> {
                    Frame.OpenTable g = (Frame.OpenTable) back;
                    assertTrue(o.spec().sameShape(g.spec()), o.spec() + " vs " + g.spec());
                    assertEquals(o.endpoint(), g.endpoint());
                    assertEquals(o.wantsService(), g.wantsService());
                    assertEquals(o.serviceOptions(), g.serviceOptions());
                    assertNull(g.spec().service(), "no service travels");
                }
                case Frame.TableMismatch t -> assertTrue(t.existing().sameShape(((Frame.TableMismatch) back).existing()));
                case Frame.RpcRequest r -> {
                    assertEquals(r.endpoint(), ((Frame.RpcRequest) back).endpoint());
                    assertEquals(r.service(), ((Frame.RpcRequest) back).service());
                    assertArrayEquals(r.payload(), ((Frame.RpcRequest) back).payload());
                }
                case Frame.Results r -> assertArrayEquals(r.payload(), ((Frame.Results) back).payload());
                case Frame.StatsReply s -> {
                    assertArrayEquals(s.ops(), ((Frame.StatsReply) back).ops());
                    assertArrayEquals(s.bytes(), ((Frame.StatsReply) back).bytes());
                }
                case Frame.Challenge c -> {
                    Frame.Challenge g = (Frame.Challenge) back;
                    assertEquals(c.version(), g.version());
                    assertEquals(c.secretRequired(), g.secretRequired());
                    assertArrayEquals(c.nonce(), g.nonce());
                }
                case Frame.Auth a -> {
                    Frame.Auth g = (Frame.Auth) back;
                    assertEquals(a.version(), g.version());
                    assertArrayEquals(a.nonce(), g.nonce());
                    assertArrayEquals(a.proof(), g.proof());
                }
                case Frame.AuthOk a -> assertArrayEquals(a.proof(), ((Frame.AuthOk) back).proof());
                default -> assertEquals(f, back, "records without arrays compare by value");
            }
        }
    }

    private static void assertVerbEquals(Verb expected, Verb got) {
        if (expected instanceof Verb.Write w) {
            Verb.Write g = assertInstanceOf(Verb.Write.class, got);
            assertEquals(w.address(), g.address());
            assertArrayEquals(w.data(), g.data());
        } else {
            assertEquals(expected, got);
        }
    }

    @Test
    void verbResultsRoundTrip() {
        SplittableRandom r = new SplittableRandom(3);
        for (Verb v : everyVerb()) {
            Object result = switch (v.kind()) {
                case WRITE -> null;
                default -> v instanceof Verb.Read rd ? bytes(r, rd.length())
                        : VerbLayout.resultBytes(v) == VerbLayout.INT128_BYTES ? Int128.of(r.nextLong(), r.nextLong())
                        : (Object) r.nextLong();
            };
            ByteBuf buf = Unpooled.buffer();
            VerbLayout.encodeResult(v, result, buf);
            assertEquals(VerbLayout.resultBytes(v), buf.readableBytes(), "result size of " + v.kind());
            Object back = VerbLayout.decodeResult(v, buf);
            if (result instanceof byte[] b) {
                assertArrayEquals(b, (byte[]) back);
            } else {
                assertEquals(result, back, "result of " + v);
            }
            assertEquals(0, buf.readableBytes());
            ByteBuf enc = Unpooled.buffer();
            VerbLayout.encode(v, enc);
            assertEquals(VerbLayout.encodedBytes(v), enc.readableBytes(), "encoded size of " + v.kind());
        }
    }

    private static byte[] bytes(SplittableRandom r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    @Test
    void everyTruncationIsMalformedAndKeepsTheRequestId() {
        for (Frame f : everyFrame()) {
            if (f instanceof Frame.Results) {
                continue; // an opaque payload: any prefix of it is a payload
            }
            byte[] wire = encode(f);
            int body = wire.length - FrameHeaderLayout.LENGTH_BYTES - FrameHeaderLayout.HEADER_BYTES;
            for (int keep = 0; keep < body; keep++) {
                ByteBuf in = afterPrefix(wire, keep);
                MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> WireCodec.decode(in),
                        f.type() + " cut to " + keep + " of " + body + " body bytes");
                assertEquals(f.requestId(), e.requestId(), "the error names the request");
                assertEquals(f.type(), e.frameType());
            }
        }
    }

    @Test
    void trailingBytesAreMalformed() {
        for (Frame f : everyFrame()) {
            if (f instanceof Frame.Results) {
                continue;
            }
            byte[] wire = Arrays.copyOf(encode(f), encode(f).length + 1);
            ByteBuf in = Unpooled.wrappedBuffer(wire, FrameHeaderLayout.LENGTH_BYTES,
                    wire.length - FrameHeaderLayout.LENGTH_BYTES);
            assertThrows(MalformedFrameException.class, () -> WireCodec.decode(in), f.type() + " with a trailing byte");
        }
    }

    @Test
    void shortHeaderUnknownTypeAndUnknownOpcodeAreMalformed() {
        assertThrows(MalformedFrameException.class, () -> WireCodec.decode(Unpooled.wrappedBuffer(new byte[8])));
        ByteBuf unknown = Unpooled.buffer().writeByte(200).writeLong(77);
        MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> WireCodec.decode(unknown));
        assertEquals(77, e.requestId(), "an unknown type still names its request");
        assertNull(e.frameType());
        ByteBuf badVerb = Unpooled.buffer().writeByte(FrameType.VERB.code()).writeLong(5).writeByte(99).writeLong(A);
        assertTrue(assertThrows(MalformedFrameException.class, () -> WireCodec.decode(badVerb)).getMessage()
                .contains("opcode"), "names the bad opcode");
    }

    @Test
    void hugeDeclaredLengthsAreRejectedWithoutAllocating() {
        ByteBuf write = Unpooled.buffer().writeByte(FrameType.VERB.code()).writeLong(1).writeByte(VerbLayout.WRITE)
                .writeLong(A).writeInt(-1);
        assertThrows(MalformedFrameException.class, () -> WireCodec.decode(write), "a 4 GiB write");
        ByteBuf read = Unpooled.buffer().writeByte(FrameType.VERB.code()).writeLong(1).writeByte(VerbLayout.READ)
                .writeLong(A).writeInt(VerbLayout.MAX_RANGE_BYTES + 1);
        assertThrows(MalformedFrameException.class, () -> WireCodec.decode(read), "a read that cannot be answered");
        ByteBuf rpc = Unpooled.buffer().writeByte(FrameType.RPC.code()).writeLong(1).writeInt(3).writeInt(1 << 30);
        assertThrows(MalformedFrameException.class, () -> WireCodec.decode(rpc), "a 1 GiB rpc");
        ByteBuf batch = Unpooled.buffer().writeByte(FrameType.BATCH.code()).writeLong(1).writeShort(BatchLayout.MAX_VERBS + 1);
        assertThrows(MalformedFrameException.class, () -> WireCodec.decode(batch), "too many verbs");
    }

    @Test
    void badFieldValuesAreMalformed() {
        ByteBuf badUtf8 = Unpooled.buffer().writeByte(FrameType.PEER_ADDRESS.code()).writeLong(1).writeShort(2)
                .writeByte(0xC3).writeByte(0x28).writeShort(80);
        assertThrows(MalformedFrameException.class, () -> WireCodec.decode(badUtf8), "invalid UTF-8");
        byte[] msg = encode(new Frame.PeerMessage(new EndpointId(1, 5).pack(),
                new Message(new EndpointId(1, 6), 0, 0, 0, 0, 0)));
        byte[] nobody = msg.clone();
        Arrays.fill(nobody, FrameHeaderLayout.LENGTH_BYTES + FrameHeaderLayout.HEADER_BYTES + 8,
                FrameHeaderLayout.LENGTH_BYTES + FrameHeaderLayout.HEADER_BYTES + 16, (byte) 0);
        assertThrows(MalformedFrameException.class, () -> decodeWhole(nobody), "a message from nobody");
        byte[] ping = encode(new Frame.PeerPing(new EndpointId(1, 5).pack(), new EndpointId(1, 6).pack()));
        assertEquals(FrameHeaderLayout.LENGTH_BYTES + FrameHeaderLayout.HEADER_BYTES + PeerMessageLayout.PING_BODY_BYTES,
                ping.length, "a ping is a header and two addresses");
        byte[] pingFromNobody = ping.clone();
        Arrays.fill(pingFromNobody, ping.length - 8, ping.length, (byte) 0);
        assertThrows(MalformedFrameException.class, () -> decodeWhole(pingFromNobody), "a ping from nobody");
        byte[] pingToNobody = ping.clone();
        Arrays.fill(pingToNobody, ping.length - 16, ping.length - 8, (byte) 0);
        assertThrows(MalformedFrameException.class, () -> decodeWhole(pingToNobody), "a ping to nobody");
        byte[] pingBadId = ping.clone();
        pingBadId[ping.length - 16] = (byte) 0x80;
        assertThrows(MalformedFrameException.class, () -> decodeWhole(pingBadId), "a ping to an id beyond 40 bits");
        byte[] table = encode(new Frame.OpenTable(1, 5, new TableSpec("x", "p", 1, 8), false));
        table[table.length - 1 - 4 - 4 - 8 + 7] = 0; // bytes = 0
        assertThrows(MalformedFrameException.class, () -> decodeWhole(table), "a table of 0 bytes");
        ByteBuf errorCode = Unpooled.buffer().writeByte(FrameType.ERROR.code()).writeLong(1).writeByte(0).writeShort(0);
        assertThrows(MalformedFrameException.class, () -> WireCodec.decode(errorCode), "unknown error code");
    }

    @Test
    void anOversizedFrameIsNotEncodedAndLeavesTheBufferAlone() {
        ByteBuf out = Unpooled.buffer();
        out.writeByte(1);
        Frame big = new Frame.Results(1, new byte[FrameHeaderLayout.MAX_FRAME_BYTES]);
        assertThrows(IllegalArgumentException.class, () -> WireCodec.encode(big, out));
        assertEquals(1, out.writerIndex(), "nothing of the failed frame stays in the buffer");
        assertThrows(IllegalArgumentException.class,
                () -> WireCodec.encode(new Frame.VerbRequest(1, new Verb.Read(A, -1)), out), "negative read length");
        assertEquals(1, out.writerIndex());
    }

    @Test
    void randomBytesEitherDecodeOrAreMalformed() {
        SplittableRandom r = new SplittableRandom(0xF022);
        List<byte[]> seeds = everyFrame().stream().map(WireCodecTest::encode).toList();
        int decoded = 0;
        for (int i = 0; i < 50_000; i++) {
            byte[] b;
            if (i % 2 == 0) {
                b = bytes(r, r.nextInt(64));
            } else {
                byte[] s = seeds.get(r.nextInt(seeds.size()));
                b = Arrays.copyOfRange(s, FrameHeaderLayout.LENGTH_BYTES, s.length);
                for (int k = 1 + r.nextInt(3); k > 0; k--) {
                    b[r.nextInt(b.length)] = (byte) r.nextInt(256);
                }
            }
            try {
                WireCodec.decode(Unpooled.wrappedBuffer(b));
                decoded++;
            } catch (MalformedFrameException expected) {
                // the only failure allowed
            } catch (RuntimeException e) {
                fail("input " + ByteBufUtil.hexDump(b) + " threw " + e, e);
            }
        }
        assertTrue(decoded > 0, "some mutated frames still decode");
    }

    private static byte[] filled(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }
}
