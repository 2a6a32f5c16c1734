package io.lockfabric.check;

/** Something the checker found wrong. {@link #description()} says what, with the grants involved. */
public sealed interface Violation {
    String description();

    /** Two conflicting holds overlapped in time. */
    record Overlap(Hold first, Hold second) implements Violation {
        public String description() {
            return "conflicting grants overlap: [" + first + "] and [" + second + "]";
        }
    }

    /** A fencing token did not increase. */
    record Fencing(Hold earlier, Hold later) implements Violation {
        public String description() {
            return "fencing token did not increase: [" + earlier + "] then [" + later + "]";
        }
    }

    /**
     * Grants recorded on two clocks that no offset between the clocks can order as their fencing
     * tokens do ({@link CrossProcessChecker}'s rule across hosts). With {@code B = A + offset}:
     * {@code aBefore} (clock A) has a smaller token than {@code bAfter} (clock B), so it was released
     * before that was granted, which bounds the offset from above; {@code bBefore} and
     * {@code aAfter} bound it from below; the bounds cross by more than the drift allowance.
     */
    record ClockOrder(Hold aBefore, Hold bAfter, Hold bBefore, Hold aAfter, long upperNs, long lowerNs,
                      long allowanceNs) implements Violation {
        public String description() {
            return "no clock offset orders the grants as their tokens do: [" + aBefore + "] before [" + bAfter
                    + "] needs offset <= " + upperNs + " ns, [" + bBefore + "] before [" + aAfter + "] needs offset >= "
                    + lowerNs + " ns (drift allowance " + allowanceNs + " ns)";
        }
    }

    /** The guarded counter of a lock differs from the number of exclusive grants it had. */
    record Counter(long lock, long expected, long actual) implements Violation {
        public String description() {
            return "guarded counter of lock " + lock + " is " + actual + ", expected " + expected
                    + " (one increment per exclusive grant)";
        }
    }

    /**
     * An application's data is wrong after the run ({@code subject}: whose, such as a B+-tree;
     * {@code what}: a value that is not the last one written, a key missing or extra, a broken
     * structure).
     */
    record Data(String subject, String what) implements Violation {
        public String description() {
            return subject + ": " + what;
        }
    }

    /**
     * A read of data guarded by lock {@code lock} got bytes no single write produced whole (the
     * object store's torn-value check): the lock let the reader in beside a writer.
     */
    record TornValue(long lock, int client, long atNs, String problem) implements Violation {
        public String description() {
            return "client " + client + " read a torn value under lock " + lock + " at " + atNs + " ns: " + problem;
        }
    }

    /** A live client made no progress: it was still blocked when the run's liveness bound passed. */
    record Stuck(int client, long lastProgressNs, long checkedAtNs) implements Violation {
        public String description() {
            return "client " + client + " is stuck: no operation completed after " + lastProgressNs
                    + " ns and still blocked at " + checkedAtNs + " ns";
        }
    }

    /**
     * A live client gave up: its protocol declared a lock broken ({@code reason}), as a protocol
     * without crash recovery does once a queue neighbour is gone. A violation only where the protocol
     * promises liveness.
     */
    record GaveUp(int client, long atNs, String reason) implements Violation {
        public String description() {
            return "client " + client + " gave up at " + atNs + " ns: " + reason;
        }
    }

    /** A lock whose holder crashed was granted again later than the protocol's recovery bound. */
    record SlowRecovery(long lock, int crashedClient, long crashedAtNs, long recoveredAtNs, long boundNs)
            implements Violation {
        public String description() {
            return "lock " + lock + " held by client " + crashedClient + " when it crashed at " + crashedAtNs
                    + " ns was granted again only at " + recoveredAtNs + " ns, " + (recoveredAtNs - crashedAtNs)
                    + " ns later; the protocol's recovery bound is " + boundNs + " ns";
        }
    }
}
