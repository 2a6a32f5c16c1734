package io.lockfabric.lock;

/**
 * What a client counted about its own acquisitions: {@code retries} (atomics that failed and were
 * repeated, tickets undone), {@code aborts} (acquisitions given up and restarted), {@code resets}
 * (lock resets or recoveries it took part in). Cumulative since the client was opened.
 */
public record LockStats(long retries, long aborts, long resets) {
    public static final LockStats ZERO = new LockStats(0, 0, 0);

    public LockStats minus(LockStats o) {
        return new LockStats(retries - o.retries, aborts - o.aborts, resets - o.resets);
    }

    public LockStats plus(LockStats o) {
        return new LockStats(retries + o.retries, aborts + o.aborts, resets + o.resets);
    }
}
