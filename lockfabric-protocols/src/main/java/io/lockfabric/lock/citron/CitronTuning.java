package io.lockfabric.lock.citron;

import java.util.HashSet;
import java.util.Set;

/**
 * CITRON's meet-in-the-middle parameters (m, T_wait) for the clients of one lock tree, changed at
 * run time with the two-phase commit of FAST'23 §3.5.5. This is the cluster manager's side, kept
 * in one JVM (clients of the local and sim fabrics share it); a networked cluster manager would
 * carry the same two phases over RPC.
 *
 * <p>{@link #propose} is phase 1: from their next node on, clients use min T to decide to abort,
 * max T to wait, min m to notify ancestors and max m to check descendants, which is compatible
 * both with clients still on the old setting and with clients already on the new one.
 * {@link #commit} is phase 2: it succeeds only once no client is still inside a node acquisition
 * it began before the proposal (an idle client takes the current setting at its next node, which
 * counts as having received it); from then on everyone uses the new setting. Thread-safe.
 */
public final class CitronTuning {
    /** One (m, T_wait) setting. */
    public record Setting(int m, long tWaitNs) {
        public Setting {
            if (m < 1 || m > CitronLayout.MAX_LEVELS) {
                throw new IllegalArgumentException("m must be in [1, " + CitronLayout.MAX_LEVELS + "], got " + m);
            }
            if (tWaitNs <= 0 || tWaitNs == Long.MAX_VALUE) {
                throw new IllegalArgumentException("T_wait must be positive and finite, got " + tWaitNs);
            }
        }
    }

    /**
     * What one node acquisition uses: m to notify ancestors and to check descendants, T_wait for
     * the abort test and for the wait.
     */
    public record Effective(int notifyM, int checkM, long abortTNs, long waitTNs) {
        static Effective of(Setting s) {
            return new Effective(s.m(), s.m(), s.tWaitNs(), s.tWaitNs());
        }

        static Effective between(Setting a, Setting b) {
            return new Effective(Math.min(a.m(), b.m()), Math.max(a.m(), b.m()), Math.min(a.tWaitNs(), b.tWaitNs()),
                    Math.max(a.tWaitNs(), b.tWaitNs()));
        }
    }

    /** A client's registration: the epoch its node acquisition in progress began in. */
    final class Participant {
        private long epochInUse = -1;

        /** Begins a node acquisition: the parameters to use for it. */
        Effective begin() {
            synchronized (CitronTuning.this) {
                epochInUse = epoch;
                return proposed == null ? Effective.of(current) : Effective.between(current, proposed);
            }
        }

        void end() {
            synchronized (CitronTuning.this) {
                epochInUse = -1;
            }
        }
    }

    private final Set<Participant> participants = new HashSet<>();
    private Setting current;
    private Setting proposed;
    /** Bumped by each proposal and each commit. */
    private long epoch;

    public CitronTuning(int m, long tWaitNs) {
        this.current = new Setting(m, tWaitNs);
    }

    synchronized Participant join() {
        Participant p = new Participant();
        participants.add(p);
        return p;
    }

    synchronized void leave(Participant p) {
        participants.remove(p);
    }

    /** The setting in force (the old one while a change is proposed). */
    public synchronized Setting current() {
        return current;
    }

    /** The proposed setting, or null if no change is under way. */
    public synchronized Setting proposed() {
        return proposed;
    }

    /**
     * Phase 1: clients start using the combination of the current and {@code next} settings.
     *
     * @throws IllegalStateException if another change is under way
     */
    public synchronized void propose(Setting next) {
        if (proposed != null) {
            throw new IllegalStateException("a change to " + proposed + " is under way; commit it first");
        }
        proposed = next;
        epoch++;
    }

    /**
     * Phase 2: switches every client to the proposed setting if each has received the proposal.
     *
     * @return true if committed (or nothing was proposed), false if some client is still inside a
     * node acquisition it began under the old setting: try again later
     */
    public synchronized boolean commit() {
        if (proposed == null) {
            return true;
        }
        for (Participant p : participants) {
            if (p.epochInUse >= 0 && p.epochInUse < epoch) {
                return false;
            }
        }
        current = proposed;
        proposed = null;
        epoch++;
        return true;
    }
}
