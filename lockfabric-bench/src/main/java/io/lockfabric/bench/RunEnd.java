package io.lockfabric.bench;

import io.lockfabric.fabric.Durations;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How a run on a real-time fabric ended ({@link RealTimeDriver}): by itself ({@link #COMPLETE},
 * every client returned), at its deadline with clients stuck, or interrupted from outside. A run
 * that did not complete is reported with this beside its numbers; a complete one adds nothing to
 * any report. On the simulator runs are ended in virtual time and their stuck clients reported in
 * their {@link FaultOutcome}: their end is always {@link #COMPLETE}.
 *
 * <p>Times are from the run's start (its clients' start, before warmup).
 *
 * @param how       {@link How#COMPLETE}, {@link How#DEADLINE} or {@link How#INTERRUPTED}
 * @param atNs      when the run was cut off (0 if complete)
 * @param plannedNs warmup plus measured phase of a timed run; 0 for an operation-count run
 * @param graceNs   how long a client had to finish its last operation before it counted as stuck
 * @param cause     what interrupted the run ({@link How#INTERRUPTED}), else empty
 * @param stuck     clients that had been in one operation for at least the grace when the run was cut off
 * @param unended   clients whose threads had not ended even after they were interrupted
 */
public record RunEnd(How how, long atNs, long plannedNs, long graceNs, String cause, List<StuckClient> stuck,
                     List<Integer> unended) {
    /** A run whose every client returned by itself. */
    public static final RunEnd COMPLETE = new RunEnd(How.COMPLETE, 0, 0, 0, "", List.of(), List.of());

    public RunEnd {
        cause = cause == null ? "" : cause;
        stuck = List.copyOf(stuck);
        unended = List.copyOf(unended);
    }

    /** How a run ended. */
    public enum How {
        /** Every client returned by itself. */
        COMPLETE,
        /**
         * The run's planned end plus its grace passed (for an operation-count run: the grace passed
         * with no client completing an operation) with clients still in an operation: they are stuck
         * and were ended from outside. The measurements are whole; the stuck clients' ended where
         * they got stuck.
         */
        DEADLINE,
        /** Stopped from outside before its planned end (SIGTERM, Ctrl-C): its measurements are partial. */
        INTERRUPTED;

        /** {@code complete}, {@code deadline}, {@code interrupted}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A client stuck in one operation.
     *
     * @param client         the client's index
     * @param lastProgressNs when it last completed an operation (or started), from the run's start
     */
    public record StuckClient(int client, long lastProgressNs) {
    }

    public boolean complete() {
        return how == How.COMPLETE;
    }

    /** Whether the run was interrupted before its planned end, so that its numbers cover only part of it. */
    public boolean partial() {
        return how == How.INTERRUPTED;
    }

    /** The stuck clients' indexes, in order. */
    public List<Integer> stuckClients() {
        return stuck.stream().map(StuckClient::client).toList();
    }

    /**
     * Comment lines for people ({@code #}-prefixed, one per line) on how {@code protocol}'s run ended;
     * empty if it completed.
     */
    public String describe(String protocol) {
        if (complete()) {
            return "";
        }
        StringBuilder sb = new StringBuilder("# ").append(protocol).append(": ");
        if (how == How.DEADLINE) {
            sb.append("cut off at its deadline, ").append(Durations.format(atNs)).append(" into the run (")
                    .append(plannedNs > 0 ? Durations.format(plannedNs) + " planned + " : "no operation completed for ")
                    .append(Durations.format(graceNs)).append(plannedNs > 0 ? " grace)" : ")");
        } else {
            sb.append("PARTIAL: interrupted").append(cause.isEmpty() ? "" : " (" + cause + ")").append(' ')
                    .append(Durations.format(atNs)).append(" into the run")
                    .append(plannedNs > 0 ? " of " + Durations.format(plannedNs) + " planned" : "")
                    .append(": the numbers cover what was measured until then");
        }
        sb.append("; ").append(stuckText()).append('\n');
        if (!unended.isEmpty()) {
            sb.append("# ").append(protocol).append(": client(s) ").append(list(unended))
                    .append(" did not end when interrupted (waiting outside the fabric?)\n");
        }
        return sb.toString();
    }

    private String stuckText() {
        if (stuck.isEmpty()) {
            return "no client stuck";
        }
        return stuck.size() + (stuck.size() == 1 ? " client" : " clients") + " stuck (in one operation for "
                + Durations.format(graceNs) + " or more): " + stuck.stream()
                .map(s -> "client " + s.client() + " (no operation completed since " + Durations.format(s.lastProgressNs())
                        + ")")
                .collect(Collectors.joining(", "));
    }

    private static String list(List<Integer> clients) {
        return clients.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }
}
