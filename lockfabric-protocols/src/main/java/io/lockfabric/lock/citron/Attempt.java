package io.lockfabric.lock.citron;

import java.util.ArrayList;
import java.util.List;

/**
 * One pass of an acquisition's tree part over its nodes (Algorithm 2 lines 6–7, {@link TreeLocker}):
 * the nodes held so far, whether it gave them up ({@link HoldWait}), and what the node acquisition
 * under way hands back to the loop. A restart begins a new one. Not thread-safe.
 */
final class Attempt {
    final List<HeldNode> held = new ArrayList<>();
    /** The held nodes were given up to break a possible deadlock: restart once the node under way is done. */
    boolean yielded;
    /**
     * When the earliest node in {@link #held} was acquired. A live request keeps earlier nodes
     * at most hold-wait-ns in all (the lease recoveries of others count on it), however many
     * times the node under way aborts and retries (issue 6).
     */
    long heldSince;
    /** The node the last ACQUIRED outcome took. */
    HeldNode acquired;
    /** Fencing token taken by the last node acquired (0: none yet). */
    long token;
    /** Where an ESCALATE outcome goes: the parent (leaf starvation) or a stuck ancestor. */
    long escalateTo;
    /** The node under way was reached by escalation or a ticket reset: stale leaf bits may remain. */
    boolean recovering;

    /** Whether a held node covers {@code x} (an escalation took its parent). */
    boolean heldCovers(long x, CitronLayout tree) {
        for (HeldNode h : held) {
            if (tree.covers(h.node(), x)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code y} covers a held node (an occupier of y waits for us). */
    boolean coversHeld(long y, CitronLayout tree) {
        for (HeldNode h : held) {
            if (tree.covers(y, h.node())) {
                return true;
            }
        }
        return false;
    }
}
