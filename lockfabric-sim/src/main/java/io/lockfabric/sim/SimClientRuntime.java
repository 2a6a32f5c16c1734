package io.lockfabric.sim;

import io.lockfabric.fabric.ClientRuntime;

import java.util.concurrent.RejectedExecutionException;

/**
 * The client runtime of a simulated fabric: code above the protocols (the client API) runs as
 * simulated processes in virtual time. A task started or run by a timer is a new process; a parker
 * blocks its process until an event resumes it. Everything is called by the thread holding the
 * simulation's baton (or from outside while the simulation is not running), so nothing here needs
 * locking, and a run stays a pure function of its seed.
 */
final class SimClientRuntime implements ClientRuntime {
    private final SimFabric fabric;

    SimClientRuntime(SimFabric fabric) {
        this.fabric = fabric;
    }

    @Override
    public boolean virtualTime() {
        return true;
    }

    @Override
    public long nanoTime() {
        return fabric.simulation().now();
    }

    @Override
    public void start(String name, Runnable task) {
        fabric.spawn(name, task);
    }

    /**
     * @throws IllegalStateException if the caller is not a simulated process: outside the simulation
     *                               nothing could wake it
     */
    @Override
    public Parker parker() {
        SimProcess p = fabric.simulation().current();
        if (p == null) {
            throw new IllegalStateException("a wait of the client API on the simulator must run inside a simulated process "
                    + "(Fabric.spawn); this thread is " + Thread.currentThread().getName());
        }
        return new SimParker(fabric.simulation(), p);
    }

    @Override
    public Timers newTimers(String name) {
        Simulation sim = fabric.simulation();
        return new Timers() {
            private boolean shutDown;

            @Override
            public Cancellable schedule(Runnable task, long delayNanos) {
                if (shutDown) {
                    throw new RejectedExecutionException(name + " is shut down");
                }
                boolean[] cancelled = new boolean[1];
                sim.schedule(sim.now() + Math.max(0, delayNanos), () -> {
                    if (!cancelled[0] && !shutDown) {
                        sim.spawn(name, task);
                    }
                });
                return () -> cancelled[0] = true;
            }

            @Override
            public void shutdown() {
                shutDown = true;
            }
        };
    }

    @Override
    public String toString() {
        return "virtual time of " + fabric.name();
    }

    /** A parker of one simulated process: a permit, and the token of the wait it is parked in. */
    private static final class SimParker implements Parker {
        private final Simulation sim;
        private final SimProcess owner;
        private boolean permit;
        /** The token of the wait the owner is parked in, or -1. */
        private long parkedToken = -1;

        SimParker(Simulation sim, SimProcess owner) {
            this.sim = sim;
            this.owner = owner;
        }

        @Override
        public void park() {
            parkNanos(Long.MAX_VALUE);
        }

        @Override
        public void parkNanos(long nanos) {
            if (sim.current() != owner) {
                throw new IllegalStateException("only " + owner.name() + " parks on its parker");
            }
            if (permit) {
                permit = false;
                return;
            }
            if (nanos <= 0) {
                return;
            }
            long token = sim.token(owner);
            parkedToken = token;
            if (nanos != Long.MAX_VALUE) {
                long at = sim.now() + nanos < 0 ? Long.MAX_VALUE : sim.now() + nanos;
                sim.schedule(at, () -> sim.resume(owner, token, null, null));
            }
            try {
                sim.block(owner);
            } finally {
                parkedToken = -1;
                permit = false;
            }
        }

        @Override
        public void unpark() {
            permit = true;
            long token = parkedToken;
            if (token >= 0) {
                sim.schedule(sim.now(), () -> sim.resume(owner, token, null, null));
            }
        }
    }
}
