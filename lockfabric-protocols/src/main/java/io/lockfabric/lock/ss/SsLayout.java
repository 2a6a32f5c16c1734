package io.lockfabric.lock.ss;

/**
 * The table of static segmentation: [0, N) cut into {@code segments = ⌈N / segment⌉} fixed
 * segments of {@code segment} units (the last one may be shorter), one DSLR word (the segment
 * protocol's lock word, 8 bytes) each, and one more DSLR word for the spillover [N, ∞).
 *
 * <pre>
 *  byte 0          8          16                 8·(S−1)        8·S            8·S + 8
 * +----------+----------+-----   ...   -----+--------------+--------------+
 * | seg 0    | seg 1    |                   | seg S − 1    | spillover    |
 * | DSLR (64)| DSLR (64)|                   | DSLR (64)    | DSLR (64)    |
 * +----------+----------+-----   ...   -----+--------------+--------------+
 *   [0, g)     [g, 2g)                        [(S−1)g, N)     [N, ∞)
 * </pre>
 *
 * Segment {@code i} is lock {@code i} of a DSLR table of {@code S + 1} locks; the spillover is lock
 * {@code S}. Memory: 8 bytes per segment; a table over {@link #MAX_SEGMENTS} segments is refused.
 * Immutable.
 */
public final class SsLayout {
    /**
     * Largest table: 2^28 segments, 2 GiB of DSLR words: SS-Exact at L = 1 over the paper's
     * N = 2^28 (CITRON §4.2), the largest configuration anyone has reason to run.
     */
    public static final long MAX_SEGMENTS = 1L << 28;
    /** Bytes of one segment lock: a DSLR word. */
    public static final int WORD_BYTES = 8;

    private final long units;
    private final long segment;
    private final long segments;

    /**
     * @throws IllegalArgumentException if {@code units} or {@code segment} is not positive, or the
     *                                  table would need more than {@link #MAX_SEGMENTS} segments
     */
    public SsLayout(long units, long segment) {
        if (units < 1) {
            throw new IllegalArgumentException("units (N) must be >= 1, got " + units);
        }
        if (segment < 1) {
            throw new IllegalArgumentException("segment must be >= 1 unit, got " + segment);
        }
        long count = units / segment + (units % segment == 0 ? 0 : 1);
        if (count > MAX_SEGMENTS) {
            throw new IllegalArgumentException("static segmentation of " + units + " units into segments of " + segment
                    + " needs " + count + " DSLR words (" + (count * WORD_BYTES >> 20) + " MiB); the limit is "
                    + MAX_SEGMENTS + " segments (" + (MAX_SEGMENTS * WORD_BYTES >> 20)
                    + " MiB): raise the segment size or lower units");
        }
        this.units = units;
        this.segment = segment;
        this.segments = count;
    }

    public long units() {
        return units;
    }

    public long segment() {
        return segment;
    }

    /** Segments of [0, N) (the spillover not counted). */
    public long segments() {
        return segments;
    }

    /** DSLR locks in the table: the segments and the spillover. */
    public long locks() {
        return segments + 1;
    }

    /** The DSLR lock of the spillover [N, ∞). */
    public long spilloverLock() {
        return segments;
    }

    public long tableBytes() {
        return locks() * WORD_BYTES;
    }

    /** The segment holding {@code unit} (which must lie in [0, N)). */
    public long segmentOf(long unit) {
        return unit / segment;
    }

    @Override
    public String toString() {
        return "ss layout: N = " + units + ", segments of " + segment + " units: " + segments + " + spillover";
    }
}
