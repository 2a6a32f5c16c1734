package io.lockfabric.fabric;

/** A client's thread of control, started by {@link Fabric#spawn}. */
public interface ClientThread {
    String name();

    /**
     * Waits until the client's body has returned (or thrown, or, on the simulator, crashed). On
     * the simulator this is what runs the simulation.
     */
    void join();
}
