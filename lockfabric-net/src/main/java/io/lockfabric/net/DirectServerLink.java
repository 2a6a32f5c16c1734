package io.lockfabric.net;

import io.lockfabric.fabric.FabricException;
import io.lockfabric.net.wire.Frame;
import io.lockfabric.net.wire.FrameHeaderLayout;
import io.lockfabric.net.wire.MalformedFrameException;
import io.lockfabric.net.wire.WireCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.internal.PlatformDependent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link ServerLink} on a plain blocking socket, without an I/O thread between the callers and
 * the socket: the callers write and read it themselves.
 *
 * <p>Writes are flat-combined: a caller queues its encoded frame and, if no other caller is
 * writing, writes everything queued (its own frame and every frame queued meanwhile) with one
 * system call; a caller that finds another writing leaves its frame to it (the writer looks at the
 * queue again after it is done). So under load many frames share a write, and an idle connection
 * sends at once.
 *
 * <p>Reads follow the leader/followers pattern: one waiting caller at a time (the reader) reads
 * the socket and hands every reply it finds to its waiter (waking it); the others wait parked.
 * Once its own reply has come, the reader gives the role up and wakes a caller still waiting to
 * take it. A reply for the reader itself costs no thread switch at all.
 *
 * <p>A watcher thread (a daemon, mostly parked) reads when nobody else does: on an idle connection,
 * so that a loss is seen (and told) while no call is under way, and for virtual-thread callers,
 * which never read themselves (an interrupt of a virtual thread in a socket read closes the socket).
 * Reads time out every {@link #READ_POLL_MS} ms, so a reading caller sees its deadline and its
 * interrupt.
 *
 * <p><b>For virtual-thread clients</b> ({@link TcpFabric.Builder#virtualThreads}) a link works
 * otherwise, because virtual threads that take turns on a few carrier threads never write or read
 * at the same time, so flat combining and leader/followers would find no company:
 * <ul>
 *   <li>a reader, itself a virtual thread, reads the socket all the time and hands out the
 *       replies; callers never read, they park. For {@code readSpinNs} after the last reply came
 *       (default
 *       {@value TcpFabric#DEFAULT_READ_SPIN_NS} ns) it polls the socket without blocking and yields
 *       its carrier between polls: the callers the replies woke run, and when none is left the carrier
 *       polls again at once instead of sleeping. Under load the carrier never sleeps, so a reply
 *       costs no wake-up of the operating system's poller thread nor of the carrier (each an
 *       interrupt between processors, tens of microseconds on a virtual machine). After the spin it
 *       blocks (no timeout, so no timer per read): at rest it costs nothing;</li>
 *   <li>a virtual caller queues its frame and wakes a flusher, a virtual thread that runs after the
 *       callers already runnable, so the frames of every caller one batch of replies woke leave in
 *       one write; a platform caller writes at once (flat-combined) as above.</li>
 * </ul>
 * {@code LoopbackThroughput} measures both ways side by side.
 */
final class DirectServerLink extends ServerLink {
    /** How long one read blocks before the reader looks at its deadline and interrupt status. */
    static final int READ_POLL_MS = 100;
    /** How often the watcher looks whether the connection is idle (no request since its last look). */
    static final long WATCH_NS = TimeUnit.MILLISECONDS.toNanos(20);
    /** System property: {@code false} sends plain connections through Netty's I/O threads too, as TLS ones. */
    static final String PROPERTY = "lockfabric.net.direct";
    private static final int SCRATCH_KEEP_BYTES = 64 * 1024;
    private static final ThreadLocal<ByteBuf> SCRATCH = ThreadLocal.withInitial(() -> Unpooled.buffer(256));

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final Queue<byte[]> queue = PlatformDependent.newMpscQueue();
    private final AtomicBoolean writing = new AtomicBoolean();
    /** Guarded by {@link #writing}. */
    private byte[] writeBuffer = new byte[16 * 1024];
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong framesWritten = new AtomicLong();
    private final AtomicBoolean reading = new AtomicBoolean();
    /** Guarded by {@link #reading}: bytes read, frames from {@link #readStart} to {@link #readEnd} not yet handed out. */
    private byte[] readBuffer = new byte[64 * 1024];
    private int readStart;
    private int readEnd;
    private final AtomicInteger virtualWaiters = new AtomicInteger();
    /** Requests sent whose reply the memory node sends at once (all but rpcs), not handed out yet. */
    private final AtomicInteger promptInFlight = new AtomicInteger();
    private final AtomicLong deferred = new AtomicLong();
    /** Callers spinning for their reply (not parked): one of them takes the reader role when it is free. */
    private final AtomicInteger spinners = new AtomicInteger();
    /** The watcher (a daemon platform thread), or, on a link {@link #forVirtual}, the reader (a virtual thread). */
    private final Thread watcher;
    /** Virtual-thread clients: a reader thread reads all the time, and a flusher writes virtual callers' frames. */
    private final boolean forVirtual;
    /** Null unless {@link #forVirtual}: writes the frames virtual callers queued, once per wake-up. */
    private final Thread flusher;
    private final AtomicBoolean flushScheduled = new AtomicBoolean();
    /** How long the reader of a link {@link #forVirtual} polls after a reply before it blocks; 0: never. */
    private final long readSpinNs;
    /** Polls of the reader that found nothing and yielded (written by the reader only). */
    private volatile long spinPolls;

    private DirectServerLink(String server, Socket socket, boolean forVirtual, long readSpinNs) throws IOException {
        super(server);
        this.readSpinNs = readSpinNs;
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.forVirtual = forVirtual;
        int port = socket.getLocalPort();
        if (forVirtual) {
            this.watcher = Thread.ofVirtual().name("lockfabric-link-read " + port).unstarted(this::readAlways);
            this.flusher = Thread.ofVirtual().name("lockfabric-link-flush " + port).unstarted(this::flushWhenWoken);
        } else {
            this.watcher = Thread.ofPlatform().daemon().name("lockfabric-link-watch " + port).unstarted(this::watch);
            this.flusher = null;
        }
    }

    /** Whether plain connections take this path (unless {@value #PROPERTY}{@code =false}). */
    static boolean enabled() {
        return !"false".equalsIgnoreCase(System.getProperty(PROPERTY, ""));
    }

    /**
     * Connects to {@code host:port} and opens the connection with {@code handshake} (the same
     * exchange, checks and errors as on a Netty channel); {@code forVirtual}: for virtual-thread
     * clients (a reader and a flusher thread, see the class comment), whose reader polls for
     * {@code readSpinNs} after each reply before it blocks.
     *
     * @throws FabricException if it cannot connect, or the opening fails (see {@link ConnectorHandshake#await})
     */
    static DirectServerLink open(String server, String host, int port, int connectTimeoutMs,
                                 ConnectorHandshake handshake, int handshakeTimeoutMs, String peer,
                                 boolean forVirtual, long readSpinNs) {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), connectTimeoutMs);
        } catch (IOException e) {
            closeQuietly(s);
            throw new FabricException("cannot connect to " + peer + ": " + e, e);
        }
        EmbeddedChannel ch = new EmbeddedChannel(TcpMemoryNode.frameDecoder(), handshake);
        try {
            InputStream sin = s.getInputStream();
            OutputStream sout = s.getOutputStream();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(handshakeTimeoutMs);
            byte[] buf = new byte[4096];
            while (!handshake.finished()) {
                writeOutbound(ch, sout);
                long left = deadline - System.nanoTime();
                if (handshake.finished() || left <= 0) {
                    break;
                }
                s.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                int n;
                try {
                    n = sin.read(buf);
                } catch (SocketTimeoutException e) {
                    continue;
                } catch (IOException e) {
                    ch.pipeline().fireExceptionCaught(e);
                    break;
                }
                if (n < 0) {
                    ch.close();
                    break;
                }
                ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOf(buf, n)));
            }
            writeOutbound(ch, sout);
            ConnectorHandshake.await(ch, handshake, 0);
            s.setSoTimeout(forVirtual ? 0 : READ_POLL_MS);
            DirectServerLink link = new DirectServerLink(server, s, forVirtual, readSpinNs);
            if (forVirtual) {
                link.reading.set(true); // the reader's for good: callers never read
                link.flusher.start();
            }
            link.watcher.start();
            return link;
        } catch (IOException e) {
            closeQuietly(s);
            throw new FabricException(peer + ": " + e, e);
        } catch (RuntimeException e) {
            closeQuietly(s);
            throw e;
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    private static void writeOutbound(EmbeddedChannel ch, OutputStream to) throws IOException {
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            try {
                byte[] bytes = new byte[b.readableBytes()];
                b.readBytes(bytes);
                to.write(bytes);
            } finally {
                b.release();
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    InetSocketAddress localAddress() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    @Override
    void closeByOwner() {
        closing = true;
        lose("connection closed");
    }

    @Override
    void sever() {
        lose("connection closed");
    }

    private void lose(String why) {
        closeQuietly(socket);
        fail(why);
        LockSupport.unpark(watcher);
        if (flusher != null) {
            LockSupport.unpark(flusher);
        }
    }

    // ---- writing

    @Override
    void transmit(Frame request, Waiter w) {
        ByteBuf scratch = SCRATCH.get();
        scratch.clear();
        byte[] frame;
        try {
            WireCodec.encode(request, scratch);
            frame = new byte[scratch.readableBytes()];
            scratch.readBytes(frame);
        } finally {
            if (scratch.capacity() > SCRATCH_KEEP_BYTES) {
                SCRATCH.remove();
            }
        }
        boolean virtualCaller = Thread.currentThread().isVirtual();
        if (forVirtual) {
            queue.offer(frame);
            if (!virtualCaller) {
                writeQueued();
            } else if (!flushScheduled.getAndSet(true)) {
                LockSupport.unpark(flusher); // runs after the callers runnable now, whose frames join this one
            }
            return;
        }
        if (w.waited() && virtualCaller) {
            virtualWaiters.incrementAndGet();
            LockSupport.unpark(watcher);
        }
        queue.offer(frame);
        // while a prompt reply is on its way and a caller reads, the reader writes the queue as soon
        // as the reply wakes it: frames of the callers it woke leave together, with no thread waiting
        // longer than that round trip
        boolean leaveToReader = reading.get() && promptInFlight.get() > 0;
        if (!(request instanceof Frame.RpcRequest)) {
            w.prompt = true;
            promptInFlight.incrementAndGet();
        }
        if (!leaveToReader) {
            writeQueued();
        } else {
            deferred.incrementAndGet();
        }
    }

    /** The flusher of a link {@link #forVirtual}: writes what is queued each time a caller wakes it. */
    private void flushWhenWoken() {
        while (!isLost()) {
            LockSupport.park(this);
            if (flushScheduled.getAndSet(false)) {
                writeQueued();
            }
        }
    }

    @Override
    boolean spinsBeforeParking() {
        return !forVirtual; // the reader brings every reply: a spinning caller would only take its CPU
    }

    @Override
    void settled(Waiter w) {
        if (w.prompt) {
            promptInFlight.decrementAndGet();
        }
    }

    /**
     * Writes everything queued with one system call, unless another caller is writing (it looks at
     * the queue again once it is done, so nothing queued is left behind).
     */
    private void writeQueued() {
        while (!queue.isEmpty() && writing.compareAndSet(false, true)) {
            try {
                int n = 0;
                int frames = 0;
                byte[] f;
                while (n < writeBuffer.length && (f = queue.poll()) != null) {
                    if (n + f.length > writeBuffer.length) {
                        writeBuffer = Arrays.copyOf(writeBuffer, Math.max(writeBuffer.length * 2, n + f.length));
                    }
                    System.arraycopy(f, 0, writeBuffer, n, f.length);
                    n += f.length;
                    frames++;
                }
                if (isLost()) {
                    queue.clear();
                    return;
                }
                out.write(writeBuffer, 0, n);
                writes.incrementAndGet();
                framesWritten.addAndGet(frames);
            } catch (IOException e) {
                lose("write failed: " + e.getMessage());
            } finally {
                writing.set(false);
            }
        }
    }

    /**
     * Takes the writer role until the returned action is run (tests): frames sent meanwhile
     * queue up, and the action writes them all at once, as a busy writer would.
     */
    Runnable holdWrites() {
        while (!writing.compareAndSet(false, true)) {
            Thread.onSpinWait();
        }
        return () -> {
            writing.set(false);
            writeQueued();
        };
    }

    /** Frames queued, not written yet (tests). */
    int queuedFrames() {
        return queue.size();
    }

    /** Write system calls on this connection so far, and the frames they carried (tests: coalescing). */
    long[] writeCounts() {
        return new long[] {writes.get(), framesWritten.get(), deferred.get()};
    }

    // ---- reading

    @Override
    boolean serve(Waiter w, long deadline) {
        if (forVirtual || reading.get() || !reading.compareAndSet(false, true)) {
            return false;
        }
        try {
            while (w.reply == null && !isLost()) {
                if (!readOnce() && (Thread.currentThread().isInterrupted()
                        || (deadline != Long.MAX_VALUE && deadline - System.nanoTime() <= 0))) {
                    break;
                }
            }
        } finally {
            reading.set(false);
        }
        writeQueued();
        handOff();
        return true;
    }

    @Override
    boolean readerIdle() {
        return !reading.get();
    }

    @Override
    void replied(Waiter w) {
        if (forVirtual) {
            return;
        }
        if (w.thread.isVirtual()) {
            virtualWaiters.decrementAndGet();
        }
        if (!reading.get() && !pending.isEmpty()) {
            handOff();
        }
    }

    @Override
    void spinning(boolean start) {
        if (start) {
            spinners.incrementAndGet();
        } else {
            spinners.decrementAndGet();
        }
    }

    /**
     * Makes sure a caller that still waits takes the reader role, if nobody has it: a spinning one
     * will (it tries once it stops, and stops when it sees the role free), else a parked one is woken.
     */
    private void handOff() {
        if (reading.get() || spinners.get() > 0) {
            return;
        }
        Thread self = Thread.currentThread();
        for (Waiter p : pending.values()) {
            if (p.waited() && p.reply == null && p.thread != self && !p.thread.isVirtual()) {
                LockSupport.unpark(p.thread);
                return;
            }
        }
        if (!pending.isEmpty()) {
            LockSupport.unpark(watcher);
        }
    }

    /**
     * One read (blocking at most {@link #READ_POLL_MS}), then hands out every whole reply read;
     * false if the read timed out. The caller has the reader role.
     */
    private boolean readOnce() {
        writeQueued(); // the frames left to the reader leave before it blocks
        if (readEnd == readBuffer.length) {
            compact(readBuffer.length);
        }
        int n;
        try {
            n = in.read(readBuffer, readEnd, readBuffer.length - readEnd);
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            lose(isLost() ? "connection closed" : "read failed: " + e.getMessage());
            return true;
        }
        if (n < 0) {
            lose("connection closed");
            return true;
        }
        readEnd += n;
        while (readEnd - readStart >= FrameHeaderLayout.LENGTH_BYTES) {
            int length = (readBuffer[readStart] & 0xFF) << 24 | (readBuffer[readStart + 1] & 0xFF) << 16
                    | (readBuffer[readStart + 2] & 0xFF) << 8 | (readBuffer[readStart + 3] & 0xFF);
            if (length < FrameHeaderLayout.HEADER_BYTES || length > FrameHeaderLayout.MAX_FRAME_BYTES) {
                lose("malformed reply: a frame of " + Integer.toUnsignedString(length) + " bytes");
                return true;
            }
            int whole = FrameHeaderLayout.LENGTH_BYTES + length;
            if (readEnd - readStart < whole) {
                if (whole > readBuffer.length - readStart) {
                    compact(whole);
                }
                break;
            }
            Frame f;
            try {
                f = WireCodec.decode(Unpooled.wrappedBuffer(readBuffer, readStart + FrameHeaderLayout.LENGTH_BYTES,
                        length));
            } catch (MalformedFrameException e) {
                // the server spoke garbage: nothing on this connection can be trusted any more
                lose("malformed reply: " + e.getMessage());
                return true;
            }
            readStart += whole;
            deliver(f);
        }
        if (readStart == readEnd) {
            readStart = 0;
            readEnd = 0;
        }
        return true;
    }

    /** Moves the unread bytes to the front, making room for at least {@code room} bytes in all. */
    private void compact(int room) {
        int unread = readEnd - readStart;
        byte[] to = room > readBuffer.length ? new byte[Math.max(room, readBuffer.length * 2)] : readBuffer;
        System.arraycopy(readBuffer, readStart, to, 0, unread);
        readBuffer = to;
        readStart = 0;
        readEnd = unread;
    }

    /** The reader of a link {@link #forVirtual}: reads until the connection is lost or closed. */
    private void readAlways() {
        long lastReplyNs = System.nanoTime();
        while (!isLost()) {
            // polls while the last reply came less than the spin ago, whether or not a request is
            // pending: the callers that reply woke have often not sent their next request yet (one
            // batch of replies can empty the pending map), and they send it after the yield below
            if (readSpinNs > 0 && !replyArrived() && System.nanoTime() - lastReplyNs < readSpinNs) {
                spinPolls++; // the reader is its only writer
                Thread.yield(); // the callers replies woke run first; with none left, this polls again at once
                continue;
            }
            readOnce(); // at once if a reply arrived, else blocks until one does
            lastReplyNs = System.nanoTime();
        }
    }

    /** Polls of the reader that found no reply and yielded (tests: the spin stops at rest). */
    long spinPolls() {
        return spinPolls;
    }

    /** Whether bytes wait on the socket (a read would not block); true on an error, which the read then reports. */
    private boolean replyArrived() {
        try {
            return in.available() > 0;
        } catch (IOException e) {
            return true;
        }
    }

    /**
     * The watcher: reads while the connection is idle (until a call comes), or for virtual-thread
     * callers, or if callers wait and nobody reads.
     */
    private void watch() {
        long seen = -1;
        while (!isLost()) {
            LockSupport.parkNanos(this, WATCH_NS);
            long now = nextId.get();
            boolean quiet = now == seen;
            seen = now;
            boolean wanted = virtualWaiters.get() > 0 || (quiet && pending.isEmpty())
                    || (!pending.isEmpty() && !reading.get());
            if (!wanted || isLost() || reading.get() || !reading.compareAndSet(false, true)) {
                continue;
            }
            try {
                // reads on while virtual threads wait, or while the connection stays idle (a read
                // that times out costs one wake-up per READ_POLL_MS at rest); any call ends it
                do {
                    readOnce();
                } while (!isLost() && (virtualWaiters.get() > 0 || (pending.isEmpty() && nextId.get() == seen)));
            } finally {
                reading.set(false);
            }
            writeQueued();
            handOff();
        }
    }
}
