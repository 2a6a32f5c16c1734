package io.lockfabric.bench;

import io.lockfabric.check.Violation;
import io.lockfabric.fabric.Durations;
import io.lockfabric.sim.Fault;

import java.util.List;

/**
 * What the injected faults of a simulated run did, and what the run's liveness and recovery checks
 * found: the {@link RunDriver}'s account of a run. The simulator's driver
 * ({@link io.lockfabric.bench.sim.SimDriver}) fills it in for every run, faulty or not; a driver
 * that only joins threads reports {@link #NONE}.
 *
 * @param plan             the fault plan, as written ({@code none} without faults)
 * @param faults           the crashes and pauses scheduled (from the seed)
 * @param crashedClients   clients that did crash (a crash of a client that had already finished is void)
 * @param stuckClients     live clients still blocked when the run's liveness bound passed
 * @param gaveUpClients    live clients that gave up because their protocol declared a lock broken
 *                         ({@link io.lockfabric.lock.LockUnavailableException}: mcs, once a queue
 *                         neighbour is gone); as stuck ones, a violation only where liveness is asserted
 * @param livenessAsserted false when a client crashed, or a message between clients was lost, and
 *                         the protocol does not claim to recover from crashes: then stuck clients
 *                         are that protocol's nature, not a bug
 * @param recoveries       each lock held by a crashing client, and when it was granted again
 * @param hazards          overlaps (and what follows from them) of holders paused longer than the
 *                         protocol's lease: the double-holder hazard that fencing tokens guard against,
 *                         reported apart from violations
 * @param violations       liveness and recovery violations
 * @param droppedMessages  client-to-client messages lost by a fault
 * @param delayedMessages  client-to-client messages delayed by a fault
 */
public record FaultOutcome(String plan, List<Fault> faults, List<Integer> crashedClients, List<Integer> stuckClients,
                           List<Integer> gaveUpClients, boolean livenessAsserted, List<Recovery> recoveries,
                           List<Hazard> hazards, List<Violation> violations, long droppedMessages,
                           long delayedMessages) {
    public static final FaultOutcome NONE = new FaultOutcome("none", List.of(), List.of(), List.of(), List.of(), true,
            List.of(), List.of(), List.of(), 0, 0);

    public FaultOutcome {
        faults = List.copyOf(faults);
        crashedClients = List.copyOf(crashedClients);
        stuckClients = List.copyOf(stuckClients);
        gaveUpClients = List.copyOf(gaveUpClients);
        recoveries = List.copyOf(recoveries);
        hazards = List.copyOf(hazards);
        violations = List.copyOf(violations);
    }

    /** A lock held by client {@code client} when it crashed; {@code recoveredAtNs} is -1 if nobody took it again. */
    public record Recovery(long lock, int client, long crashedAtNs, long recoveredAtNs) {
        public boolean recovered() {
            return recoveredAtNs >= 0;
        }

        /** Time from the crash to the next conflicting grant, or -1. */
        public long recoveryNs() {
            return recovered() ? recoveredAtNs - crashedAtNs : -1;
        }

        @Override
        public String toString() {
            return "lock " + lock + " (holder client " + client + " crashed at " + Durations.format(crashedAtNs) + "): "
                    + (recovered() ? "granted again after " + Durations.format(recoveryNs()) : "not asked for again");
        }
    }

    /** A check finding explained by a pause longer than the lease of the client named in {@code reason}. */
    public record Hazard(Violation finding, String reason) {
        public String description() {
            return "double-holder hazard (" + reason + "): " + finding.description();
        }
    }
}
