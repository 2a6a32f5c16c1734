package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.lock.dslr.DslrLayout;

/**
 * CITRON's spillover mutex for [N, ∞) (FAST'23 §3.3): DSLR's bakery word ({@link DslrLayout}),
 * used exclusive-only. Tickets and releases are MFAAs with one boundary per 16-bit counter, so each
 * counter wraps on its own and tickets compare modulo 2^16: no overflow reset is needed (at most
 * 65 535 clients in line). Acquire: MFAA {maxX + 1}, batched with the maximizer OR; READ until
 * {@code nX} reaches the ticket. Release: MFAA {nX + 1}. No lease recovery. Not thread-safe.
 */
final class SpilloverMutex {
    /** Top bit of each of DSLR's four 16-bit counters. */
    static final long BOUNDARY_MASK = (1L << 15) | (1L << 31) | (1L << 47) | (1L << 63);

    private final QueuePair qp;
    private final Clock clock;
    private final long wordAddress;
    private final long maximizerAddress;
    private final long pollNs;

    SpilloverMutex(QueuePair qp, Clock clock, long wordAddress, long maximizerAddress, long pollNs) {
        this.qp = qp;
        this.clock = clock;
        this.wordAddress = wordAddress;
        this.maximizerAddress = maximizerAddress;
        this.pollNs = pollNs;
    }

    /**
     * Takes a ticket and ORs {@code rightBoundary} into the maximizer in the same round trip (masked
     * CAS with compare mask 0 is a bitwise OR), then waits for the ticket. Returns the ticket.
     */
    int acquire(long rightBoundary) {
        Batch b = new Batch();
        int t = b.maskedFaa(wordAddress, DslrLayout.ONE_MAX_X, BOUNDARY_MASK);
        b.maskedCas(maximizerAddress, 0, 0, rightBoundary, rightBoundary);
        qp.execute(b);
        long prev = b.longResult(t);
        int ticket = DslrLayout.maxX(prev);
        long word = prev;
        while (DslrLayout.nX(word) != ticket) {
            clock.sleepNanos(pollNs);
            word = qp.read8(wordAddress);
        }
        return ticket;
    }

    /** Adds the release to {@code batch} (posted with the tree's releases). */
    void release(Batch batch) {
        batch.maskedFaa(wordAddress, DslrLayout.ONE_N_X, BOUNDARY_MASK);
    }
}
