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

    /** The guarded counter of a lock differs from the number of exclusive grants it had. */
    record Counter(long lock, long expected, long actual) implements Violation {
        public String description() {
            return "guarded counter of lock " + lock + " is " + actual + ", expected " + expected
                    + " (one increment per exclusive grant)";
        }
    }
}
