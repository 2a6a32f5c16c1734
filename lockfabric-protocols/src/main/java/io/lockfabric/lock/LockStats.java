package io.lockfabric.lock;

/**
 * What a client counted about its own acquisitions: {@code retries} (atomics that failed and were
 * repeated, tickets undone), {@code aborts} (acquisitions given up and restarted), {@code resets}
 * (lock resets or recoveries it took part in), and, for protocols that itemize it, where the time
 * went ({@link LatencyBreakdown}). Cumulative since the client was opened.
 */
public record LockStats(long retries, long aborts, long resets, LatencyBreakdown breakdown) {
    public static final LockStats ZERO = new LockStats(0, 0, 0);

    public LockStats {
        if (breakdown == null) {
            breakdown = LatencyBreakdown.EMPTY;
        }
    }

    /** Counts without a time breakdown. */
    public LockStats(long retries, long aborts, long resets) {
        this(retries, aborts, resets, LatencyBreakdown.EMPTY);
    }

    public LockStats minus(LockStats o) {
        return new LockStats(retries - o.retries, aborts - o.aborts, resets - o.resets, breakdown.minus(o.breakdown));
    }

    public LockStats plus(LockStats o) {
        return new LockStats(retries + o.retries, aborts + o.aborts, resets + o.resets, breakdown.plus(o.breakdown));
    }
}
