package io.lockfabric.fabric;

import java.io.Serial;

/** Base of every error a fabric reports. Unchecked: the protocol SPI has no checked exceptions. */
public class FabricException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    public FabricException(String message) {
        super(message);
    }

    public FabricException(String message, Throwable cause) {
        super(message, cause);
    }
}
