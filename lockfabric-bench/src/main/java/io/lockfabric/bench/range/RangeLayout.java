package io.lockfabric.bench.range;

import io.lockfabric.bench.Columns;
import io.lockfabric.bench.JsonWriter;
import io.lockfabric.bench.ReportLayout;
import io.lockfabric.bench.RunResult;
import io.lockfabric.check.Violation;
import io.lockfabric.lock.LockStats;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.lockfabric.bench.Columns.str;

/**
 * How {@link RangeWorkload} runs are reported. Table: protocol, L, clients, goodput in Mops/s
 * overall and per range size (every size of the run: one for a fixed size, three for the mixed
 * workload), acquire p50 / p99 / p99.9 in µs, aborts and timing aborts per acquisition, verbs per
 * acquisition, holds checked and the check. CSV: the parameters, the measured phase, latencies,
 * one {@code ops_<kind>} column per verb kind (per acquisition), retries, aborts, timing aborts
 * (an empty cell for protocols that do not count them; {@code -} in the table, {@code null} in
 * JSON), yields, escalations, aborts per acquisition, holds checked and violations. JSON: see
 * {@link RangeWorkload}.
 */
final class RangeLayout implements ReportLayout {
    static final RangeLayout INSTANCE = new RangeLayout();

    private RangeLayout() {
    }

    private static RangeWorkload config(RunResult r) {
        return r.workload(RangeWorkload.class);
    }

    @Override
    public List<Column> table() {
        return List.of(
                Column.text("protocol", RunResult::protocol),
                Column.text("L", r -> config(r).sizeName()),
                Column.number("clients", r -> Integer.toString(config(r).clients())),
                Column.number("goodput Mops/s", r -> String.format(Locale.ROOT, "%.3f", r.goodput() / 1e6)),
                Column.text("by size Mops/s", RangeLayout::bySize),
                Column.number("acq p50 us", r -> us(r.acquireLatency().p50Us())),
                Column.number("p99", r -> us(r.acquireLatency().p99Us())),
                Column.number("p99.9", r -> us(r.acquireLatency().p999Us())),
                Column.number("aborts/acq", r -> String.format(Locale.ROOT, "%.4f", r.abortsPerOperation())),
                Column.number("timing aborts/acq", r -> !r.countsTimingAborts() ? "-"
                        : String.format(Locale.ROOT, "%.2e", r.timingAbortsPerOperation())),
                Column.text("verbs/acq", r -> String.format(Locale.ROOT, "%.1f (%s)", r.lockOpsPerCycle().oneSided(),
                        r.lockOpsPerCycle().compact())),
                Column.number("holds", r -> Long.toString(r.check().holds())),
                Column.text("check", r -> r.correct() ? "ok" : r.violations().size() + " VIOLATIONS"));
    }

    private static String bySize(RunResult r) {
        List<String> parts = new ArrayList<>();
        for (long l : config(r).sizes()) {
            parts.add(l + ":" + String.format(Locale.ROOT, "%.3f", r.goodput(l) / 1e6));
        }
        return String.join(" ", parts);
    }

    private static String us(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    @Override
    public List<Column> csv() {
        List<Column> columns = new ArrayList<>(List.of(
                Column.text("protocol", RunResult::protocol),
                Column.text("fabric", RunResult::fabric),
                Column.number("clients", r -> str(config(r).clients())),
                Column.number("units", r -> str(config(r).units())),
                Column.text("range_size", r -> config(r).sizeName()),
                Column.number("zipf", r -> str(config(r).zipf())),
                Column.number("cs_ns", r -> str(config(r).csNs())),
                Column.number("duration_ns", r -> str(config(r).durationNs())),
                Column.number("ops", r -> str(config(r).operations())),
                Column.number("warmup_ns", r -> str(config(r).warmupNs())),
                Column.number("seed", r -> str(config(r).seed())),
                Column.text("options", r -> String.join(" ", config(r).options()))));
        columns.addAll(Columns.csvMeasured());
        columns.addAll(Columns.csvPerKind("ops_", RunResult::lockOpsPerCycle));
        columns.addAll(List.of(
                Column.number("retries", r -> str(r.retries())),
                Column.number("aborts", r -> str(r.aborts())),
                Column.number("timing_aborts", r -> r.countsTimingAborts() ? str(r.timingAborts()) : ""),
                Column.number("yields", r -> str(r.stats().counter(LockStats.YIELDS))),
                Column.number("escalations", r -> str(r.stats().counter(LockStats.ESCALATIONS))),
                Column.number("aborts_per_acq", r -> str(r.abortsPerOperation())),
                Column.number("holds_checked", r -> str(r.check().holds())),
                Column.number("violations", r -> str(r.violations().size()))));
        return columns;
    }

    @Override
    public void json(JsonWriter w, RunResult r) {
        RangeWorkload c = config(r);
        w.name("protocol").value(r.protocol());
        w.name("fabric").value(r.fabric());
        w.name("clients").value(c.clients());
        w.name("units").value(c.units());
        w.name("range_size").value(c.sizeName());
        w.name("zipf").value(c.zipf());
        w.name("cs_ns").value(c.csNs());
        if (c.readRatio() > 0) {
            w.name("read_ratio").value(c.readRatio()); // absent for the paper's all-exclusive runs
        }
        w.name("seed").value(c.seed());
        w.name("options").beginArray();
        for (String o : c.options()) {
            w.value(o);
        }
        w.endArray();
        w.name("measured_ops").value(r.measuredOps());
        w.name("measured_s").value(r.measuredSeconds());
        w.name("goodput").value(r.goodput());
        w.name("goodput_by_size").beginObject();
        for (long l : c.sizes()) {
            w.name(Long.toString(l)).value(r.goodput(l));
        }
        w.endObject();
        Columns.jsonLatency(w, "acquire_us", r.acquireLatency());
        Columns.jsonPerKind(w, "verbs_per_acquisition", r.lockOpsPerCycle(), true);
        w.name("aborts_per_acquisition").value(r.abortsPerOperation());
        if (r.countsTimingAborts()) {
            w.name("timing_aborts").value(r.timingAborts());
        } else {
            w.name("timing_aborts").nullValue();
        }
        w.name("holds_checked").value(r.check().holds());
        w.name("violations").beginArray();
        for (Violation v : r.violations()) {
            w.value(v.description());
        }
        w.endArray();
    }
}
