package io.lockfabric.bench.fs;

import io.lockfabric.bench.CheckResult;
import io.lockfabric.bench.Columns;
import io.lockfabric.bench.JsonWriter;
import io.lockfabric.bench.KindMeasures;
import io.lockfabric.bench.ReportLayout;
import io.lockfabric.bench.RunResult;
import io.lockfabric.check.Violation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.lockfabric.bench.Columns.str;

/**
 * How {@link FsWorkload} runs are reported. Table: lock manager, trace, clients, Kops/s, MB/s (the
 * file bytes the measured I/O moved per second), p50 / p99 in µs per operation kind of the trace,
 * the lock managers' retries per operation, and the check. CSV: the parameters, the measured phase,
 * per kind ({@code read_ops}, {@code read_p50_us}, {@code read_p99_us}, {@code read_mb_per_s}, ...),
 * {@code mb_per_s}, retries, aborts, the check. JSON: {@code protocol} (the lock manager),
 * {@code fabric}, {@code parameters} ({@code trace}, {@code describe}, {@code clients},
 * {@code shared_reads}, {@code duration_ns}, {@code warmup_ns}, {@code seed}, {@code options}),
 * {@code measured_ops}, {@code measured_s}, {@code ops_per_s}, {@code mb_per_s}, {@code latency_us},
 * {@code kinds} (per kind: {@code name}, {@code ops}, {@code ops_per_s}, {@code mb_per_s},
 * {@code latency_us}), {@code retries}, {@code aborts}, {@code check} and, on the simulator,
 * {@code faults}.
 */
public final class FsReport implements ReportLayout {
    private final FsTrace trace;

    FsReport(FsTrace trace) {
        this.trace = trace;
    }

    private static FsWorkload config(RunResult r) {
        return r.workload(FsWorkload.class);
    }

    /** File bytes moved per second by the measured operations of kind {@code kind}, in MB/s. */
    public static double megabytesPerSecond(RunResult r, int kind) {
        return r.goodputOfKind(kind) * config(r).trace().bytesOf(kind) / 1e6;
    }

    /** File bytes moved per second by every measured I/O, in MB/s. */
    public static double megabytesPerSecond(RunResult r) {
        double sum = 0;
        for (int k = 0; k < config(r).trace().kinds().size(); k++) {
            sum += megabytesPerSecond(r, k);
        }
        return sum;
    }

    /** I/O operations per second (the kinds of the trace; a client's set-up is not one). */
    public static double opsPerSecond(RunResult r) {
        double sum = 0;
        for (int k = 0; k < config(r).trace().kinds().size(); k++) {
            sum += r.goodputOfKind(k);
        }
        return sum;
    }

    /** Reads that found other bytes than they should (torn or stale). */
    public static long mismatches(RunResult r) {
        return r.check().violations().stream().filter(v -> v instanceof Violation.TornValue).count();
    }

