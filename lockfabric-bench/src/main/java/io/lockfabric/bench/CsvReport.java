package io.lockfabric.bench;

import io.lockfabric.fabric.VerbKind;

import java.util.ArrayList;
import java.util.List;

/**
 * A header line and one row per run, comma-separated (RFC 4180 quoting where needed). Columns:
 * the parameters, the measured phase, goodput (ops/s), latency percentiles in µs, one
 * {@code ops_<kind>} and one {@code cs_ops_<kind>} column per verb kind (per cycle), retries,
 * aborts, the check summary and the client/memory-node counter cross-check.
 */
public final class CsvReport implements Report {
    @Override
    public String render(List<RunResult> results) {
        StringBuilder sb = new StringBuilder();
        List<String> header = new ArrayList<>(List.of("protocol", "fabric", "clients", "locks", "zipf", "read_ratio",
                "cs", "duration_ns", "ops", "warmup_ns", "seed", "options", "measured_ops", "measured_s", "goodput",
                "acq_p50_us", "acq_p99_us", "acq_p999_us", "op_p50_us", "op_p99_us", "op_p999_us"));
        for (VerbKind k : VerbKind.values()) {
            header.add("ops_" + k.label());
        }
        for (VerbKind k : VerbKind.values()) {
            header.add("cs_ops_" + k.label());
        }
        header.addAll(List.of("retries", "aborts", "resets", "check", "violations", "counters_agree"));
        sb.append(String.join(",", header)).append('\n');
        for (RunResult r : results) {
            MicroBenchConfig c = r.config();
            List<String> row = new ArrayList<>(List.of(r.protocol(), r.fabric(), str(c.clients()), str(c.locks()),
                    str(c.zipf()), str(c.readRatio()), str(c.cs()), str(c.durationNs()), str(c.operations()),
                    str(c.warmupNs()), str(c.seed()), c.options().toString(), str(r.measuredOps()),
                    str(r.measuredSeconds()), str(r.goodput()),
                    str(r.acquireLatency().p50Us()), str(r.acquireLatency().p99Us()), str(r.acquireLatency().p999Us()),
                    str(r.operationLatency().p50Us()), str(r.operationLatency().p99Us()),
                    str(r.operationLatency().p999Us())));
            for (VerbKind k : VerbKind.values()) {
                row.add(str(r.lockOpsPerCycle().get(k)));
            }
            for (VerbKind k : VerbKind.values()) {
                row.add(str(r.csOpsPerCycle().get(k)));
            }
            row.addAll(List.of(str(r.retries()), str(r.aborts()), str(r.resets()), r.check().summary(),
                    str(r.check().violations().size()), Boolean.toString(r.crossCheck().agree())));
            sb.append(String.join(",", row.stream().map(CsvReport::quote).toList())).append('\n');
        }
        return sb.toString();
    }

    private static String str(long v) {
        return Long.toString(v);
    }

    private static String str(double v) {
        return Double.toString(v);
    }

    /** Quotes a field that holds a comma, quote or line break, doubling inner quotes. */
    static String quote(String field) {
        if (field.indexOf(',') < 0 && field.indexOf('"') < 0 && field.indexOf('\n') < 0 && field.indexOf('\r') < 0) {
            return field;
        }
        return '"' + field.replace("\"", "\"\"") + '"';
    }
}
