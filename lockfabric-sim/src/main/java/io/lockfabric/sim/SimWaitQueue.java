package io.lockfabric.sim;

import io.lockfabric.fabric.Endpoint;

import java.util.ArrayDeque;

/**
 * Simulated clients waiting, in FIFO order, to be woken by the driver of the simulation: for
 * oracles (the ideal CAS lock of ShiftLock §2.3) that know the instant a condition starts to hold
 * on a memory node ({@link SimFabric#watch}) and wake a waiter exactly then. No real client could
 * wait this way; lock protocols never do. Runs in virtual time, so one seed gives one run.
 *
 * <p>{@link #await} is called by a simulated client, {@link #wakeFirst} by a {@link
 * SimFabric.MemoryWatcher} on the driver; both run one at a time, like everything in a simulation,
 * so the queue needs no locking.
 */
public final class SimWaitQueue {
    private final SimFabric fabric;
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();

    private record Waiter(SimProcess process, long token) {
    }

    SimWaitQueue(SimFabric fabric) {
        this.fabric = fabric;
    }

    /**
     * Blocks the simulated client that owns {@code endpoint} until {@link #wakeFirst} picks it.
     *
     * @throws IllegalArgumentException if {@code endpoint} is not an endpoint of this queue's fabric
     * @throws IllegalStateException    if called outside a simulated process
     */
    public void await(Endpoint endpoint) {
        if (!(endpoint instanceof SimEndpoint e) || e.fabric() != fabric) {
            throw new IllegalArgumentException("endpoint " + endpoint.id() + " is not a client of " + fabric.name());
        }
        SimProcess p = e.enterRequired("await");
        Simulation sim = fabric.simulation();
        waiters.add(new Waiter(p, sim.token(p)));
        sim.block(p);
    }

    /**
     * On the driver: wakes the first waiter that has not finished (crashed or ended), at the current
     * virtual time. Returns false, waking nobody, if no such waiter is left.
     */
    public boolean wakeFirst() {
        Simulation sim = fabric.simulation();
        for (Waiter w = waiters.poll(); w != null; w = waiters.poll()) {
            if (!w.process().finished()) {
                Waiter next = w;
                sim.schedule(sim.now(), () -> sim.resume(next.process(), next.token(), null, null));
                return true;
            }
        }
        return false;
    }
}
