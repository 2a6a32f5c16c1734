package io.lockfabric.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One operation count per client thread for progress displays, each in its own 128-byte stretch
 * of an array so that no two writers share a cache line (nor the array header). A client publishes
 * its own count with an opaque store; a reader sums opaque loads: a little stale, never torn, and
 * no contention on the clients' hot path.
 */
public final class OpCounterSlots {
    /** Longs between two slots: 128 bytes covers adjacent-line prefetching too. */
    private static final int STRIDE_LONGS = 16;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] slots;
    private final int clients;

    public OpCounterSlots(int clients) {
        this.clients = clients;
        this.slots = new long[(clients + 2) * STRIDE_LONGS];
    }

    /** Called only by client {@code client}'s thread. */
    public void publish(int client, long operations) {
        SLOT.setOpaque(slots, index(client), operations);
    }

    /** The sum of the last published counts; any thread. */
    public long total() {
        long sum = 0;
        for (int c = 0; c < clients; c++) {
            sum += (long) SLOT.getOpaque(slots, index(c));
        }
        return sum;
    }

    private static int index(int client) {
        return (client + 1) * STRIDE_LONGS;
    }
}
