package io.lockfabric.bench.objstore;

import io.lockfabric.apps.objstore.ObjectTrace;
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
 * How {@link ObjectStoreWorkload} runs are reported. Table: protocol, trace, clients, goodput in
 * Kops/s, the value bytes it moved in MB/s (goodput times the trace's mean value), get and set
 * latency p50 / p99 in µs, operation p99.9, the protocol's remote operations and retries per
 * operation, and the check ({@code ok (N gets verified)}, or the violations). CSV: the parameters,
 * the measured phase and latencies, per kind ({@code get_ops}, {@code get_p50_us}, ...), value
 * MB/s, verbs, retries, aborts, resets, {@code gets_verified}, {@code torn}, the check. JSON:
 * {@code protocol}, {@code fabric}, {@code parameters} ({@code trace}, {@code mean_value_bytes},
 * {@code get_ratio}, {@code max_value_bytes}, {@code objects}, {@code zipf}, {@code clients},
 * {@code duration_ns}, {@code ops}, {@code warmup_ns}, {@code seed}, {@code history},
 * {@code options}), {@code measured_ops}, {@code measured_s}, {@code goodput}, {@code value_mb_per_s},
 * {@code latency_us}, {@code acquire_latency_us}, {@code kinds} (per kind: {@code name},
 * {@code ops}, {@code goodput}, {@code latency_us}), {@code ops_per_cycle} (the protocol's),
 * {@code data_ops_per_cycle} (the store's own READs and WRITEs), {@code retries}, {@code aborts},
 * {@code resets}, {@code check} ({@code enabled}, {@code clean}, {@code gets_verified},
 * {@code torn}, {@code holds}, {@code violations}) and, on the simulator, {@code faults}.
 */
public final class ObjectStoreReport implements ReportLayout {
    static final ObjectStoreReport INSTANCE = new ObjectStoreReport();
    private static final double PER_KILO = 1_000.0;

    private ObjectStoreReport() {
    }

    private static ObjectStoreWorkload config(RunResult r) {
        return r.workload(ObjectStoreWorkload.class);
    }

    /** The value bytes the run moved per second, in MB/s: goodput times the trace's mean value. */
    public static double valueMegabytesPerSecond(RunResult r) {
        return r.goodput() * config(r).trace().expectedMeanBytes() / 1e6;
    }

    /** Gets verified whole in the measured phase. */
    public static long getsVerified(RunResult r) {
        return r.kind(ObjectStoreWorkload.GET).operations();
    }

    /** Torn values found (over the whole run). */
    public static long torn(RunResult r) {
        return r.check().violations().stream().filter(v -> v instanceof Violation.TornValue).count();
    }

    private static String fixed(double v, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    private static String checkCell(RunResult r) {
        CheckResult c = r.check();
        return c.clean() ? "ok (" + getsVerified(r) + " gets verified)" : c.summary();
    }

    private static double perOp(RunResult r, long count) {
        return r.measuredOps() == 0 ? 0 : (double) count / r.measuredOps();
    }

    @Override
    public List<Column> table() {
        return List.of(
                Column.text("protocol", RunResult::protocol),
                Column.text("trace", r -> config(r).trace().name()),
                Column.number("clients", r -> str(config(r).clients())),
                Column.number("Kops/s", r -> fixed(r.goodput() / PER_KILO, 1)),
                Column.number("MB/s", r -> fixed(valueMegabytesPerSecond(r), 1)),
                Column.number("get p50 us", r -> fixed(r.kind(ObjectStoreWorkload.GET).latency().p50Us(), 1)),
                Column.number("get p99 us", r -> fixed(r.kind(ObjectStoreWorkload.GET).latency().p99Us(), 1)),
                Column.number("set p50 us", r -> fixed(r.kind(ObjectStoreWorkload.SET).latency().p50Us(), 1)),
                Column.number("set p99 us", r -> fixed(r.kind(ObjectStoreWorkload.SET).latency().p99Us(), 1)),
                Column.number("p99.9 us", r -> fixed(r.operationLatency().p999Us(), 1)),
                Column.number("lock verbs/op", r -> fixed(r.lockOpsPerCycle().oneSided(), 2)),
                Column.number("retries/op", r -> fixed(perOp(r, r.retries()), 2)),
                Column.text("check", ObjectStoreReport::checkCell));
    }

    @Override
    public List<Column> csv() {
        List<Column> columns = new ArrayList<>(List.of(
                Column.text("protocol", RunResult::protocol),
                Column.text("fabric", RunResult::fabric),
                Column.text("trace", r -> config(r).trace().name()),
                Column.number("mean_value_bytes", r -> str(config(r).trace().meanValueBytes())),
                Column.number("get_ratio", r -> str(config(r).trace().getRatio())),
                Column.number("objects", r -> str(config(r).trace().objects())),
                Column.number("zipf", r -> str(config(r).trace().theta())),
                Column.number("clients", r -> str(config(r).clients())),
                Column.number("duration_ns", r -> str(config(r).durationNs())),
                Column.number("ops", r -> str(config(r).operations())),
                Column.number("warmup_ns", r -> str(config(r).warmupNs())),
                Column.number("seed", r -> str(config(r).seed())),
                Column.text("options", r -> config(r).options().toString())));
        columns.addAll(Columns.csvMeasured());
        for (int k = 0; k < ObjectStoreWorkload.KINDS.size(); k++) {
            int kind = k;
            String name = ObjectStoreWorkload.KINDS.get(k);
            columns.add(Column.number(name + "_ops", r -> str(r.kind(kind).operations())));
            columns.add(Column.number(name + "_p50_us", r -> str(r.kind(kind).latency().p50Us())));
            columns.add(Column.number(name + "_p99_us", r -> str(r.kind(kind).latency().p99Us())));
        }
        columns.addAll(List.of(
                Column.number("value_mb_per_s", r -> str(valueMegabytesPerSecond(r))),
                Column.number("lock_verbs_per_op", r -> str(r.lockOpsPerCycle().oneSided())),
                Column.number("retries", r -> str(r.retries())),
                Column.number("aborts", r -> str(r.aborts())),
                Column.number("resets", r -> str(r.resets())),
                Column.number("gets_verified", r -> str(getsVerified(r))),
                Column.number("torn", r -> str(torn(r))),
                Column.text("check", r -> r.check().summary()),
                Column.number("violations", r -> str(r.check().violations().size()))));
        return columns;
    }

    @Override
    public void json(JsonWriter json, RunResult r) {
        ObjectStoreWorkload c = config(r);
        ObjectTrace t = c.trace();
        json.name("protocol").value(r.protocol());
        json.name("fabric").value(r.fabric());
        json.name("parameters").beginObject()
                .name("trace").value(t.name())
                .name("mean_value_bytes").value(t.meanValueBytes())
                .name("get_ratio").value(t.getRatio())
                .name("max_value_bytes").value(t.maxValueBytes())
                .name("objects").value(t.objects())
                .name("zipf").value(t.theta())
                .name("clients").value(c.clients())
                .name("duration_ns").value(c.durationNs())
                .name("ops").value(c.operations())
                .name("warmup_ns").value(c.warmupNs())
                .name("seed").value(c.seed())
                .name("history").value(c.history())
                .name("options").beginArray();
        for (String pair : c.options().pairs()) {
            json.value(pair);
        }
        json.endArray().endObject();
        json.name("measured_ops").value(r.measuredOps());
        json.name("measured_s").value(r.measuredSeconds());
        json.name("goodput").value(r.goodput());
        json.name("value_mb_per_s").value(valueMegabytesPerSecond(r));
        Columns.jsonLatency(json, "latency_us", r.operationLatency());
        Columns.jsonLatency(json, "acquire_latency_us", r.acquireLatency());
        json.name("kinds").beginArray();
        for (int k = 0; k < ObjectStoreWorkload.KINDS.size(); k++) {
            KindMeasures m = r.kind(k);
            json.beginObject().name("name").value(ObjectStoreWorkload.KINDS.get(k)).name("ops").value(m.operations())
                    .name("goodput").value(r.goodputOfKind(k));
            Columns.jsonLatency(json, "latency_us", m.latency());
            json.endObject();
        }
        json.endArray();
        Columns.jsonPerKind(json, "ops_per_cycle", r.lockOpsPerCycle(), false);
        Columns.jsonPerKind(json, "data_ops_per_cycle", r.csOpsPerCycle(), false);
        json.name("retries").value(r.retries());
        json.name("aborts").value(r.aborts());
        json.name("resets").value(r.resets());
        CheckResult check = r.check();
        json.name("check").beginObject()
                .name("enabled").value(check.enabled())
                .name("clean").value(check.clean())
                .name("gets_verified").value(getsVerified(r))
                .name("torn").value(torn(r))
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
