package io.lockfabric;

import io.lockfabric.lock.Mode;

/**
 * One lock request of a space: a key on a slot (lock spaces, {@code start = end = 0}) or a range
 * ({@code slot = -1}).
 */
record Request(String key, long slot, long start, long end, Mode mode) {
    static Request point(String key, long slot, Mode mode) {
        return new Request(key, slot, 0, 0, mode);
    }

    static Request range(long start, long end, Mode mode) {
        return new Request("[" + start + ", " + end + ")", -1, start, end, mode);
    }
}
