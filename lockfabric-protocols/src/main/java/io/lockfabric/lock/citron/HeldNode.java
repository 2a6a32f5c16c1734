package io.lockfabric.lock.citron;

import java.util.Arrays;

/**
 * A tree node held by a grant, or taken by a node acquisition under way: what Algorithm 3 needs
 * to give it back.
 *
 * <p>{@code leafMask}: the leaf bits it set (0 for an internal node); {@code notified}: the
 * ancestors it notified with DMax + 1 (step (d)), and {@code notifiedAt} when (this client's
 * clock, once the notifications had landed); {@code childrenLocked}: the fast path also set all
 * 256 bits of its four leaf children; {@code cfg}: the configuration it was taken in (its indices
 * are relative to it); {@code ticket}: for an internal node, the ticket whose turn it holds (−1 for
 * a leaf). {@code occBase} (−1 for a leaf) and {@code notifiedBase[i]}: the generation after which
 * scale-ups carry the node's Occ and notification i (the Exp mark the verb returned, at least
 * {@code cfg}'s generation); a grant has them all equal to its generation
 * ({@link TreeReleaser#payCarried}).
 */
record HeldNode(long node, long leafMask, long[] notified, boolean childrenLocked, CitronTree cfg, int ticket,
                long notifiedAt, int occBase, int[] notifiedBase) {
    @Override
    public String toString() {
        return "node " + node + (leafMask != 0 ? " bits " + Long.toHexString(leafMask) : "")
                + " notified " + Arrays.toString(notified) + (childrenLocked ? " +256 leaf bits" : "");
    }
}
