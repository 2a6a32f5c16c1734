package io.lockfabric.net;

import io.netty.channel.Channel;

import java.lang.System.Logger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link ServerLimits} of one listening socket (a memory node's, or a client's mailbox
 * listener), enforced: it admits or refuses each new connection by the connection counts, gives
 * each connection a {@link GuardedFrameDecoder} that draws on one shared frame-memory budget, and
 * logs refusals through one {@link RefusalLog}. Thread-safe.
 */
final class ConnectionGuard {
    private final ServerLimits limits;
    private final RefusalLog refusals;
    private final String optionPrefix;
    private final AtomicInteger open = new AtomicInteger();
    private final Map<InetAddress, AtomicInteger> openByHost = new ConcurrentHashMap<>();
    private final AtomicLong frameBytes = new AtomicLong();
    private final AtomicLong frameBytesPeak = new AtomicLong();

    /**
     * @param optionPrefix how the limits' options are named in refusals: {@code "--"} for serve's
     *                     command line, {@code ""} for a client's mailbox listener
     */
    ConnectionGuard(ServerLimits limits, Logger log, String optionPrefix) {
        this.limits = limits;
        this.refusals = new RefusalLog(log);
        this.optionPrefix = optionPrefix;
    }

    ServerLimits limits() {
        return limits;
    }

    RefusalLog refusals() {
        return refusals;
    }

    /** The name of a limit's option in messages. */
    String option(String name) {
        return optionPrefix + name;
    }

    /**
     * Counts {@code ch} in if the limits allow it (and out again when it closes).
     *
     * @return null if admitted, else why not (already logged)
     */
    String admit(Channel ch) {
        InetAddress host = ((InetSocketAddress) ch.remoteAddress()).getAddress();
        if (open.incrementAndGet() > limits.maxConnections()) {
            open.decrementAndGet();
            String why = "the server has " + limits.maxConnections() + " connections open, its limit ("
                    + option("max-connections") + ")";
            refusals.refuse("connections", "a connection from " + host.getHostAddress() + ": " + why);
            return why;
        }
        AtomicInteger fromHost = openByHost.computeIfAbsent(host, h -> new AtomicInteger());
        if (fromHost.incrementAndGet() > limits.maxConnectionsPerHost()) {
            fromHost.decrementAndGet();
            open.decrementAndGet();
            String why = "the server has " + limits.maxConnectionsPerHost() + " connections open from "
                    + host.getHostAddress() + ", its limit per host (" + option("max-connections-per-host") + ")";
            refusals.refuse("connections-per-host", why);
            return why;
        }
        ch.closeFuture().addListener(f -> {
            open.decrementAndGet();
            openByHost.computeIfPresent(host, (h, n) -> n.decrementAndGet() == 0 ? null : n);
        });
        return null;
    }

    /** Connections admitted and still open. */
    int openConnections() {
        return open.get();
    }

    GuardedFrameDecoder newDecoder() {
        return new GuardedFrameDecoder(this);
    }

    /** Reserves {@code bytes} of the frame-memory budget; false if they do not fit. */
    boolean reserveFrame(long bytes) {
        long now;
        do {
            now = frameBytes.get();
            if (now + bytes > limits.frameMemoryBytes()) {
                return false;
            }
        } while (!frameBytes.compareAndSet(now, now + bytes));
        frameBytesPeak.accumulateAndGet(now + bytes, Math::max);
        return true;
    }

    void releaseFrame(long bytes) {
        frameBytes.addAndGet(-bytes);
    }

    /** Bytes of the budget reserved now by frames being assembled. */
    long frameBytesInUse() {
        return frameBytes.get();
    }

    /** The most bytes ever reserved at once. */
    long frameBytesPeak() {
        return frameBytesPeak.get();
    }
}
