package io.lockfabric.bench;

import java.io.Serial;

/** A run could not complete: a client failed (its cause attached) or the run could not be set up. */
public final class BenchmarkFailedException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    public BenchmarkFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
