package io.lockfabric.cli;

import java.io.Serial;

/** The command line asks for something that cannot be done; reported as one line, exit code 2. */
final class BadInputException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    BadInputException(String message) {
        super(message);
    }
}
