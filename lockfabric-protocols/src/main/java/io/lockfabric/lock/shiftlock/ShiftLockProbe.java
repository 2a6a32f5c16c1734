package io.lockfabric.lock.shiftlock;

/**
 * A test seam: called by a {@link ShiftLockClient} at named points of the protocol, on the
 * client's own thread, so a fault-injection test can crash or pause that client exactly there
 * (on the simulator, by crashing the current simulated process). Production protocols use
 * {@link #NONE}.
 */
@FunctionalInterface
public interface ShiftLockProbe {
    /** The protocol points a probe sees. */
    enum Point {
        /** A writer's enqueue returned a predecessor; its Successor message is not sent yet. */
        ENQUEUED_BEHIND,
        /** A writer sent its Successor message and is about to wait for the lock. */
        WAITING_FOR_HANDOVER,
        /** A reader's counter increment found a writer queued; it is about to wait for the epoch. */
        READER_WAITING,
        /** The lock is granted; acquire is about to return. */
        GRANTED,
        /** Release is about to touch the entry or send. */
        RELEASING
    }

    ShiftLockProbe NONE = (point, lockId, endpoint) -> {
    };

    /** Called at {@code point} of an operation on {@code lockId} by the client on {@code endpoint}. */
    void at(Point point, long lockId, io.lockfabric.fabric.Endpoint endpoint);
}
