package io.lockfabric.fabric;

/** A client's thread of control, started by {@link Fabric#spawn}. */
public interface ClientThread {
    String name();

    /**
     * Waits until the client's body has returned (or thrown, or, on the simulator, crashed). On
     * the simulator this is what runs the simulation.
     */
    void join();

    /** A platform thread named {@code name} running {@code body}, started now (the real-time fabrics). */
    static ClientThread startPlatform(String name, Runnable body) {
        Thread t = Thread.ofPlatform().name(name).start(body);
        return new ClientThread() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void join() {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new FabricException("interrupted while joining " + name, e);
                }
            }
        };
    }
}
