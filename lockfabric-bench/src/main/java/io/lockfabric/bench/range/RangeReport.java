package io.lockfabric.bench.range;

import io.lockfabric.bench.JsonWriter;
import io.lockfabric.bench.ReportFormat;
import io.lockfabric.bench.TextTable;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.VerbKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders {@link RangeRunResult}s in the bench's three formats: an aligned table, CSV (header and
 * one row per run) or JSON Lines (one object per run). Per-size goodput appears for every size of
 * the run (one for a fixed size, three for the mixed workload). Stateless.
 */
public final class RangeReport {
    private static final String[] HEADER = {"protocol", "L", "clients", "goodput Mops/s", "by size Mops/s",
            "acq p50 us", "p99", "p99.9", "aborts/acq", "timing aborts/acq", "verbs/acq", "holds", "check"};
    private static final boolean[] NUMERIC = {false, false, true, true, false, true, true, true, true, true, false, true,
            false};

    private RangeReport() {
    }

    public static String render(List<RangeRunResult> results, ReportFormat format) {
        return switch (format) {
            case TABLE -> table(results);
            case CSV -> csv(results);
            case JSON -> json(results);
        };
    }

    static String table(List<RangeRunResult> results) {
        TextTable t = new TextTable(HEADER, NUMERIC);
        for (RangeRunResult r : results) {
            t.row(r.protocol(), r.config().sizeName(), Integer.toString(r.config().clients()),
                    String.format(Locale.ROOT, "%.3f", r.goodput() / 1e6), bySize(r),
                    us(r.acquireLatency().p50Us()), us(r.acquireLatency().p99Us()), us(r.acquireLatency().p999Us()),
                    String.format(Locale.ROOT, "%.4f", r.abortsPerAcquisition()),
                    r.timingAborts() < 0 ? "-" : String.format(Locale.ROOT, "%.2e", r.timingAbortsPerAcquisition()),
                    String.format(Locale.ROOT, "%.1f (%s)", r.verbsPerAcquisition().oneSided(),
                            r.verbsPerAcquisition().compact()),
                    Long.toString(r.holdsChecked()), r.correct() ? "ok" : r.violations().size() + " VIOLATIONS");
        }
        return t.render();
    }

    private static String bySize(RangeRunResult r) {
        List<String> parts = new ArrayList<>();
        for (long l : r.config().sizes()) {
            parts.add(l + ":" + String.format(Locale.ROOT, "%.3f", r.goodput(l) / 1e6));
        }
        return String.join(" ", parts);
    }

    private static String us(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String csv(List<RangeRunResult> results) {
        StringBuilder sb = new StringBuilder();
        List<String> header = new ArrayList<>(List.of("protocol", "fabric", "clients", "units", "range_size", "zipf",
                "cs_ns", "duration_ns", "ops", "warmup_ns", "seed", "options", "measured_ops", "measured_s", "goodput",
                "acq_p50_us", "acq_p99_us", "acq_p999_us", "op_p50_us", "op_p99_us", "op_p999_us"));
        for (VerbKind k : VerbKind.values()) {
            header.add("ops_" + k.label());
        }
        header.addAll(List.of("retries", "aborts", "timing_aborts", "yields", "escalations", "aborts_per_acq",
                "holds_checked", "violations"));
        sb.append(String.join(",", header)).append('\n');
        for (RangeRunResult r : results) {
            RangeBenchConfig c = r.config();
            List<String> row = new ArrayList<>(List.of(r.protocol(), r.fabric(), str(c.clients()), str(c.units()),
                    c.sizeName(), str(c.zipf()), str(c.csNs()), str(c.durationNs()), str(c.operations()),
                    str(c.warmupNs()), str(c.seed()), quote(String.join(" ", c.options())), str(r.measuredOps()),
                    str(r.measuredNs() / 1e9), str(r.goodput()), str(r.acquireLatency().p50Us()),
                    str(r.acquireLatency().p99Us()), str(r.acquireLatency().p999Us()),
                    str(r.operationLatency().p50Us()), str(r.operationLatency().p99Us()),
                    str(r.operationLatency().p999Us())));
            for (VerbKind k : VerbKind.values()) {
                row.add(str(r.verbsPerAcquisition().get(k)));
            }
            row.addAll(List.of(str(r.retries()), str(r.aborts()), str(r.timingAborts()), str(r.yields()),
                    str(r.escalations()), str(r.abortsPerAcquisition()), str(r.holdsChecked()),
                    str(r.violations().size())));
            sb.append(String.join(",", row)).append('\n');
        }
        return sb.toString();
    }

    static String json(List<RangeRunResult> results) {
        StringBuilder sb = new StringBuilder();
        for (RangeRunResult r : results) {
            RangeBenchConfig c = r.config();
            JsonWriter w = new JsonWriter(sb);
            w.beginObject();
            w.name("protocol").value(r.protocol());
            w.name("fabric").value(r.fabric());
            w.name("clients").value(c.clients());
            w.name("units").value(c.units());
            w.name("range_size").value(c.sizeName());
            w.name("zipf").value(c.zipf());
            w.name("cs_ns").value(c.csNs());
            w.name("seed").value(c.seed());
            w.name("options").beginArray();
            for (String o : c.options()) {
                w.value(o);
            }
            w.endArray();
            w.name("measured_ops").value(r.measuredOps());
            w.name("measured_s").value(r.measuredNs() / 1e9);
            w.name("goodput").value(r.goodput());
            w.name("goodput_by_size").beginObject();
            for (long l : c.sizes()) {
                w.name(Long.toString(l)).value(r.goodput(l));
            }
            w.endObject();
            w.name("acquire_us").beginObject();
            w.name("p50").value(r.acquireLatency().p50Us());
            w.name("p99").value(r.acquireLatency().p99Us());
            w.name("p999").value(r.acquireLatency().p999Us());
            w.endObject();
            w.name("verbs_per_acquisition").beginObject();
            for (VerbKind k : VerbKind.values()) {
                if (r.verbsPerAcquisition().get(k) != 0) {
                    w.name(k.label()).value(r.verbsPerAcquisition().get(k));
                }
            }
            w.endObject();
            w.name("aborts_per_acquisition").value(r.abortsPerAcquisition());
            w.name("timing_aborts").value(r.timingAborts());
            w.name("holds_checked").value(r.holdsChecked());
            w.name("violations").beginArray();
            for (Violation v : r.violations()) {
                w.value(v.description());
            }
            w.endArray();
            w.endObject();
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String str(long v) {
        return Long.toString(v);
    }

    private static String str(double v) {
        return Double.toString(v);
    }

    private static String quote(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }
}
