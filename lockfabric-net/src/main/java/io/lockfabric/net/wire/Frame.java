package io.lockfabric.net.wire;

import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.Verb;

import java.util.List;

/**
 * One decoded frame of the wire protocol: the closed set of things a client endpoint, the memory
 * node and another client say to each other. {@link WireCodec} turns them into bytes and back; each
 * frame's byte layout is drawn in its {@code *Layout} class. Every frame but
 * {@link PeerMessage} and {@link PeerPing} carries the id of the request it is or answers, so requests can be
 * pipelined and replies matched out of order.
 */
public sealed interface Frame {
    long requestId();

    FrameType type();

    /**
     * Opens one more client endpoint on this connection: who the client process is and where the
     * endpoint's mailbox listens. A connection carries any number of endpoints of one process.
     */
    record Hello(long requestId, long processNonce, String listenHost, int listenPort) implements Frame {
        public FrameType type() { return FrameType.HELLO; }
    }

    /** The endpoint's packed {@link io.lockfabric.fabric.EndpointId} and ordinal. */
    record Welcome(long requestId, long endpointId, int ordinal, int memoryNodes) implements Frame {
        public FrameType type() { return FrameType.WELCOME; }
    }

    record VerbRequest(long requestId, Verb verb) implements Frame {
        public FrameType type() { return FrameType.VERB; }
    }

    record BatchRequest(long requestId, List<Verb> verbs) implements Frame {
        public BatchRequest {
            verbs = List.copyOf(verbs);
        }

        public FrameType type() { return FrameType.BATCH; }
    }

    /** A request to a table's rpc service for endpoint {@code endpoint} (packed id, opened on this connection). */
    record RpcRequest(long requestId, long endpoint, int service, byte[] payload) implements Frame {
        public FrameType type() { return FrameType.RPC; }
    }

    /**
     * The shape of the table to open for endpoint {@code endpoint} (packed id, opened on this
     * connection; the table is kept while it is open, {@code spec.service()} is always null on the
     * wire) and, if it wants a service, the options the server builds that service with.
     */
    record OpenTable(long requestId, long endpoint, TableSpec spec, boolean wantsService, List<String> serviceOptions)
            implements Frame {
        public OpenTable {
            serviceOptions = List.copyOf(serviceOptions);
        }

        public OpenTable(long requestId, long endpoint, TableSpec spec, boolean wantsService) {
            this(requestId, endpoint, spec, wantsService, List.of());
        }

        public FrameType type() { return FrameType.OPEN_TABLE; }
    }

    record TableOpened(long requestId, int memoryNode, long address, int service) implements Frame {
        public FrameType type() { return FrameType.TABLE_OPENED; }
    }

    /** The shape the table already has. */
    record TableMismatch(long requestId, TableSpec existing) implements Frame {
        public FrameType type() { return FrameType.TABLE_MISMATCH; }
    }

    /**
     * Endpoint {@code endpoint} (packed id, opened on this connection) is closed: dead in the
     * directory, its tables closed; answered with an empty {@link Results}. The connection stays.
     */
    record Bye(long requestId, long endpoint) implements Frame {
        public FrameType type() { return FrameType.BYE; }
    }

    record Lookup(long requestId, long endpointId) implements Frame {
        public FrameType type() { return FrameType.LOOKUP; }
    }

    record PeerAddress(long requestId, String host, int port) implements Frame {
        public FrameType type() { return FrameType.PEER_ADDRESS; }
    }

    record Stats(long requestId, int memoryNode) implements Frame {
        public FrameType type() { return FrameType.STATS; }
    }

    /** Ops and payload bytes by {@link io.lockfabric.fabric.VerbKind} ordinal. */
    record StatsReply(long requestId, long[] ops, long[] bytes) implements Frame {
        public FrameType type() { return FrameType.STATS_REPLY; }
    }

    /** Asks for every table the memory node holds. */
    record ListTables(long requestId) implements Frame {
        public FrameType type() { return FrameType.LIST_TABLES; }
    }

    /** Drops table {@code name}; unless {@code force}, only if no client has it open. */
    record DropTable(long requestId, String name, boolean force, List<Long> exceptEndpoints) implements Frame {
        public DropTable {
            exceptEndpoints = List.copyOf(exceptEndpoints);
            if (force && !exceptEndpoints.isEmpty()) {
                throw new IllegalArgumentException("a forced drop has no endpoints to except");
            }
        }

        /** A drop refused while any connection has the table open, unless forced. */
        public DropTable(long requestId, String name, boolean force) {
            this(requestId, name, force, List.of());
        }

        public FrameType type() { return FrameType.DROP_TABLE; }
    }

    /**
     * Tables of the memory node: {@code total} of them exist, {@code tables} are the ones that fit
     * one frame (all of them, unless there are thousands).
     */
    record TableList(long requestId, int total, List<TableRow> tables) implements Frame {
        public TableList {
            tables = List.copyOf(tables);
        }

        public FrameType type() { return FrameType.TABLE_LIST; }
    }

    /**
     * One table of a {@link TableList}: its memory (with the tables its service created), the client
     * connections that have it open, and since when none has ({@code idleMs}, -1 while one has).
     */
    record TableRow(String name, String protocol, long bytes, int openers, long idleMs) {
    }

    /** Verb or batch results ({@link VerbLayout#encodeResult}) or an rpc response. */
    record Results(long requestId, byte[] payload) implements Frame {
        public FrameType type() { return FrameType.RESULTS; }
    }

    record ErrorReply(long requestId, ErrorCode code, String message) implements Frame {
        public FrameType type() { return FrameType.ERROR; }
    }

    /**
     * The listener's opening: its {@link HandshakeLayout#WIRE_VERSION wire version}, whether the
     * connector must prove the shared secret, and the nonce to prove it on; request id 0.
     */
    record Challenge(long requestId, int version, boolean secretRequired, byte[] nonce) implements Frame {
        public FrameType type() { return FrameType.CHALLENGE; }
    }

    /**
     * The connector's answer: its wire version, its own nonce (for the listener's proof) and
     * HMAC-SHA256 of the secret over the nonces and the connection's context (empty without a secret).
     */
    record Auth(long requestId, int version, byte[] nonce, byte[] proof) implements Frame {
        public FrameType type() { return FrameType.AUTH; }
    }

    /** The listener accepted the {@link Auth}; its proof of the secret over the connector's nonce (empty without one). */
    record AuthOk(long requestId, byte[] proof) implements Frame {
        public FrameType type() { return FrameType.AUTH_OK; }
    }

    /** A mailbox message for endpoint {@code to} (packed id); request id is always 0. */
    record PeerMessage(long to, Message message) implements Frame {
        public long requestId() { return 0; }

        public FrameType type() { return FrameType.PEER_MESSAGE; }
    }

    /** A liveness probe from endpoint {@code from} to endpoint {@code to} (packed ids); request id is always 0. */
    record PeerPing(long to, long from) implements Frame {
        public long requestId() { return 0; }

        public FrameType type() { return FrameType.PEER_PING; }
    }
}
