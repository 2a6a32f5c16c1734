package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.net.wire.ErrorCode;
import io.lockfabric.net.wire.Frame;
import io.lockfabric.net.wire.FrameHeaderLayout;
import io.lockfabric.net.wire.MalformedFrameException;
import io.lockfabric.net.wire.WireCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Throws {@value #FRAMES} random and mutated frames at a memory node over raw sockets, pipelined
 * without waiting for replies, then checks that it still serves well-formed clients and that a
 * table no well-formed fuzz frame addressed is byte-for-byte unchanged.
 *
 * <p>Most frames keep a correct length prefix, so the server cuts the stream where the fuzzer
 * does, and the fuzzer can hold back the few mutants that decode to a well-formed verb on the
 * protected table (those would change it legitimately). A frame with a broken prefix ends its
 * connection (the server closes it or waits for bytes that never come), and the fuzzer reconnects.
 * Seeded: a failure is reproducible from {@link #SEED}.
 */
@Tag("fuzz")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TcpServerFuzzTest {
    static final long SEED = 0xF0_22L;
    static final int FRAMES = 100_000;
    private static final int TABLE_BYTES = 4096;

    @Test
    void theServerSurvivesGarbageAndMemoryChangesOnlyByWellFormedVerbs() throws Exception {
        SplittableRandom r = new SplittableRandom(SEED);
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(32L << 20).start();
        try (TcpFabric fabric = TcpFabric.builder().embeddedServer(server).build()) {
            Endpoint client = fabric.newEndpoint();
            QueuePair qp = client.queuePair(0);
            Table guarded = client.openTable(new TableSpec("guarded", "fuzz", 1, TABLE_BYTES));
            Table scratch = client.openTable(new TableSpec("scratch", "fuzz", 1, TABLE_BYTES));
            byte[] original = new byte[TABLE_BYTES];
            r.nextBytes(original);
            qp.write(guarded.at(0), original);
            int guardedRegion = RemoteAddress.region(guarded.address());

            List<Frame> templates = null;
            long sent = 0;
            long heldBack = 0;
            long connections = 0;
            FuzzConnection conn = null;
            while (sent < FRAMES) {
                if (conn == null) {
                    conn = new FuzzConnection(server.port(), sent);
                    connections++;
                    templates = templates(scratch, guarded, client.id(), conn.endpoint);
                }
                int kind = r.nextInt(100);
                byte[] frame;
                boolean breaksFraming = false;
                if (kind < 5) {
                    frame = encode(templates.get(r.nextInt(templates.size())));
                } else if (kind < 90) {
                    frame = mutate(encode(templates.get(r.nextInt(templates.size()))), r);
                } else if (kind < 99) {
                    frame = randomBody(r);
                } else {
                    frame = brokenPrefix(r);
                    breaksFraming = true;
                }
                if (!breaksFraming && touches(frame, guardedRegion)) {
                    heldBack++;
                    continue;
                }
                boolean ok = conn.send(frame);
                sent++;
                if (!ok || breaksFraming) {
                    conn.close();
                    conn = null;
                }
            }
            if (conn != null) {
                conn.close();
            }

            // the server still serves: a fresh client and the old one
            assertArrayEquals(original, qp.read(guarded.at(0), TABLE_BYTES), "the guarded table is unchanged");
            try (TcpFabric after = TcpFabric.connect(server.uri())) {
                Endpoint fresh = after.newEndpoint();
                Table t = fresh.openTable(new TableSpec("after-fuzz", "fuzz", 1, 64));
                fresh.queuePair(0).write8(t.at(8), 0xABCDL);
                assertEquals(0xABCDL, fresh.queuePair(0).cas(t.at(8), 0xABCDL, 1));
                assertArrayEquals(original, fresh.queuePair(0).read(guarded.at(0), TABLE_BYTES),
                        "another client sees the guarded table unchanged");
                fresh.mailbox().send(client.id(), 1, 2, 3, 4, 5);
                assertEquals(new Message(fresh.id(), 1, 2, 3, 4, 5), client.mailbox().await(System.nanoTime()
                        + TimeUnit.SECONDS.toNanos(10)), "mailboxes still work");
            }
            assertTrue(sent >= FRAMES, "sent " + sent);
            assertTrue(server.counters().ops(VerbKind.WRITE) > 100 && server.counters().ops(VerbKind.CAS) > 100,
                    "well-formed fuzz verbs were executed: " + server.counters());
            assertTrue(heldBack < sent / 10, "held back " + heldBack + " of " + sent);
            assertTrue(connections > 100, "broken framing forced reconnects: " + connections);
        }
    }

    /** Well-formed requests (and a few non-requests) on the scratch table, plus odd ones. */
    private static List<Frame> templates(Table scratch, Table guarded, EndpointId peer, long self) {
        long s = scratch.address();
        Int128 x = Int128.of(1, 2);
        List<Verb> verbs = List.of(new Verb.Read8(s + 8), new Verb.Read16(s + 16), new Verb.Read(s, 64),
                new Verb.Write8(s + 24, 5), new Verb.Write(s + 100, new byte[] {1, 2, 3}), new Verb.Cas(s + 32, 0, 1),
                new Verb.Faa(s + 40, 1), new Verb.MaskedCas(s + 48, 0, 0, -1, 0xFF),
                new Verb.MaskedFaa(s + 56, 1, 1L << 31), new Verb.MaskedCas128(s + 64, x, x, x, x),
                new Verb.MaskedFaa128(s + 80, x, x), new Verb.Read8(s + 3), new Verb.Read8(s + TABLE_BYTES),
                new Verb.Cas(s + 4, 0, 1), new Verb.Read8(RemoteAddress.of(999, 0)));
        List<Frame> t = new ArrayList<>();
        long id = 1;
        for (Verb v : verbs) {
            t.add(new Frame.VerbRequest(id++, v));
        }
        t.add(new Frame.BatchRequest(id++, verbs.subList(0, 11)));
        t.add(new Frame.BatchRequest(id++, verbs));
        t.add(new Frame.RpcRequest(id++, self, RemoteAddress.region(guarded.address()), new byte[8]));
        t.add(new Frame.RpcRequest(id++, self, 0, new byte[0]));
        t.add(new Frame.RpcRequest(id++, peer.pack(), 0, new byte[0])); // another connection's endpoint: refused
        t.add(new Frame.OpenTable(id++, self, new TableSpec("scratch", "fuzz", 1, TABLE_BYTES), false));
        t.add(new Frame.OpenTable(id++, self, new TableSpec("fz", "fuzz", 2, 256), false));
        t.add(new Frame.OpenTable(id++, self, new TableSpec("fz-rpc", "rpc", 2, 16), true));
        t.add(new Frame.OpenTable(id++, peer.pack(), new TableSpec("fz", "fuzz", 2, 256), false));
        t.add(new Frame.Bye(id++, peer.pack())); // refused: not this connection's
        t.add(new Frame.Lookup(id++, peer.pack()));
        t.add(new Frame.Stats(id++, 0));
        t.add(new Frame.Hello(id++, 7, "127.0.0.1", 1));
        t.add(new Frame.Results(id++, new byte[] {1}));
        t.add(new Frame.ErrorReply(id++, ErrorCode.REFUSED, "x"));
        t.add(new Frame.PeerMessage(peer.pack(), new Message(peer, 0, 0, 0, 0, 0)));
        t.add(new Frame.PeerPing(peer.pack(), peer.pack()));
        return t;
    }

    private static byte[] encode(Frame f) {
        ByteBuf b = Unpooled.buffer();
        WireCodec.encode(f, b);
        return ByteBufUtil.getBytes(b);
    }

    /** 1-4 random byte changes after the prefix, sometimes a cut or extension; the prefix is fixed up. */
    private static byte[] mutate(byte[] frame, SplittableRandom r) {
        int body = frame.length - FrameHeaderLayout.LENGTH_BYTES;
        int newBody = switch (r.nextInt(8)) {
            case 0 -> r.nextInt(body + 1);
            case 1 -> body + 1 + r.nextInt(16);
            default -> body;
        };
        byte[] m = java.util.Arrays.copyOf(frame, FrameHeaderLayout.LENGTH_BYTES + newBody);
        for (int i = frame.length; i < m.length; i++) {
            m[i] = (byte) r.nextInt(256);
        }
        if (newBody > 0) {
            for (int k = 1 + r.nextInt(4); k > 0; k--) {
                m[FrameHeaderLayout.LENGTH_BYTES + r.nextInt(newBody)] = (byte) r.nextInt(256);
            }
        }
        setLength(m);
        return m;
    }

    private static byte[] randomBody(SplittableRandom r) {
        byte[] m = new byte[FrameHeaderLayout.LENGTH_BYTES + r.nextInt(120)];
        r.nextBytes(m);
        setLength(m);
        return m;
    }

    /** A length prefix the server cannot frame with: too short, too long, or more than is sent. */
    private static byte[] brokenPrefix(SplittableRandom r) {
        byte[] m = new byte[FrameHeaderLayout.LENGTH_BYTES + 16];
        r.nextBytes(m);
        int length = switch (r.nextInt(3)) {
            case 0 -> r.nextInt(FrameHeaderLayout.HEADER_BYTES);
            case 1 -> FrameHeaderLayout.MAX_FRAME_BYTES + 1 + r.nextInt(1 << 20);
            default -> 1000 + r.nextInt(1000);
        };
        Unpooled.wrappedBuffer(m).setInt(0, length);
        return m;
    }

    private static void setLength(byte[] m) {
        Unpooled.wrappedBuffer(m).setInt(0, m.length - FrameHeaderLayout.LENGTH_BYTES);
    }

    /** Whether the server would decode {@code frame} to a verb on the guarded region. */
    private static boolean touches(byte[] frame, int region) {
        Frame f;
        try {
            f = WireCodec.decode(Unpooled.wrappedBuffer(frame, FrameHeaderLayout.LENGTH_BYTES,
                    frame.length - FrameHeaderLayout.LENGTH_BYTES));
        } catch (MalformedFrameException e) {
            return false;
        }
        return switch (f) {
            case Frame.VerbRequest v -> RemoteAddress.region(v.verb().address()) == region;
            case Frame.BatchRequest b -> b.verbs().stream().anyMatch(v -> RemoteAddress.region(v.address()) == region);
            default -> false;
        };
    }

    /**
     * A raw connection that said HELLO (its endpoint, from the WELCOME, is {@link #endpoint}), writes
     * frames without waiting, and discards the replies.
     */
    private static final class FuzzConnection {
        private final Socket socket;
        private final OutputStream out;
        private final Thread drain;
        private int unflushed;
        final long endpoint;

        FuzzConnection(int port, long nonce) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setTcpNoDelay(true);
            Frame opened = RawHandshake.open(socket, null, TcpMemoryNode.HANDSHAKE_CONTEXT);
            if (!(opened instanceof Frame.AuthOk)) {
                throw new IOException("the server did not open the connection: " + opened);
            }
            out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
            InputStream in = socket.getInputStream();
            out.write(encode(new Frame.Hello(0, nonce, "127.0.0.1", 1)));
            out.flush();
            Frame welcome = RawHandshake.readFrame(new java.io.DataInputStream(in));
            if (!(welcome instanceof Frame.Welcome w)) {
                throw new IOException("the server did not welcome the endpoint: " + welcome);
            }
            endpoint = w.endpointId();
            drain = Thread.ofPlatform().daemon().name("fuzz-drain").start(() -> {
                byte[] sink = new byte[1 << 16];
                try {
                    while (in.read(sink) >= 0) {
                        // replies are not checked: the server's survival is
                    }
                } catch (IOException closed) {
                    // the server closed the connection or we did
                }
            });
        }

        /** False if the server has closed the connection. */
        boolean send(byte[] frame) {
            try {
                out.write(frame);
                if (++unflushed == 64) {
                    out.flush();
                    unflushed = 0;
                }
                return true;
            } catch (IOException closed) {
                return false;
            }
        }

        void close() throws InterruptedException {
            try {
                out.flush();
            } catch (IOException ignored) {
                // already closed by the server
            }
            try {
                socket.close();
            } catch (IOException ignored) {
                // nothing left to do
            }
            drain.join();
        }
    }
}
