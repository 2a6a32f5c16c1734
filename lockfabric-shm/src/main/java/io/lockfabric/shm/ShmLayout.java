package io.lockfabric.shm;

/**
 * The layout of a shared-memory fabric's file: every offset is a byte offset from the start of the
 * file, every field a 64-bit little-endian word at an 8-byte aligned offset (read and written with
 * volatile or atomic accesses only, since other processes read them at any time).
 *
 * <pre>
 *  0        4096        12288                SERVER_AT          BLOBS_AT           SLOTS_AT           HEAP_AT        size
 * +--------+-----------+--------------------+------------------+------------------+------------------+---- ... ----+
 * | header | stripes   | table directory    | rpc request ring | rpc blobs        | endpoint slots   | tables and  |
 * |        | 256 x 32 B| 1024 entries x 1 KiB| 64 x REQUEST_BYTES| 256 x 64 B      | 1024 x SLOT_BYTES| rpc blobs   |
 * +--------+-----------+--------------------+------------------+------------------+------------------+---- ... ----+
 *
 * header:    0 magic | 8 version | 16 file bytes | 24 heap start | 32 (unused)
 *            40 next ordinal (FAA) | 48 next node id (FAA) | 56 directory entries ever used (high water)
 *
 * stripe:    0 lock word: 0 free, else the holder's process token (see ProcessLiveness)
 *            8 redo log: 0 empty, else 1 + the file offset of the entry being stored
 *            16 redo log: the entry's new word 0 | 24 the entry's new word 1
 *
 * directory entry (index i; its table's region id = service id = generation x 1024 + i + 1):
 *            0 state: 0 free, 1 ready, 2 dropped (its memory held until no open endpoint has it open)
 *            8 file offset | 16 bytes | 24 locks | 32 hash of fill
 *            40 fill length | 48 name length | 56 protocol length | 64 has a service (1) or not (0)
 *            72 options length | 80 live id: the region id while ready, 0 once dropped (verbs check it)
 *            88 id: the region id given last | 96 parent: the region id of the table whose service created it, or 0
 *            128 .. 256 name (UTF-8) | 256 .. 320 protocol (UTF-8)
 *            320 .. 576 the service's options (UTF-8, one NAME=VALUE a line) | 576 .. 1024 fill, if it fits
 *
 * rpc request ring (one active rpc server per file, the process whose token is in the first word):
 *            0 server token (0: none) | 8 ring lock (as a stripe's) | 16 tail | 24 head (the server's)
 *            32 bell: a futex word (low 32 bits) the server sleeps on; a client that appends a request
 *               while the next word is 1 adds 1 to it and wakes the server (see Futex)
 *            40 asleep: 1 while the server sleeps on the bell, else 0
 *            64 .. REQUEST_CAPACITY requests of REQUEST_BYTES:
 *               0 caller's slot | 8 caller's packed id | 16 service | 24 call number | 32 length
 *               40 blob: 0 (data inline) or 1 + the blob index holding the data | 48 the server token it was sent to
 *               64 .. data (up to RPC_INLINE_BYTES)
 *
 * rpc blob (an rpc request or reply longer than RPC_INLINE_BYTES, in the heap; owned by the caller):
 *            0 owner: the caller's packed endpoint id (0: free) | 8 the caller's slot index | 16 call number
 *            24 file offset | 32 bytes
 *
 * endpoint slot:
 *            0 owner: the process token of the endpoint's process (0: never used)
 *            8 id: the endpoint's packed EndpointId, 0 once closed
 *            16 last node: the node id of the last endpoint that had the slot
 *            24 ring lock: as a stripe's lock word (senders take it)
 *            32 tail: messages ever appended | 40 head: messages ever taken (by the owner only)
 *            48 wake: 0, or the file offset of the bell (a slot's word 56) of the thread that may sleep until
 *               the reply is there: once it stored the reply, the server adds 1 to that bell and wakes it
 *            56 bell: a futex word (low 32 bits) a thread of the slot's process sleeps on: a platform
 *               thread waiting for the slot's reply, or the process's reply watcher (in a slot of its own)
 *            64 .. 192 the tables the endpoint has open: one bit per directory entry
 *            192 .. ring of RING_CAPACITY messages of MESSAGE_BYTES:
 *               0 from (packed id) | 8 channel (high 32) and type (low 32) | 16 lock | 24 a | 32 b
 *            SLOT_REPLY .. the reply to the endpoint's one outstanding rpc:
 *               0 call number (stored last: the reply is there) | 8 failed (1) or not | 16 length
 *               24 blob: 0 (data inline) or 1 + the blob index holding the data | 64 .. data
 * </pre>
 */
