package io.lockfabric.sim;

import io.lockfabric.fabric.FabricException;

import java.io.Serial;

/**
 * The simulation cannot make the progress a caller waits for: no event is left while processes
 * are still blocked (a deadlock or a lost wake-up), or virtual time passed the run's limit.
 */
public final class SimulationStuckException extends FabricException {
    @Serial
    private static final long serialVersionUID = 1L;

    public SimulationStuckException(String message) {
        super(message);
    }
}
