package io.lockfabric;

import java.io.Serial;

/** {@link LockFabric#open} found no memory node at the address (nothing listens, or it does not answer). */
public final class FabricUnreachableException extends LockFabricException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The fabric at {@code address} could not be reached, because of {@code cause}. */
    public FabricUnreachableException(String address, Throwable cause) {
        super("no memory node answers at " + address + ": " + cause.getMessage(), cause);
    }
}
