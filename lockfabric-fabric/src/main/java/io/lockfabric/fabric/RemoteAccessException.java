package io.lockfabric.fabric;

import java.io.Serial;

/**
 * A verb addressed memory it may not touch: an unknown region, an offset or length out of range,
 * or a misaligned atomic. Like an RNIC's remote access error, the failed verb changed nothing.
 */
public final class RemoteAccessException extends FabricException {
    @Serial
    private static final long serialVersionUID = 1L;

    public RemoteAccessException(String message) {
        super(message);
    }
}
