package io.lockfabric.sim;

import io.lockfabric.fabric.Durations;

/**
 * One scheduled fault: a client crash or pause, or a memory-node pause, at virtual time
 * {@code atNs}. {@code target} is a client index (crash, pause) or a memory node (MN pause);
 * {@code lengthNs} is the pause length (0 for a crash).
 */
public record Fault(Kind kind, int target, long atNs, long lengthNs) {
    public enum Kind {
        /** The client stops forever, holding whatever it holds. */
        CRASH("crash"),
        /** The client stops the world for {@code lengthNs}, then goes on as if nothing happened. */
        PAUSE("pause"),
        /** The memory node's NIC serves nothing for {@code lengthNs}. */
        MN_PAUSE("mn-pause");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** The virtual time the fault ends (its start for a crash). */
    public long endNs() {
        return atNs + lengthNs;
    }

    @Override
    public String toString() {
        String who = kind == Kind.MN_PAUSE ? "memory node " + target : "client " + target;
        String length = kind == Kind.CRASH ? "" : " for " + Durations.format(lengthNs);
        return kind.label() + " of " + who + " at " + Durations.format(atNs) + length;
    }
}