public final class ShmLayout {
    private ShmLayout() {
    }

    /** "LFSHM" and the layout version in ASCII, little-endian: what an initialised file starts with. */
    public static final long MAGIC = 0x3130_4D48_5346_4CL;
    public static final long VERSION = 3;

    public static final long HEADER_MAGIC = 0;
    public static final long HEADER_VERSION = 8;
    public static final long HEADER_FILE_BYTES = 16;
    public static final long HEADER_HEAP_START = 24;
    public static final long HEADER_HEAP_NEXT = 32;
    public static final long HEADER_NEXT_ORDINAL = 40;
    public static final long HEADER_NEXT_NODE = 48;
    public static final long HEADER_TABLES = 56;
    public static final long HEADER_BYTES = 4096;

    public static final int STRIPES = 256;
    public static final long STRIPE_BYTES = 32;
    public static final long STRIPES_AT = HEADER_BYTES;
    public static final long STRIPE_LOCK = 0;
    public static final long STRIPE_LOG_ENTRY = 8;
    public static final long STRIPE_LOG_LO = 16;
    public static final long STRIPE_LOG_HI = 24;

    public static final int MAX_TABLES = 1024;
    public static final long DIR_ENTRY_BYTES = 1024;
    public static final long DIRECTORY_AT = STRIPES_AT + STRIPES * STRIPE_BYTES;
    public static final long DIR_STATE = 0;
    public static final long DIR_OFFSET = 8;
    public static final long DIR_BYTES = 16;
    public static final long DIR_LOCKS = 24;
    public static final long DIR_FILL_HASH = 32;
    public static final long DIR_FILL_LENGTH = 40;
    public static final long DIR_NAME_LENGTH = 48;
    public static final long DIR_PROTOCOL_LENGTH = 56;
    public static final long DIR_HAS_SERVICE = 64;
    public static final long DIR_OPTIONS_LENGTH = 72;
    public static final long DIR_LIVE_ID = 80;
    public static final long DIR_ID = 88;
    public static final long DIR_PARENT = 96;
    public static final long DIR_NAME = 128;
    public static final int DIR_NAME_MAX = 128;
    public static final long DIR_PROTOCOL = DIR_NAME + DIR_NAME_MAX;
    public static final int DIR_PROTOCOL_MAX = 64;
    public static final long DIR_OPTIONS = DIR_PROTOCOL + DIR_PROTOCOL_MAX;
    public static final int DIR_OPTIONS_MAX = 256;
    public static final long DIR_FILL = DIR_OPTIONS + DIR_OPTIONS_MAX;
    /** Fill patterns up to this size are kept whole (what a server needs to rebuild a table's service). */
    public static final int DIR_FILL_MAX = (int) (DIR_ENTRY_BYTES - DIR_FILL);
    public static final long DIR_FREE = 0;
    public static final long DIR_READY = 1;
    public static final long DIR_DROPPED = 2;
    /** Region ids carry the entry's generation above its index, so an id is not given out again soon. */
    public static final int GENERATIONS = 63;

    public static final long SERVER_AT = DIRECTORY_AT + MAX_TABLES * DIR_ENTRY_BYTES;
    public static final long SERVER_TOKEN = 0;
    public static final long SERVER_RING_LOCK = 8;
    public static final long SERVER_TAIL = 16;
    public static final long SERVER_HEAD = 24;
    public static final long SERVER_BELL = 32;
    public static final long SERVER_ASLEEP = 40;
    /**
     * How many times a server has started serving the file: each claim of {@link #SERVER_TOKEN}
     * adds one, under {@link #SERVER_RING_LOCK}. A client endpoint's rpc state lives with the server
     * of one epoch; a new epoch (a standby that took over, a server started again, even in the same
     * process) has none of it. Zero in a new file, untouched by builds before it (same layout
     * version: such a server's takeover is still seen by its token).
     */
    public static final long SERVER_EPOCH = 48;
    public static final long SERVER_HEADER_BYTES = 64;
    public static final int REQUEST_CAPACITY = 64;
    /** Requests and replies up to this size travel in the ring and the slot; longer ones in a blob. */
    public static final int RPC_INLINE_BYTES = 1024;
    /** The largest rpc request or reply the shm fabric carries: 1 MiB, as much as a tcp frame holds. */
    public static final int RPC_MAX_BYTES = 1 << 20;
    public static final long REQUEST_BYTES = 64 + RPC_INLINE_BYTES;
    public static final long REQ_CALLER_SLOT = 0;
    public static final long REQ_CALLER_ID = 8;
    public static final long REQ_SERVICE = 16;
    public static final long REQ_CALL = 24;
    public static final long REQ_LENGTH = 32;
    public static final long REQ_BLOB = 40;
    public static final long REQ_SERVER = 48;
    public static final long REQ_DATA = 64;

