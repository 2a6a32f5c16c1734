package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.QueuePair;

/**
 * CITRON's spillover mutex for [N, ∞) (FAST'23 §3.3): a bakery word of DSLR's shape ({@link SpilloverLayout}),
 * used exclusive-only. Tickets and releases are MFAAs with one boundary per 16-bit counter, so each
 * counter wraps on its own and tickets compare modulo 2^16: no overflow reset is needed (at most
 * 65 535 clients in line). Acquire: MFAA {maxX + 1}, batched with the maximizer OR; READ until
 * {@code nX} reaches the ticket. Release: MFAA {nX + 1}. Lease recovery (the tree's §3.10 rule
 * for a bakery counter): {@code nX} unchanged for {@code gap × stall} ({@code gap} tickets ahead of
 * ours) ⇒ a masked CAS sets it to our ticket; a ticket that {@code nX} passed (a holder paused past
 * its lease released after a takeover) is given up for a new one. Not thread-safe.
 */
final class SpilloverMutex {
    private final QueuePair qp;
    private final Clock clock;
    private final long wordAddress;
    private final long maximizerAddress;
    private final long pollNs;
    /** Longest a live holder leaves nX unchanged ({@link Long#MAX_VALUE}: no recovery). */
    private final long stallNs;
    private long resets;
    /** Earlier lanes of a reader-lane writer under way ({@link OuterHold}); null otherwise. */
    OuterHold outer;

    SpilloverMutex(QueuePair qp, Clock clock, long wordAddress, long maximizerAddress, long pollNs, long stallNs) {
        this.stallNs = stallNs;
        this.qp = qp;
        this.clock = clock;
        this.wordAddress = wordAddress;
        this.maximizerAddress = maximizerAddress;
        this.pollNs = pollNs;
    }

    /**
     * Takes a ticket and ORs {@code rightBoundary} into the maximizer in the same round trip (masked
     * CAS with compare mask 0 is a bitwise OR; none if 0), then waits for the ticket. Returns the
     * word at {@code configAddress} READ once the mutex is held (CITRON's configuration word).
     */
    long acquire(long rightBoundary, long configAddress) {
        while (true) {
            Batch b = new Batch();
            int t = b.maskedFaa(wordAddress, SpilloverLayout.ONE_MAX_X, SpilloverLayout.BOUNDARY_MASK);
            if (rightBoundary != 0) {
                b.maskedCas(maximizerAddress, 0, 0, rightBoundary, rightBoundary);
            }
            int c = b.read8(configAddress); // behind the ticket MFAA: current if it is served at once
            qp.execute(b);
            long prev = b.longResult(t);
            int ticket = SpilloverLayout.maxX(prev);
            if (SpilloverLayout.nX(prev) == ticket) {
                return b.longResult(c);
            }
            if (waitTurn(ticket, prev)) {
                return qp.read8(configAddress);
            }
        }
    }

    /** Waits for {@code ticket}'s turn; false if nX passed it (the ticket is void). */
    private boolean waitTurn(int ticket, long seen) {
        long word = seen;
        int nX = SpilloverLayout.nX(word);
        long since = clock.nanoTime();
        while (SpilloverLayout.nX(word) != ticket) {
            if (outer != null) {
                outer.check();
            }
            clock.sleepNanos(pollNs);
            word = qp.read8(wordAddress);
            long now = clock.nanoTime();
            if (SpilloverLayout.nX(word) != nX) {
                nX = SpilloverLayout.nX(word);
                since = now;
                continue;
            }
            if (stallNs == Long.MAX_VALUE || nX == ticket) {
                continue;
            }
            long gap = (ticket - nX) & SpilloverLayout.COUNTER_MASK;
            if (gap >= ((SpilloverLayout.maxX(word) - nX) & SpilloverLayout.COUNTER_MASK)) {
                return false;
            }
            if (now - since >= gap * stallNs) {
                long swap = ((long) ticket & SpilloverLayout.COUNTER_MASK) << SpilloverLayout.N_X_SHIFT;
                long old = qp.maskedCas(wordAddress, word & SpilloverLayout.N_X_MASK, SpilloverLayout.N_X_MASK, swap,
                        SpilloverLayout.N_X_MASK);
                if (SpilloverLayout.nX(old) == nX) {
                    resets++;
                    return true;
                }
                word = old;
                nX = SpilloverLayout.nX(old);
                since = clock.nanoTime();
            }
        }
        return true;
    }

    /** Turns of crashed holders taken over. */
    long resets() {
        return resets;
    }

    /** Adds the release to {@code batch} (posted with the tree's releases). */
    void release(Batch batch) {
        batch.maskedFaa(wordAddress, SpilloverLayout.ONE_N_X, SpilloverLayout.BOUNDARY_MASK);
    }
}
