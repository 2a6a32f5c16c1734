package io.lockfabric.sim;

import java.io.Serial;

/**
 * Thrown inside a simulated process that has crashed or is being torn down, from whatever fabric
 * call it was blocked in. An {@link Error} so that protocol code catching exceptions does not
 * swallow it; the process wrapper catches it.
 */
final class ProcessKilled extends Error {
    @Serial
    private static final long serialVersionUID = 1L;

    ProcessKilled(String process) {
        super("simulated process " + process + " was killed", null, false, false);
    }
}
