package io.lockfabric.lock;

import java.io.Serial;

/** An acquisition gave up: its bounded retries ran out, or the lock is unusable. */
public final class LockUnavailableException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    public LockUnavailableException(String message) {
        super(message);
    }
}
