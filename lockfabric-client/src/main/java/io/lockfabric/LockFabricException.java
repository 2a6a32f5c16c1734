package io.lockfabric;

import java.io.Serial;

/**
 * Base of the errors of the client API: the fabric cannot be reached, a space exists with other
 * options, an acquisition failed or was interrupted. Unchecked.
 */
public class LockFabricException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** An error described by {@code message}. */
    public LockFabricException(String message) {
        super(message);
    }

    /** An error described by {@code message}, caused by {@code cause}. */
    public LockFabricException(String message, Throwable cause) {
        super(message, cause);
    }
}
