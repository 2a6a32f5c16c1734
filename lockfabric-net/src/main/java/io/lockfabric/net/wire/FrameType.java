package io.lockfabric.net.wire;

/**
 * The kind of a frame, its first byte after the length prefix. Requests go from a client endpoint
 * to the memory node, replies come back with the request's id, and {@link #PEER_MESSAGE} and
 * {@link #PEER_PING} go from one client endpoint straight to another.
 */
public enum FrameType {
    /** Client → server: opens an endpoint on the connection; announces its mailbox listener. */
    HELLO(1, true),
    /** One verb. */
    VERB(2, true),
    /** Several verbs executed in order, one reply. */
    BATCH(3, true),
    /** A request to a table's rpc service. */
    RPC(4, true),
    /** Opens (creating if needed) a table. */
    OPEN_TABLE(5, true),
    /** Asks the directory for a client endpoint's mailbox listener. */
    LOOKUP(6, true),
    /** Asks for the memory node's inbound counters. */
    STATS(7, true),
    /** Closes one endpoint of the connection (the connection stays, with its other endpoints). */
    BYE(8, true),
    /** Answers a {@link #CHALLENGE}: the wire version and, if the listener asks for it, proof of the shared secret. */
    AUTH(16, true),
    /** Asks for the tables the memory node holds ({@link TablesLayout}). */
    LIST_TABLES(18, true),
    /** Drops a table (forced: even while clients have it open). */
    DROP_TABLE(19, true),

    /** Server → client: the endpoint's id and ordinal, in reply to {@link #HELLO}. */
    WELCOME(64, false),
    /** Verb or batch results, or an rpc response: opaque bytes the requester decodes. */
    RESULTS(65, false),
    /** The table opened: where it lives. */
    TABLE_OPENED(66, false),
    /** The table exists with another shape: the existing shape. */
    TABLE_MISMATCH(67, false),
    /** A client endpoint's listener address, in reply to {@link #LOOKUP}. */
    PEER_ADDRESS(68, false),
    /** The memory node's counters, in reply to {@link #STATS}. */
    STATS_REPLY(69, false),
    /** A request failed: an {@link ErrorCode} and a message. */
    ERROR(70, false),
    /**
     * Listener → connector, first frame of every connection (memory node and mailbox listeners):
     * the wire version, whether a shared secret is required, and a fresh nonce to prove it on.
     */
    CHALLENGE(80, false),
    /** The {@link #AUTH} is accepted; carries the listener's own proof of the secret, if it has one. */
    AUTH_OK(81, false),
    /** Tables, in reply to {@link #LIST_TABLES} (all of them) or {@link #DROP_TABLE} (the one dropped, if any). */
    TABLE_LIST(82, false),

    /** Client → client: one mailbox message. Never answered. */
    PEER_MESSAGE(96, false),
    /** Client → client: a liveness probe ({@code Mailbox.ping}); the listener delivers nothing. Never answered. */
    PEER_PING(97, false);

    private static final FrameType[] BY_CODE = new FrameType[256];

    static {
        for (FrameType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;
    private final boolean request;

    FrameType(int code, boolean request) {
        this.code = code;
        this.request = request;
    }

    public int code() {
        return code;
    }

    /** True for the frames a client sends to the memory node and that expect a reply. */
    public boolean isRequest() {
        return request;
    }

    /** The type with that code, or null if none. */
    public static FrameType of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
