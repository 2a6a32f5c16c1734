package io.lockfabric.compare;

/**
 * What one peer's run measured: completed acquire–release cycles in the measured window, their
 * latency (acquire and release together) and the outcome of the mutual-exclusion check.
 *
 * @param peer          the row's name, e.g. {@code lockfabric tcp dslr}, {@code redisson}
 * @param lockFabric    whether it is LockFabric (the ratio columns compare LockFabric's best with every row)
 * @param fabric        LockFabric's fabric ({@code local}, the memory node's {@code tcp}, ...), empty for a peer
 * @param system        the system and its server, e.g. {@code Redisson 3.45.1 on redis-server 7.0.15}
 * @param lock          the lock used, e.g. {@code RLock}, a protocol's name
 * @param cycles        acquire–release cycles completed in the measured window
 * @param seconds       the measured window
 * @param p50Us         median latency of a cycle, microseconds
 * @param p99Us         99th percentile, microseconds
 * @param p999Us        99.9th percentile, microseconds
 * @param exclusive     exclusive cycles over the whole run (warm-up too), each one increment of an unguarded counter
 * @param violations    conflicting holders seen together, or increments lost
 * @param errors        acquisitions or releases that failed
 * @param firstError    the first failure's message, else where the first stuck thread was, else empty
 * @param stuck         client threads still inside the peer's lock after the run's end plus its grace
 */
public record PeerResult(String peer, boolean lockFabric, String fabric, String system, String lock, long cycles, double seconds,
                         double p50Us, double p99Us, double p999Us, long exclusive, long violations, long errors,
                         String firstError, int stuck) {
    /** Whether this is LockFabric with its memory node in another process (every fabric but {@code local}). */
    public boolean lockFabricCrossProcess() {
        return lockFabric && !fabric.equals("local");
    }

    /** Cycles per second. */
    public double opsPerSec() {
        return seconds > 0 ? cycles / seconds : 0;
    }

    /** Whether the run is clean: no violation, no error, no stuck thread. */
    public boolean ok() {
        return violations == 0 && errors == 0 && stuck == 0;
    }

    /** The check column: {@code ok}, or what went wrong. */
    public String outcome() {
        if (ok()) {
            return "ok";
        }
        StringBuilder sb = new StringBuilder();
        if (violations > 0) {
            sb.append(violations).append(" violation(s)");
        }
        if (errors > 0) {
            sb.append(sb.isEmpty() ? "" : ", ").append(errors).append(" error(s): ").append(firstError);
        }
        if (stuck > 0) {
            sb.append(sb.isEmpty() ? "" : ", ").append(stuck).append(" thread(s) stuck");
            if (errors == 0 && !firstError.isEmpty()) {
                sb.append(" (").append(firstError).append(')');
            }
        }
        return sb.toString();
    }
}
