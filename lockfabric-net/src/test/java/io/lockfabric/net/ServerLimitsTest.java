package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.net.wire.ErrorCode;
import io.lockfabric.net.wire.Frame;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile clients against a memory node's {@link ServerLimits}, while a small benchmark
 * ({@link VerbBench}) is served throughout: slow senders that begin big frames and stall, and more
 * connections than the server takes. The limits cut them, the memory held for frames being received
 * never exceeds the budget, the benchmark completes, and each refusal is logged once per cause.
 */
@Tag("fuzz")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServerLimitsTest {
    private static final long DEADLINE_MS = 800;
    private static final long FRAME_MEMORY = 8L << 20;

    private final List<LogRecord> refusalLines = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (r.getMessage() != null && r.getMessage().startsWith("refused")) {
                synchronized (refusalLines) {
                    refusalLines.add(r);
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureLog() {
        Logger.getLogger(TcpMemoryNode.class.getName()).addHandler(capture);
    }

    @AfterEach
    void releaseLog() {
        Logger.getLogger(TcpMemoryNode.class.getName()).removeHandler(capture);
    }

    private int refusalLines() {
        synchronized (refusalLines) {
            return refusalLines.size();
        }
    }

    @Test
    void slowSendersAreCutAndTheirFramesNeverHoldMoreThanTheBudget() throws Exception {
        ServerLimits limits = ServerLimits.DEFAULTS.withFrameDeadlineNs(TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS))
                .withFrameMemoryBytes(FRAME_MEMORY);
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).limits(limits).start();
        try (TcpFabric fabric = TcpFabric.builder().embeddedServer(server).build();
             VerbBench bench = new VerbBench(fabric, "bench", 3)) {
            List<Socket> attackers = new ArrayList<>();
            long start = System.nanoTime();
            // 40 connections: each opens, announces a 1 MiB frame, sends 100 000 bytes of it and stalls
            for (int i = 0; i < 40; i++) {
                Socket s = new Socket("127.0.0.1", server.port());
                assertInstanceOf(Frame.AuthOk.class, RawHandshake.open(s, null, TcpMemoryNode.HANDSHAKE_CONTEXT));
                attackers.add(s);
                OutputStream out = s.getOutputStream();
                try {
                    out.write(RawHandshake.prefix(1 << 20));
                    out.write(new byte[100_000]);
                    out.flush();
                } catch (IOException closedAlready) {
                    // refused at once: the budget was full
                }
            }
            long opsDuringAttack = bench.ops();
            for (Socket s : attackers) {
                assertClosedByServer(s, DEADLINE_MS + 5_000);
            }
            long cutAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            long opsAfter = bench.ops();
            assertTrue(server.frameBytesPeak() <= FRAME_MEMORY, "frames held at most the budget: peak "
                    + server.frameBytesPeak());
            assertTrue(server.frameBytesPeak() >= 4L << 20, "the stalled frames did hold their reservations: peak "
                    + server.frameBytesPeak());
            awaitTrue(() -> server.frameBytesInUse() == 0, "the budget is given back");
            assertEquals(40, server.refusals("frame-memory") + server.refusals("frame-deadline"), "every one was cut");
            assertTrue(server.refusals("frame-memory") >= 1, "some waited for the budget in vain");
            assertTrue(server.refusals("frame-deadline") >= 8, "the ones that got room were cut at the deadline: "
                    + server.refusals("frame-deadline"));
            assertTrue(cutAfterMs < DEADLINE_MS + 5_000, "all cut within the deadline: " + cutAfterMs + " ms");
            assertTrue(opsAfter > opsDuringAttack, "the bench went on during the attack: " + opsDuringAttack + " -> "
                    + opsAfter);
            assertTrue(refusalLines() <= 4, "one line per cause, not per connection: " + refusalLines());
            Thread.sleep(100);
            assertTrue(bench.stop() > opsAfter, "the bench completed");
        }
    }

    @Test
    void connectionsOverTheLimitsAreRefusedWithAReasonAndTheServerRecovers() throws Exception {
        ServerLimits limits = ServerLimits.DEFAULTS.withMaxConnections(60, 20)
                .withFrameDeadlineNs(TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS));
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).limits(limits).start();
        try (TcpFabric fabric = TcpFabric.builder().embeddedServer(server).build();
             VerbBench bench = new VerbBench(fabric, "bench", 2)) {
            int benchConnections = server.openConnections();
            List<Socket> idle = new ArrayList<>();
            int refusedPerHost = 0;
            // 50 connections from 127.0.0.1 that never answer the challenge
            for (int i = 0; i < 50; i++) {
                Socket s = new Socket("127.0.0.1", server.port());
                idle.add(s);
                Frame first = RawHandshake.readFrame(new DataInputStream(s.getInputStream()));
                if (first instanceof Frame.ErrorReply e) {
                    assertEquals(ErrorCode.REFUSED, e.code());
                    assertTrue(e.message().contains("--max-connections-per-host"), e.message());
                    refusedPerHost++;
                } else {
                    assertInstanceOf(Frame.Challenge.class, first);
                }
            }
            assertEquals(50 - (20 - benchConnections), refusedPerHost, "all over 20 from one host refused");
            // another host (127.0.0.2 is loopback too) still gets in, up to the total
            int refusedTotal = 0;
            for (int i = 0; i < 50; i++) {
                Socket s = new Socket();
                s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
                s.connect(new InetSocketAddress("127.0.0.1", server.port()));
                idle.add(s);
                Frame first = RawHandshake.readFrame(new DataInputStream(s.getInputStream()));
                if (first instanceof Frame.ErrorReply e) {
                    assertTrue(e.message().contains("--max-connections") || e.message().contains("per-host"),
                            e.message());
                    refusedTotal++;
                }
            }
            assertTrue(refusedTotal >= 30, "beyond 60 in all, refused: " + refusedTotal);
            long opsDuring = bench.ops();
            // a client over the limit gets the reason as an exception
            FabricException refused = assertThrows(FabricException.class, () -> {
                try (TcpFabric more = TcpFabric.connect(server.uri())) {
                    more.newEndpoint();
                }
            });
            assertTrue(refused.getMessage().contains("max-connections"), refused.getMessage());
            // the idle ones are cut at the handshake deadline, and then clients get in again
            for (Socket s : idle) {
                assertClosedByServer(s, DEADLINE_MS + 5_000);
            }
            awaitTrue(() -> server.openConnections() == benchConnections, "only the bench's connections are left");
            try (TcpFabric more = TcpFabric.connect(server.uri())) {
                Endpoint e = more.newEndpoint();
                e.openTable(new TableSpec("later", "t", 1, 64));
            }
            assertTrue(refusalLines() <= 6, "one line per cause, not per connection: " + refusalLines());
            assertTrue(bench.stop() > opsDuring, "the bench went on and completed");
        }
    }

    @Test
    void aFrameLongerThanTheLargestIsRefusedAtItsPrefix() throws Exception {
        ServerLimits limits = ServerLimits.DEFAULTS.withMaxFrameBytes(4096);
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).limits(limits).start();
        try (server; Socket s = new Socket("127.0.0.1", server.port())) {
            assertInstanceOf(Frame.AuthOk.class, RawHandshake.open(s, null, TcpMemoryNode.HANDSHAKE_CONTEXT));
            s.getOutputStream().write(RawHandshake.prefix(4097));
            s.getOutputStream().flush();
            assertClosedByServer(s, 5_000);
            assertTrue(server.frameBytesPeak() < 4097, "nothing was reserved for it: " + server.frameBytesPeak());
            assertEquals(1, server.refusals("frame-length"));
        }
    }

    @Test
    void tablesAndEndpointsHaveLimitsToo() {
        ServerLimits limits = ServerLimits.DEFAULTS.withMaxTables(2).withMaxEndpoints(2);
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).limits(limits).start();
        try (TcpFabric fabric = TcpFabric.builder().embeddedServer(server).build()) {
            Endpoint e = fabric.newEndpoint();
            e.openTable(new TableSpec("a", "t", 1, 64));
            e.openTable(new TableSpec("b", "t", 1, 64));
            e.openTable(new TableSpec("a", "t", 1, 64)); // an existing table is not a new one
            FabricException t = assertThrows(FabricException.class, () -> e.openTable(new TableSpec("c", "t", 1, 64)));
            assertTrue(t.getMessage().contains("--max-tables"), t.getMessage());
            fabric.newEndpoint();
            FabricException n = assertThrows(FabricException.class, fabric::newEndpoint);
            assertTrue(n.getMessage().contains("--max-endpoints"), n.getMessage());
        }
    }

    @Test
    void aNonLoopbackAddressNeedsASecretOrTlsOrInsecure() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TcpMemoryNode.builder().port(0).bind("0.0.0.0").start());
        assertTrue(e.getMessage().contains("--secret-file") && e.getMessage().contains("--insecure"), e.getMessage());
        assertTrue(TcpMemoryNode.isLoopback("127.0.0.1") && TcpMemoryNode.isLoopback("::1")
                && TcpMemoryNode.isLoopback("localhost"));
        assertTrue(!TcpMemoryNode.isLoopback("0.0.0.0") && !TcpMemoryNode.isLoopback("::"));
    }

    @Test
    void refusalsAreLoggedOncePerCausePerInterval() {
        long[] now = {0};
        List<String> lines = new ArrayList<>();
        System.Logger sink = new System.Logger() {
            @Override
            public String getName() {
                return "sink";
            }

            @Override
            public boolean isLoggable(Level level) {
                return true;
            }

            @Override
            public void log(Level level, java.util.ResourceBundle bundle, String msg, Throwable thrown) {
                lines.add(msg);
            }

            @Override
            public void log(Level level, java.util.ResourceBundle bundle, String format, Object... params) {
                lines.add(java.text.MessageFormat.format(format, params));
            }
        };
        RefusalLog log = new RefusalLog(sink, 10_000, () -> now[0]);
        assertTrue(log.refuse("a", "first"));
        for (int i = 0; i < 99; i++) {
            now[0] += 10;
            assertTrue(!log.refuse("a", "again"));
        }
        assertTrue(log.refuse("b", "another cause is logged at once"));
        now[0] += 10_000;
        assertTrue(log.refuse("a", "after the interval"));
        assertEquals(3, lines.size(), lines.toString());
        assertTrue(lines.get(2).contains("99 more"), lines.get(2));
        assertEquals(101, log.total("a"));
    }

    /** Waits until the server closes {@code s} (end of stream or reset), draining what it sends first. */
    static void assertClosedByServer(Socket s, long withinMs) throws IOException {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(withinMs);
        InputStream in = s.getInputStream();
        byte[] sink = new byte[4096];
        while (System.nanoTime() < until) {
            s.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime())));
            try {
                if (in.read(sink) < 0) {
                    s.close();
                    return;
                }
            } catch (SocketTimeoutException e) {
                break;
            } catch (IOException reset) {
                s.close();
                return;
            }
        }
        s.close();
        throw new AssertionError("the server did not close the connection within " + withinMs + " ms");
    }

    static void awaitTrue(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("never true: " + what);
            }
            Thread.sleep(10);
        }
    }
}
