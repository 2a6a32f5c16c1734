package io.lockfabric.bench.sim;

import io.lockfabric.bench.FaultOutcome;
import io.lockfabric.bench.RunResult;
import io.lockfabric.fabric.Durations;
import io.lockfabric.sim.Fault;

import java.util.List;
import java.util.stream.Collectors;

/** Comment lines for people on what a faulty simulated run went through and what it found. */
public final class FaultSummary {
    private FaultSummary() {
    }

    /** A few {@code #}-prefixed lines: the faults, crashes, stuck clients, recoveries, hazards. */
    public static String describe(RunResult r) {
        FaultOutcome f = r.faults();
        StringBuilder sb = new StringBuilder();
        sb.append("# ").append(r.protocol()).append(" faults ").append(f.plan()).append(": ")
                .append(f.faults().isEmpty() ? "no crash or pause scheduled"
                        : f.faults().stream().map(Fault::toString).collect(Collectors.joining("; ")))
                .append('\n');
        sb.append("#   crashed clients: ").append(list(f.crashedClients()))
                .append("; stuck at the end: ").append(list(f.stuckClients()));
        if (!f.gaveUpClients().isEmpty()) {
            sb.append("; gave up on a broken lock: ").append(list(f.gaveUpClients()));
        }
        if (!f.stuckClients().isEmpty() || !f.gaveUpClients().isEmpty()) {
            sb.append(f.livenessAsserted() ? " (a liveness violation)"
                    : " (expected: " + r.protocol() + " does not recover from a crashed client"
                    + (f.crashedClients().isEmpty() ? " or a lost message)" : ")"));
        }
        sb.append('\n');
        for (FaultOutcome.Recovery rec : f.recoveries()) {
            sb.append("#   ").append(rec).append('\n');
        }
        if (f.droppedMessages() + f.delayedMessages() > 0) {
            sb.append("#   messages dropped ").append(f.droppedMessages()).append(", delayed ")
                    .append(f.delayedMessages()).append('\n');
        }
        for (FaultOutcome.Hazard h : f.hazards()) {
            sb.append("#   ").append(h.description()).append('\n');
        }
        return sb.toString();
    }

    /** A recovery time against its bound, e.g. {@code 20.4ms (bound 21.1ms)}. */
    public static String recovery(long recoveryNs, long boundNs) {
        return recoveryNs < 0 ? "-" : Durations.format(recoveryNs) + (boundNs > 0 ? " (bound " + Durations.format(boundNs)
                + ")" : "");
    }

    private static String list(List<Integer> clients) {
        return clients.isEmpty() ? "none" : clients.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }
}
