package io.lockfabric;

import java.io.Serial;

/**
 * No memory node answers at the address: {@link LockFabric#open} found none there (nothing listens,
 * or it does not answer), or a request ran on an endpoint whose connection to the memory node was
 * lost (the server died or was stopped) and no new connection could be made. A request in flight
 * when the connection is lost fails with it too; holds are then lost ({@link Held#isValid()}).
 */
public final class FabricUnreachableException extends LockFabricException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The fabric at {@code address} could not be reached, because of {@code cause}. */
    public FabricUnreachableException(String address, Throwable cause) {
        super("no memory node answers at " + address + ": " + cause.getMessage(), cause);
    }
}
