package io.lockfabric;

import java.io.Serial;

/**
 * A lock space or range space was opened with options other than those it exists with: another
 * protocol, number of slots or protocol options in this {@link LockFabric}, or, for a space another
 * process created, another shape of its table on the memory node (protocol, slots, or an option
 * that changes the table's layout).
 */
public final class SpaceMismatchException extends LockFabricException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** A mismatch described by {@code message}, caused by {@code cause} (may be null). */
    public SpaceMismatchException(String message, Throwable cause) {
        super(message, cause);
    }
}
