package io.lockfabric.net;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The memory node's idle strategy for an I/O thread: after its last ready connection or task it
 * keeps polling its connections without blocking for {@code spinNs}, and only then sleeps in the
 * kernel until a connection is ready.
 *
 * <p>Why: on a loaded server a request that finds its I/O thread asleep costs a wake-up, which on
 * a virtual machine is an inter-processor interrupt and tens of microseconds; a thread that polls
 * through the short gaps between batches never sleeps under load. At rest, it sleeps after
 * {@code spinNs} and costs nothing. This is what an RDMA NIC's poller does, bounded. {@code spinNs}
 * 0 sleeps at once (Netty's default strategy).
 *
 * <p>One instance per event loop (it keeps that loop's last activity); not thread-safe.
 */
final class SpinThenSleep implements SelectStrategy {
    private final long spinNs;
    private final LongSupplier clock;
    private final LongAdder polls;
    private long lastActiveNs;

    /** {@code polls} counts the polls that found nothing and kept spinning (for the tests and the stats). */
    SpinThenSleep(long spinNs, LongSupplier clock, LongAdder polls) {
        if (spinNs < 0) {
            throw new IllegalArgumentException("spin must not be negative, got " + spinNs + " ns");
        }
        this.spinNs = spinNs;
        this.clock = clock;
        this.polls = polls;
        this.lastActiveNs = clock.getAsLong();
    }

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        int ready = selectNow.get(); // a poll that does not block
        long now = clock.getAsLong();
        if (ready > 0 || hasTasks) {
            lastActiveNs = now;
            return ready;
        }
        if (now - lastActiveNs < spinNs) {
            polls.increment();
            Thread.onSpinWait();
            return SelectStrategy.CONTINUE;
        }
        return SelectStrategy.SELECT;
    }
}
