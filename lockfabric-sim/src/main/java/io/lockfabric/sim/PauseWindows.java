package io.lockfabric.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * The stretches of virtual time a memory node is paused (its NIC and CPU start nothing), from
 * injected faults. Windows may overlap; nothing starts inside any of them. Driver thread only.
 */
final class PauseWindows {
    private final List<long[]> windows = new ArrayList<>();

    /** Pauses during [from, until). */
    void add(long from, long until) {
        if (until > from) {
            windows.add(new long[]{from, until});
        }
    }

    /** The first time at or after {@code t} outside every window. */
    long firstFreeAt(long t) {
        boolean moved = true;
        while (moved) {
            moved = false;
            for (long[] w : windows) {
                if (t >= w[0] && t < w[1]) {
                    t = w[1];
                    moved = true;
                }
            }
        }
        return t;
    }
}
