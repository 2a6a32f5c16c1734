package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Clock;

/**
 * What a reader-lane writer ({@link ReaderLanes}) holds in earlier lanes while one lane's
 * acquisition waits: the lane's waits ({@link HoldWait#check}, the spillover ticket wait) call
 * {@link #check} and, once the earlier lanes have been held {@code hold-wait-ns}, give them back
 * at once (the same bound a request keeps on its earlier nodes inside one tree). The lane's own
 * acquisition then finishes as usual (a ticket cannot be handed back before its turn), and the
 * writer releases it and restarts from lane 0. Not thread-safe: one thread at a time, like the
 * endpoint.
 */
final class OuterHold {
    private final Clock clock;
    private final long since;
    private final long holdWaitNs;
    private final Runnable giveUp;
    private boolean yielded;

    OuterHold(Clock clock, long since, long holdWaitNs, Runnable giveUp) {
        this.clock = clock;
        this.since = since;
        this.holdWaitNs = holdWaitNs;
        this.giveUp = giveUp;
    }

    /** Gives the earlier lanes back if they have been held past hold-wait. */
    void check() {
        if (!yielded && clock.nanoTime() - since > holdWaitNs) {
            yielded = true;
            giveUp.run();
        }
    }

    /** Whether the earlier lanes were given back: the acquisition under way must restart. */
    boolean yielded() {
        return yielded;
    }
}