    private static String fixed(double v, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    @Override
    public List<Column> table() {
        List<Column> c = new ArrayList<>(List.of(
                Column.text("lock manager", RunResult::protocol),
                Column.text("trace", r -> config(r).trace().name()),
                Column.number("clients", r -> str(config(r).clients())),
                Column.number("Kops/s", r -> fixed(opsPerSecond(r) / 1e3, 1)),
                Column.number("MB/s", r -> fixed(megabytesPerSecond(r), 1))));
        for (int k = 0; k < trace.kinds().size(); k++) {
            int kind = k;
            String name = trace.kinds().get(k);
            c.add(Column.number(name + " p50 us", r -> fixed(r.kind(kind).latency().p50Us(), 1)));
            c.add(Column.number(name + " p99 us", r -> fixed(r.kind(kind).latency().p99Us(), 1)));
        }
        c.add(Column.number("retries/op", r -> fixed(r.measuredOps() == 0 ? 0 : (double) r.retries() / r.measuredOps(), 2)));
        c.add(Column.text("check", r -> r.check().clean() ? "ok" : r.check().summary()));
        return c;
    }

    @Override
    public List<Column> csv() {
        List<Column> c = new ArrayList<>(List.of(
                Column.text("lock_manager", RunResult::protocol),
                Column.text("fabric", RunResult::fabric),
                Column.text("trace", r -> config(r).trace().name()),
                Column.text("describe", r -> config(r).trace().describe()),
                Column.number("clients", r -> str(config(r).clients())),
                Column.text("shared_reads", r -> String.valueOf(config(r).sharedReads())),
                Column.number("duration_ns", r -> str(config(r).durationNs())),
                Column.number("warmup_ns", r -> str(config(r).warmupNs())),
                Column.number("seed", r -> str(config(r).seed())),
                Column.text("options", r -> String.join(" ", config(r).lockOptions()))));
        c.addAll(Columns.csvMeasured());
        for (int k = 0; k < trace.kinds().size(); k++) {
            int kind = k;
            String name = trace.kinds().get(k);
            c.add(Column.number(name + "_ops", r -> str(r.kind(kind).operations())));
            c.add(Column.number(name + "_p50_us", r -> str(r.kind(kind).latency().p50Us())));
            c.add(Column.number(name + "_p99_us", r -> str(r.kind(kind).latency().p99Us())));
            c.add(Column.number(name + "_mb_per_s", r -> str(megabytesPerSecond(r, kind))));
        }
        c.addAll(List.of(
                Column.number("ops_per_s", r -> str(opsPerSecond(r))),
                Column.number("mb_per_s", r -> str(megabytesPerSecond(r))),
                Column.number("retries", r -> str(r.retries())),
                Column.number("aborts", r -> str(r.aborts())),
                Column.number("mismatches", r -> str(mismatches(r))),
                Column.text("check", r -> r.check().summary()),
                Column.number("violations", r -> str(r.check().violations().size()))));
        return c;
    }

    @Override
    public void json(JsonWriter json, RunResult r) {
        FsWorkload w = config(r);
        json.name("protocol").value(r.protocol());
        json.name("fabric").value(r.fabric());
        json.name("parameters").beginObject()
                .name("trace").value(w.trace().name())
                .name("describe").value(w.trace().describe())
                .name("clients").value(w.clients())
                .name("shared_reads").value(w.sharedReads())
                .name("duration_ns").value(w.durationNs())
                .name("warmup_ns").value(w.warmupNs())
                .name("seed").value(w.seed())
                .name("options").beginArray();
        for (String pair : w.lockOptions()) {
            json.value(pair);
        }
        json.endArray().endObject();
        json.name("measured_ops").value(r.measuredOps());
        json.name("measured_s").value(r.measuredSeconds());
        json.name("ops_per_s").value(opsPerSecond(r));
        json.name("mb_per_s").value(megabytesPerSecond(r));
        Columns.jsonLatency(json, "latency_us", r.operationLatency());
        json.name("kinds").beginArray();
        for (int k = 0; k < w.trace().kinds().size(); k++) {
            KindMeasures m = r.kind(k);
            json.beginObject().name("name").value(w.trace().kinds().get(k)).name("ops").value(m.operations())
                    .name("ops_per_s").value(r.goodputOfKind(k)).name("mb_per_s").value(megabytesPerSecond(r, k));
            Columns.jsonLatency(json, "latency_us", m.latency());
            json.endObject();
        }
        json.endArray();
        json.name("retries").value(r.retries());
        json.name("aborts").value(r.aborts());
        CheckResult check = r.check();
        json.name("check").beginObject()
                .name("enabled").value(check.enabled())
                .name("clean").value(check.clean())
                .name("mismatches").value(mismatches(r))
                .name("holds").value(check.holds())
                .name("violations").beginArray();
        for (Violation v : check.violations()) {
            json.value(v.description());
        }
        json.endArray().endObject();
        if (r.fabric().equals("sim")) {
            Columns.jsonFaults(json, r.faults());
        }
    }
}
