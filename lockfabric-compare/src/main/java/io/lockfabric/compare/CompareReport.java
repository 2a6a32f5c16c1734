package io.lockfabric.compare;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The comparison's results as a table, CSV or JSON Lines. Every row carries the ratio of
 * LockFabric's best rate (its fastest row) to the row's rate: how many times faster LockFabric's
 * best was than that peer; and the same ratio for LockFabric's best row with its memory node in
 * another process (every fabric but {@code local}), the fair match for peers whose servers are
 * processes of their own.
 */
public final class CompareReport {
    private final CompareWorkload workload;
    private final List<PeerResult> results;
    private final double bestLockFabric;
    private final double bestCrossProcess;

    /** The report of {@code results}, measured on {@code workload}. */
    public CompareReport(CompareWorkload workload, List<PeerResult> results) {
        this.workload = workload;
        this.results = List.copyOf(results);
        this.bestLockFabric = results.stream().filter(PeerResult::lockFabric).mapToDouble(PeerResult::opsPerSec).max().orElse(0);
        this.bestCrossProcess = results.stream().filter(PeerResult::lockFabricCrossProcess).mapToDouble(PeerResult::opsPerSec)
                .max().orElse(0);
    }

    /** The results, in order. */
    public List<PeerResult> results() {
        return results;
    }

    /** LockFabric's best rate over the rate of {@code r}, or NaN when there is no LockFabric row or {@code r} did nothing. */
    public double ratio(PeerResult r) {
        return bestLockFabric > 0 && r.opsPerSec() > 0 ? bestLockFabric / r.opsPerSec() : Double.NaN;
    }

    /**
     * LockFabric's best rate with its memory node in another process over the rate of {@code r}, or
     * NaN when there is no such row or {@code r} did nothing.
     */
    public double crossProcessRatio(PeerResult r) {
        return bestCrossProcess > 0 && r.opsPerSec() > 0 ? bestCrossProcess / r.opsPerSec() : Double.NaN;
    }

    /** One line that says what ran. */
    public String headline() {
        return String.format(Locale.ROOT, "compare: %d %s threads, %d locks, zipf %s, read ratio %s, %s measured after %s warm-up "
                        + "per peer; latency = acquire + release; LF best x = LockFabric's best rate over the row's, "
                        + "LF xproc x = the same for LockFabric with its memory node in another process",
                workload.threads(), workload.threadKind(), workload.locks(), workload.zipf(), workload.readRatio(),
                seconds(workload.durationNs()), seconds(workload.warmupNs()));
    }

    private static String seconds(long ns) {
        return ns % 1_000_000_000L == 0 ? ns / 1_000_000_000L + " s" : String.format(Locale.ROOT, "%.3f s", ns / 1e9);
    }

    /** The table, with a headline and, below, each row's system. */
    public String table() {
        StringBuilder sb = new StringBuilder(headline()).append('\n');
        int width = Math.max(24, results.stream().mapToInt(r -> r.peer().length()).max().orElse(0));
        sb.append(String.format(Locale.ROOT, "%-" + width + "s %-26s %12s %10s %10s %10s %10s %12s  %s%n", "peer", "lock", "ops/s",
                "p50 us", "p99 us", "p99.9 us", "LF best x", "LF xproc x", "check"));
        for (PeerResult r : results) {
            sb.append(String.format(Locale.ROOT, "%-" + width + "s %-26s %12.0f %10.1f %10.1f %10.1f %10s %12s  %s%n", r.peer(),
                    r.lock(), r.opsPerSec(), r.p50Us(), r.p99Us(), r.p999Us(), ratioText(ratio(r)),
                    ratioText(crossProcessRatio(r)), r.outcome()));
        }
        sb.append("systems:\n");
        for (PeerResult r : results) {
            sb.append("  ").append(r.peer()).append(": ").append(r.system()).append('\n');
        }
        return sb.toString();
    }

    private static String ratioText(double ratio) {
        return Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "%.2fx", ratio);
    }

    /** A header line and one line per row. */
    public String csv() {
        StringBuilder sb = new StringBuilder("peer,system,lock,threads,locks,zipf,read_ratio,duration_s,cycles,ops_per_sec,"
                + "p50_us,p99_us,p999_us,lockfabric_best_ratio,lockfabric_cross_process_best_ratio,exclusive_cycles,violations,errors,"
                + "stuck,check\n");
        for (PeerResult r : results) {
            List<String> cells = new ArrayList<>(List.of(r.peer(), r.system(), r.lock(), Integer.toString(workload.threads()),
                    Integer.toString(workload.locks()), Double.toString(workload.zipf()), Double.toString(workload.readRatio()),
                    num(r.seconds()), Long.toString(r.cycles()), num(r.opsPerSec()), num(r.p50Us()), num(r.p99Us()),
                    num(r.p999Us()), Double.isNaN(ratio(r)) ? "" : num(ratio(r)),
                    Double.isNaN(crossProcessRatio(r)) ? "" : num(crossProcessRatio(r)), Long.toString(r.exclusive()),
                    Long.toString(r.violations()), Long.toString(r.errors()), Integer.toString(r.stuck()), r.outcome()));
            sb.append(String.join(",", cells.stream().map(CompareReport::csvCell).toList())).append('\n');
        }
        return sb.toString();
    }

    private static String num(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    private static String csvCell(String s) {
        return s.contains(",") || s.contains("\"") || s.contains("\n") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    /** One JSON object per row (JSON Lines). */
    public String json() {
        StringBuilder sb = new StringBuilder();
        for (PeerResult r : results) {
            sb.append(String.format(Locale.ROOT, "{\"peer\":%s,\"lockfabric\":%s,\"fabric\":%s,\"system\":%s,\"lock\":%s,"
                            + "\"threads\":%d,\"thread_kind\":%s,\"locks\":%d,"
                            + "\"zipf\":%s,\"read_ratio\":%s,\"duration_s\":%s,\"cycles\":%d,\"ops_per_sec\":%s,"
                            + "\"latency_us\":{\"p50\":%s,\"p99\":%s,\"p999\":%s},\"lockfabric_best_ratio\":%s,"
                            + "\"lockfabric_cross_process_best_ratio\":%s,"
                            + "\"exclusive_cycles\":%d,\"violations\":%d,\"errors\":%d,\"stuck\":%d,\"check\":%s}%n",
                    str(r.peer()), r.lockFabric(), r.lockFabric() ? str(r.fabric()) : "null", str(r.system()), str(r.lock()),
                    workload.threads(), str(workload.threadKind()), workload.locks(),
                    workload.zipf(), workload.readRatio(), num(r.seconds()), r.cycles(), num(r.opsPerSec()), num(r.p50Us()),
                    num(r.p99Us()), num(r.p999Us()), Double.isNaN(ratio(r)) ? "null" : num(ratio(r)),
                    Double.isNaN(crossProcessRatio(r)) ? "null" : num(crossProcessRatio(r)), r.exclusive(),
                    r.violations(), r.errors(), r.stuck(), str(r.outcome())));
        }
        return sb.toString();
    }

    private static String str(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
