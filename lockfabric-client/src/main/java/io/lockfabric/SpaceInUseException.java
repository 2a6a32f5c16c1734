package io.lockfabric;

import java.io.Serial;

/**
 * A space was not dropped ({@link LockFabric#dropSpace}, {@link LockFabric#dropRangeSpace}) because
 * another client has it open: another process, or another {@link LockFabric}, connected to the same
 * memory node. Nothing changed; the space is still usable here.
 */
public final class SpaceInUseException extends LockFabricException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The refusal described by {@code message}, caused by {@code cause} (may be null). */
    public SpaceInUseException(String message, Throwable cause) {
        super(message, cause);
    }
}
