package io.lockfabric.sim;

import io.lockfabric.fabric.Durations;

/**
 * One scheduled fault: a client crash or pause, a compute-node crash, or a memory-node pause or
 * restart, at virtual time {@code atNs}. {@code target} is a client index (crash, pause), a compute
 * node (cn-crash) or a memory node (mn-pause, mn-restart); {@code lengthNs} is the pause length or
 * the restart's outage (0 for a crash).
 */
public record Fault(Kind kind, int target, long atNs, long lengthNs) {
    public enum Kind {
        /** The client stops forever, holding whatever it holds. */
        CRASH("crash"),
        /** The client stops the world for {@code lengthNs}, then goes on as if nothing happened. */
        PAUSE("pause"),
        /** The memory node's NIC serves nothing for {@code lengthNs}. */
        MN_PAUSE("mn-pause"),
        /** Every client of the compute node stops forever at once, holding whatever it holds. */
        CN_CRASH("cn-crash"),
        /**
         * The memory node goes away for {@code lengthNs}: its memory is lost (every table reads as
         * zeros), verbs to it fail meanwhile, and it comes back empty under a new generation
         * ({@link SimFabric#restartMemoryNodeAt}).
         */
        MN_RESTART("mn-restart");

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
        String who = switch (kind) {
            case MN_PAUSE, MN_RESTART -> "memory node " + target;
            case CN_CRASH -> "compute node " + target;
            default -> "client " + target;
        };
        String length = kind == Kind.CRASH || kind == Kind.CN_CRASH ? "" : " for " + Durations.format(lengthNs);
        return kind.label() + " of " + who + " at " + Durations.format(atNs) + length;
    }
}
