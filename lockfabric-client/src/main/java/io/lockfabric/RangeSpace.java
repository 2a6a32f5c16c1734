package io.lockfabric;

import io.lockfabric.lock.Mode;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A named range lock over the address space [0, ∞) on the memory node: {@code [start, end)} ranges
 * are held exclusive or shared, and two requests conflict when their ranges overlap and one is
 * exclusive. Every process that opens the same name on the same server contends for the same
 * ranges. The protocol is CITRON ({@code citron}) unless the space's options name another of
 * {@code ./lockfabric protocols}' range protocols.
 *
 * <p>Requests share the {@link LockFabric}'s pool of endpoints as {@link LockSpace}'s do, and a
 * request whose caller gives up is abandoned the same way: granted and released at once, nothing
 * left held. Thread-safe.
 */
public interface RangeSpace {
    /** The space's name. */
    String name();

    /** The range protocol's registry name. */
    String protocol();

    /** {@link #acquire(long, long, Mode)} exclusive. */
    default Held acquire(long start, long end) {
        return acquire(start, end, Mode.EXCLUSIVE);
    }

    /**
     * Waits until [{@code start}, {@code end}) is held in {@code mode}.
     *
     * @throws IllegalArgumentException  if {@code start < 0} or {@code end <= start}
     * @throws LockInterruptedException if the thread is interrupted while it waits
     * @throws LockFabricException       if the protocol gives up or the fabric fails
     */
    Held acquire(long start, long end, Mode mode);

    /**
     * Waits at most {@code wait} (at least the fabric's try-lock grace) for [{@code start},
     * {@code end}) in {@code mode}; empty if not granted by then, and then nothing is held.
     *
     * @throws IllegalArgumentException  if {@code start < 0} or {@code end <= start}
     * @throws LockInterruptedException if the thread is interrupted while it waits
     */
    Optional<Held> tryAcquire(long start, long end, Mode mode, Duration wait);

    /** Queues a request for [{@code start}, {@code end}) and returns at once; as {@link LockSpace#acquireAsync}. */
    CompletableFuture<Held> acquireAsync(long start, long end, Mode mode);

    /** As {@link LockSpace#onLoss}: told of every hold lost to the protocol's lease. */
    void onLoss(Consumer<Held> listener);

    /** What this space counted in this process so far (no slots: no false conflicts). */
    LockSpaceStats stats();
}
