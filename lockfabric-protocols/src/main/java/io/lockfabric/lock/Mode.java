package io.lockfabric.lock;

/** How a lock is held: shared (readers) or exclusive (writers). */
public enum Mode {
    SHARED,
    EXCLUSIVE;

    /** Whether two holders in these modes may not hold one lock at the same time. */
    public boolean conflictsWith(Mode other) {
        return this == EXCLUSIVE || other == EXCLUSIVE;
    }
}
