package io.lockfabric.net;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.net.wire.FrameHeaderLayout;

/**
 * What one memory node (and one mailbox listener) gives its connections at most, so that no client,
 * however it behaves, can take the server's memory or sockets from the others. At a limit the
 * connection or request is refused with an ERROR that names the limit and its option, and the
 * refusal is logged at most once per cause per 10 s ({@link RefusalLog}).
 *
 * @param maxConnections        connections open at once, from everywhere
 * @param maxConnectionsPerHost connections open at once from one client address
 * @param frameDeadlineNs       how long a frame (or a connection's handshake) may take to arrive once
 *                              its first byte has: a slower sender is cut
 * @param frameMemoryBytes      bytes of large frames (over 4 KiB) being assembled, over all
 *                              connections: a frame's length prefix reserves its length before its
 *                              body is read; while the budget is full the connection is not read,
 *                              and a frame still waiting at the deadline closes it. Frames up to
 *                              4 KiB (all verbs and messages of the protocols) need no reservation
 * @param maxFrameBytes         largest frame accepted (its length prefix, checked before reading the body)
 * @param maxTables             tables the memory node hosts at once
 * @param maxEndpoints          client endpoints connected at once
 */
public record ServerLimits(int maxConnections, int maxConnectionsPerHost, long frameDeadlineNs,
                           long frameMemoryBytes, int maxFrameBytes, int maxTables, int maxEndpoints) {
    public static final int DEFAULT_MAX_CONNECTIONS = 4096;
    public static final int DEFAULT_MAX_CONNECTIONS_PER_HOST = 1024;
    public static final long DEFAULT_FRAME_DEADLINE_NS = 10_000_000_000L;
    public static final long DEFAULT_FRAME_MEMORY_BYTES = 64L << 20;
    public static final int DEFAULT_MAX_FRAME_BYTES = FrameHeaderLayout.MAX_FRAME_BYTES;
    public static final int DEFAULT_MAX_TABLES = 4096;
    public static final int DEFAULT_MAX_ENDPOINTS = 4096;

    /** The defaults: generous for benchmarks on one host, small against 4 GiB of tables. */
    public static final ServerLimits DEFAULTS = new ServerLimits(DEFAULT_MAX_CONNECTIONS,
            DEFAULT_MAX_CONNECTIONS_PER_HOST, DEFAULT_FRAME_DEADLINE_NS, DEFAULT_FRAME_MEMORY_BYTES,
            DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_TABLES, DEFAULT_MAX_ENDPOINTS);

    /** @throws IllegalArgumentException naming the first limit out of range */
    public ServerLimits {
        check(maxConnections >= 1, "max connections must be at least 1, got " + maxConnections);
        check(maxConnectionsPerHost >= 1, "max connections per host must be at least 1, got " + maxConnectionsPerHost);
        check(frameDeadlineNs >= 1_000_000, "the frame deadline must be at least 1 ms, got " + frameDeadlineNs + " ns");
        check(maxFrameBytes >= FrameHeaderLayout.HEADER_BYTES && maxFrameBytes <= FrameHeaderLayout.MAX_FRAME_BYTES,
                "the largest frame must be in [" + FrameHeaderLayout.HEADER_BYTES + ", " + FrameHeaderLayout.MAX_FRAME_BYTES
                        + "] bytes, got " + maxFrameBytes);
        check(frameMemoryBytes >= maxFrameBytes, "the frame memory (" + frameMemoryBytes
                + " bytes) must hold at least one largest frame (" + maxFrameBytes + " bytes)");
        check(maxTables >= 1, "max tables must be at least 1, got " + maxTables);
        check(maxEndpoints >= 1 && maxEndpoints <= EndpointId.MAX_QUEUE, "max endpoints must be in [1, "
                + EndpointId.MAX_QUEUE + "], got " + maxEndpoints);
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    public ServerLimits withMaxConnections(int total, int perHost) {
        return new ServerLimits(total, perHost, frameDeadlineNs, frameMemoryBytes, maxFrameBytes, maxTables, maxEndpoints);
    }

    public ServerLimits withFrameDeadlineNs(long ns) {
        return new ServerLimits(maxConnections, maxConnectionsPerHost, ns, frameMemoryBytes, maxFrameBytes, maxTables,
                maxEndpoints);
    }

    public ServerLimits withFrameMemoryBytes(long bytes) {
        return new ServerLimits(maxConnections, maxConnectionsPerHost, frameDeadlineNs, bytes, maxFrameBytes, maxTables,
                maxEndpoints);
    }

    public ServerLimits withMaxFrameBytes(int bytes) {
        return new ServerLimits(maxConnections, maxConnectionsPerHost, frameDeadlineNs, frameMemoryBytes, bytes,
                maxTables, maxEndpoints);
    }

    public ServerLimits withMaxTables(int tables) {
        return new ServerLimits(maxConnections, maxConnectionsPerHost, frameDeadlineNs, frameMemoryBytes, maxFrameBytes,
                tables, maxEndpoints);
    }

    public ServerLimits withMaxEndpoints(int endpoints) {
        return new ServerLimits(maxConnections, maxConnectionsPerHost, frameDeadlineNs, frameMemoryBytes, maxFrameBytes,
                maxTables, endpoints);
    }
}