    public static final long BLOBS_AT = SERVER_AT + SERVER_HEADER_BYTES + REQUEST_CAPACITY * REQUEST_BYTES;
    public static final int BLOBS = 256;
    public static final long BLOB_BYTES = 64;
    public static final long BLOB_OWNER = 0;
    public static final long BLOB_SLOT = 8;
    public static final long BLOB_CALL = 16;
    public static final long BLOB_OFFSET = 24;
    public static final long BLOB_LENGTH = 32;

    public static final int MAX_ENDPOINTS = 1024;
    public static final int RING_CAPACITY = 256;
    public static final long MESSAGE_BYTES = 40;
    public static final long SLOT_OPEN = 64;
    public static final int SLOT_OPEN_WORDS = MAX_TABLES / 64;
    public static final long SLOT_HEADER_BYTES = SLOT_OPEN + SLOT_OPEN_WORDS * 8;
    public static final long SLOT_REPLY = SLOT_HEADER_BYTES + RING_CAPACITY * MESSAGE_BYTES;
    public static final long REPLY_CALL = 0;
    public static final long REPLY_FAILED = 8;
    public static final long REPLY_LENGTH = 16;
    public static final long REPLY_BLOB = 24;
    public static final long REPLY_DATA = 64;
    public static final long SLOT_BYTES = SLOT_REPLY + REPLY_DATA + RPC_INLINE_BYTES;
    public static final long SLOTS_AT = BLOBS_AT + BLOBS * BLOB_BYTES;
    public static final long SLOT_OWNER = 0;
    public static final long SLOT_ID = 8;
    public static final long SLOT_LAST_NODE = 16;
    public static final long SLOT_RING_LOCK = 24;
    public static final long SLOT_TAIL = 32;
    public static final long SLOT_HEAD = 40;
    public static final long SLOT_WAKE = 48;
    public static final long SLOT_BELL = 56;
    public static final long MSG_FROM = 0;
    public static final long MSG_CHANNEL_TYPE = 8;
    public static final long MSG_LOCK = 16;
    public static final long MSG_A = 24;
    public static final long MSG_B = 32;

    /** Tables start here (page aligned) and are 64-byte aligned each. */
    public static final long HEAP_AT = align(SLOTS_AT + MAX_ENDPOINTS * SLOT_BYTES, 4096);
    public static final long TABLE_ALIGNMENT = 64;

    /** The smallest file that holds the control areas and one page of tables. */
    public static final long MIN_FILE_BYTES = HEAP_AT + 4096;

    public static long stripe(int index) {
        return STRIPES_AT + index * STRIPE_BYTES;
    }

    /** The stripe of the 16-byte entry at file offset {@code entry}. */
    public static int stripeOf(long entry) {
        return (int) ((entry >>> 4) & (STRIPES - 1));
    }

    public static long dirEntry(int index) {
        return DIRECTORY_AT + index * DIR_ENTRY_BYTES;
    }

    /** The directory index of region id {@code id} (valid ids are positive). */
    public static int indexOf(int id) {
        return (id - 1) % MAX_TABLES;
    }

    /** The region id of directory entry {@code index} in its {@code generation}. */
    public static int idOf(int index, int generation) {
        return generation * MAX_TABLES + index + 1;
    }

    public static long blob(int index) {
        return BLOBS_AT + index * BLOB_BYTES;
    }

    /** File offset of request ring position {@code seq}. */
    public static long request(long seq) {
        return SERVER_AT + SERVER_HEADER_BYTES + (seq % REQUEST_CAPACITY) * REQUEST_BYTES;
    }

    /** Whether {@code offset} is the bell of an endpoint slot (what a slot's wake word may name). */
    public static boolean isSlotBell(long offset) {
        long rel = offset - SLOTS_AT - SLOT_BELL;
        return rel >= 0 && rel % SLOT_BYTES == 0 && rel / SLOT_BYTES < MAX_ENDPOINTS;
    }

    public static long slot(int index) {
        return SLOTS_AT + index * SLOT_BYTES;
    }

    /** File offset of ring position {@code seq} (a message count) of the slot at {@code slot}. */
    public static long message(long slot, long seq) {
        return slot + SLOT_HEADER_BYTES + (seq % RING_CAPACITY) * MESSAGE_BYTES;
    }

    public static long align(long value, long alignment) {
        return (value + alignment - 1) / alignment * alignment;
    }
}
