package io.lockfabric.check;

import java.nio.charset.StandardCharsets;

/**
 * The binary layout of a history file ({@link HistoryFile}), version {@value #VERSION}: one
 * process's grants and releases, compact enough to keep every hold of a benchmark (about 12 bytes a
 * hold on a small table; a fixed-width record would take 45).
 *
 * <pre>
 * file     := magic version header run* end
 * magic    := 'L' 'F' 'H' 'I' 'S' 'T' 0x0D 0x0A       8 bytes ("LFHIST\r\n": a text-mode copy breaks it)
 * version  := u16, big-endian                          1; a reader refuses any other
 * header   := string clockDomain                       {@link ClockDomain#id()}: equal ids, comparable times
 *             string host                              the machine's name, for reports
 *             uvarint pid                              the process id, for reports
 *             string label                             what the process was (its command line, shortly)
 * run      := 0x52 ('R')
 *             string kind                              "point" (lock ids) or "range" (ranges [start, end))
 *             string protocol                          the protocol's registry name
 *             string table                             the lock table; holds of different tables never conflict
 *             u8 runFlags                              bit 0: the protocol's tokens are strict
 *             uvarint holds                            then that many records, by grant time
 * record   := u8 holdFlags                             bit 0 EXCLUSIVE (else SHARED), bit 1 never released,
 *                                                      bit 2 a range (a length follows)
 *             uvarint client                           the client within the process
 *             uvarint start                            the lock id, or the range's start
 *             [uvarint length]                         bit 2 only: end - start (else end = start + 1)
 *             svarint token                            the fencing token
 *             svarint grantedDelta                     grant time minus the previous record's (first: minus 0)
 *             [uvarint held]                           bit 1 clear only: release time minus grant time
 * end      := 0x45 ('E') uvarint totalHolds            a file cut short lacks it, and is refused
 *
 * string   := uvarint byteLength, UTF-8 bytes
 * uvarint  := the value's 64 bits, 7 at a time from the lowest, bit 7 set on every byte but the last
 * svarint  := uvarint of the zigzag encoding (n &lt;&lt; 1) ^ (n &gt;&gt; 63)
 * </pre>
 *
 * Times are {@link System#nanoTime()} of the recording process, nanoseconds; a hold's recorded
 * interval lies inside the real one (grant recorded after {@code acquire} returned, release before
 * {@code release} was called). The request time of a hold is not kept.
 */
public final class HistoryFileLayout {
    /** The first 8 bytes of every history file. */
    public static final byte[] MAGIC = "LFHIST\r\n".getBytes(StandardCharsets.US_ASCII);
    /** The version this code writes and reads. */
    public static final int VERSION = 1;
    /** A run section's tag. */
    public static final int TAG_RUN = 'R';
    /** The end section's tag. */
    public static final int TAG_END = 'E';
    /** Run flag: the protocol's fencing tokens strictly increase per exclusive grant. */
    public static final int RUN_STRICT_FENCING = 1;
    /** Hold flag: the hold is exclusive. */
    public static final int HOLD_EXCLUSIVE = 1;
    /** Hold flag: the hold was never released (no {@code held} field). */
    public static final int HOLD_NEVER_RELEASED = 1 << 1;
    /** Hold flag: the hold is a range (a {@code length} field follows {@code start}). */
    public static final int HOLD_RANGE = 1 << 2;
    /** Every hold flag this version knows; a record with another bit set is refused. */
    public static final int HOLD_FLAGS = HOLD_EXCLUSIVE | HOLD_NEVER_RELEASED | HOLD_RANGE;
    /** The file name suffix of history files. */
    public static final String SUFFIX = ".lfh";
    /** Payload bits per varint byte. */
    static final int VARINT_BITS = 7;
    /** The continuation bit of a varint byte. */
    static final int VARINT_MORE = 0x80;
    /** The longest string a reader accepts, in bytes. */
    static final int MAX_STRING_BYTES = 64 * 1024;

    private HistoryFileLayout() {
    }

    /** Zigzag: small negative and positive numbers to small unsigned ones. */
    static long zigzag(long n) {
        return (n << 1) ^ (n >> 63);
    }

    static long unzigzag(long z) {
        return (z >>> 1) ^ -(z & 1);
    }
}
