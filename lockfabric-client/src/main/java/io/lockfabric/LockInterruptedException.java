package io.lockfabric;

import java.io.Serial;

/**
 * The thread waiting in {@link LockSpace#acquire} (or another method that does not declare
 * {@link InterruptedException}) was interrupted. The request was abandoned: nothing is held, and
 * the thread's interrupt status is set again, so that the code above sees it.
 */
public final class LockInterruptedException extends LockFabricException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** An interrupt while waiting for {@code what}. */
    public LockInterruptedException(String what) {
        super("interrupted while waiting for " + what + " (the request was abandoned, nothing is held)");
    }
}
