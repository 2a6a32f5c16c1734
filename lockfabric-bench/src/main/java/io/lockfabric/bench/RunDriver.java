package io.lockfabric.bench;

import io.lockfabric.check.Hold;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockUnavailableException;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * How a {@link Runner} runs the client threads of a run to their end on its fabric. On a
 * real-time fabric ({@link #threads}, a {@link RealTimeDriver}) that is joining them until the
 * run's deadline, then ending the stuck ones from outside. On the simulator a driver of its own
 * ({@code io.lockfabric.bench.sim.SimDriver}) runs virtual time up to a liveness bound, injects
 * faults, ends crashed and stuck clients from outside, reads the run's history in the light of its
 * faults and probes the memory node: the runner knows none of that, only this interface.
 */
public interface RunDriver {
    /** The fabric the runs are on. */
    Fabric fabric();

    /**
     * The workload as this driver runs it (a faulty run is always checked).
     *
     * @throws IllegalArgumentException if this driver cannot run it (faults need a duration)
     */
    default <P> Workload<P> prepare(Workload<P> workload) {
        return workload;
    }

    /**
     * Runs the spawned clients until the run is over; clients that never returned are ended with
     * {@link Client#endAt} before this returns.
     */
    Driven drive(Run run);

    /**
     * A driver that waits for the client threads to return on a real-time fabric (local, tcp), up to
     * the run's planned end plus a grace, then ends the stuck ones ({@link RealTimeDriver}).
     */
    static RealTimeDriver threads(Fabric fabric) {
        return new RealTimeDriver(fabric);
    }

    /** What a driver may do to a client of the run from outside. */
    interface Client {
        /**
         * Ends the client's measurement at observer time {@code atNs} if its loop never returned.
         * Called once the client's thread has stopped (or, for one that does not answer an
         * interrupt, once the driver has given up on it).
         */
        void endAt(long atNs);

        /** Observer time the client last completed an operation (or started); readable while it runs. */
        long lastProgressNs();

        /**
         * Asks the client to stop after its current operation, and to take being interrupted in it
         * (a {@link io.lockfabric.fabric.WaitInterruptedException}) as being ended from outside, not
         * as a failure.
         */
        void stop();

        /**
         * How the client gave up, where the driver lets clients give up on a lock their protocol
         * declared broken ({@link #toleratesBrokenLocks}); null if it did not.
         */
        GaveUp gaveUp();
    }

    /** A client gave up at observer time {@code atNs}: its protocol declared a lock broken ({@code cause}). */
    record GaveUp(long atNs, LockUnavailableException cause) {
    }

    /**
     * Whether a client whose protocol declares a lock broken ({@link LockUnavailableException}) only
     * ends, the run going on without it, instead of failing the run: in runs with injected faults,
     * where a protocol without crash recovery (mcs) has its locks broken by design. False by default.
     */
    default boolean toleratesBrokenLocks() {
        return false;
    }

    /**
     * A run as its driver sees it.
     *
     * @param workload        the run's workload
     * @param failureModel    what the protocol promises when clients crash or pause
     * @param startNs         observer time the run started (its phases count from it)
     * @param threads         the client threads, in client order
     * @param clients         the same clients, for ending them from outside
     * @param describeAddress what the protocol calls a memory word (for the busiest words)
     */
    record Run(Workload<?> workload, FailureModel failureModel, long startNs, List<ClientThread> threads,
               List<? extends Client> clients, LongFunction<Optional<String>> describeAddress) {
        public Run {
            threads = List.copyOf(threads);
            clients = List.copyOf(clients);
        }
    }

    /** What a driver found out while it ran the clients, to be applied to the run's history and check. */
    interface Driven {
        /** The run's holds as the driver knows them to have ended (a crashed client's end at its crash). */
        default List<Hold> adjust(List<Hold> holds) {
            return holds;
        }

        /** Per lock, exclusive holds cut by a crash whose guarded side effects may or may not have landed. */
        default Map<Long, Long> uncertainIncrements() {
            return Map.of();
        }

        /** The check as the driver reads it (hazards set apart) and the run's fault and liveness outcome. */
        Outcome finish(CheckResult check, List<Hold> holds);
    }

    /**
     * A driver's final word on a run.
     *
     * @param check  the check, without the findings the faults explain
     * @param faults the faults, crashes, stuck clients, recoveries and hazards ({@link FaultOutcome#NONE} if none)
     * @param nic    the memory node's queueing over the measured phase, or null if not probed
     * @param end    how the run ended on a real-time fabric: {@link RunEnd#COMPLETE}, or cut off at its
     *               deadline or interrupted, with its stuck clients
     */
    record Outcome(CheckResult check, FaultOutcome faults, NicProbe nic, RunEnd end) {
        public Outcome {
            Objects.requireNonNull(end, "end");
        }

        /** An outcome of a run that ended by itself (every simulated run: the simulator ends its own). */
        public Outcome(CheckResult check, FaultOutcome faults, NicProbe nic) {
            this(check, faults, nic, RunEnd.COMPLETE);
        }
    }
}
