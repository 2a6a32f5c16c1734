package io.lockfabric.lock.declock;

/**
 * DecLock's acquisition timestamps (§5.3): microseconds since the synchronized start, kept
 * modulo {@code 2^bits}. Two timestamps are ordered with wrap-around: {@code a} is earlier than
 * {@code b} if {@code b - a} (mod 2^bits) is in {@code (0, 2^(bits-1))}; a larger difference means
 * the later-looking one wrapped. A wrong order (waiters more than half the range apart) only
 * costs fairness, never safety.
 */
final class Timestamps {
    private Timestamps() {
    }

    static boolean earlier(long a, long b, int bits) {
        if (bits == 0) {
            return false;
        }
        long mask = (1L << bits) - 1;
        long diff = (b - a) & mask;
        return diff != 0 && diff < 1L << (bits - 1);
    }
}
