package io.lockfabric.lock;

/** A range lock held over [start, end) of a range lock table's address space. */
public interface RangeGrant extends Grant {
    long start();

    long end();

    /** Range grants are not per lock; the start identifies the grant in reports. */
    @Override
    default long lockId() {
        return start();
    }
}
