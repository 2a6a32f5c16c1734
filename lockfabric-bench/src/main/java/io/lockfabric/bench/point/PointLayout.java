package io.lockfabric.bench.point;

import io.lockfabric.bench.CheckResult;
import io.lockfabric.bench.Columns;
import io.lockfabric.bench.JsonWriter;
import io.lockfabric.bench.ReportLayout;
import io.lockfabric.bench.RunResult;
import io.lockfabric.check.Violation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.lockfabric.bench.Columns.str;

/**
 * How {@link PointWorkload} runs are reported. Table: protocol, goodput in Kops/s, acquire p50 /
 * p99 / p99.9 and whole operation p99 in µs, the protocol's remote operations per cycle, its
 * retries per operation, the critical section's operations per cycle, and the check outcome. CSV:
 * the parameters, the measured phase, goodput (ops/s), latency percentiles in µs, one
 * {@code ops_<kind>} and one {@code cs_ops_<kind>} column per verb kind (per cycle), retries,
 * aborts, resets, the check summary and the client/memory-node counter cross-check. JSON: see
 * {@link PointWorkload}.
 */
final class PointLayout implements ReportLayout {
    static final PointLayout INSTANCE = new PointLayout();
    private static final double OPS_PER_KOPS = 1_000.0;

    private PointLayout() {
    }

    private static PointWorkload config(RunResult r) {
        return r.workload(PointWorkload.class);
    }

    @Override
    public List<Column> table() {
        return List.of(
                Column.text("protocol", RunResult::protocol),
                Column.number("goodput Kops/s", r -> fixed(r.goodput() / OPS_PER_KOPS, 1)),
                Column.number("acq p50 us", r -> fixed(r.acquireLatency().p50Us(), 2)),
                Column.number("acq p99 us", r -> fixed(r.acquireLatency().p99Us(), 2)),
                Column.number("acq p99.9 us", r -> fixed(r.acquireLatency().p999Us(), 2)),
                Column.number("op p99 us", r -> fixed(r.operationLatency().p99Us(), 2)),
                Column.text("ops/cycle (lock)", r -> r.lockOpsPerCycle().compact()),
                Column.number("retries/op", r -> fixed(r.measuredOps() == 0 ? 0
                        : (double) r.retries() / r.measuredOps(), 2)),
                Column.text("cs ops/cycle", r -> r.csOpsPerCycle().compact()),
                Column.text("check", r -> r.check().summary()));
    }

    private static String fixed(double v, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    @Override
    public List<Column> csv() {
        List<Column> columns = new ArrayList<>(List.of(
                Column.text("protocol", RunResult::protocol),
                Column.text("fabric", RunResult::fabric),
                Column.number("clients", r -> str(config(r).clients())),
                Column.number("locks", r -> str(config(r).locks())),
                Column.number("zipf", r -> str(config(r).zipf())),
                Column.number("read_ratio", r -> str(config(r).readRatio())),
                Column.number("cs", r -> str(config(r).cs())),
                Column.number("duration_ns", r -> str(config(r).durationNs())),
                Column.number("ops", r -> str(config(r).operations())),
                Column.number("warmup_ns", r -> str(config(r).warmupNs())),
                Column.number("seed", r -> str(config(r).seed())),
                Column.text("options", r -> config(r).options().toString())));
        columns.addAll(Columns.csvMeasured());
        columns.addAll(Columns.csvPerKind("ops_", RunResult::lockOpsPerCycle));
        columns.addAll(Columns.csvPerKind("cs_ops_", RunResult::csOpsPerCycle));
        columns.addAll(List.of(
                Column.number("retries", r -> str(r.retries())),
                Column.number("aborts", r -> str(r.aborts())),
                Column.number("resets", r -> str(r.resets())),
                Column.text("check", r -> r.check().summary()),
                Column.number("violations", r -> str(r.check().violations().size())),
                Column.text("counters_agree", r -> Boolean.toString(r.crossCheck().agree()))));
        return columns;
    }

    @Override
    public void json(JsonWriter json, RunResult r) {
        PointWorkload c = config(r);
        json.name("protocol").value(r.protocol());
        json.name("fabric").value(r.fabric());
        json.name("parameters").beginObject()
                .name("clients").value(c.clients())
                .name("locks").value(c.locks())
                .name("zipf").value(c.zipf())
                .name("read_ratio").value(c.readRatio())
                .name("cs").value(c.cs())
                .name("duration_ns").value(c.durationNs())
                .name("ops").value(c.operations())
                .name("warmup_ns").value(c.warmupNs())
                .name("seed").value(c.seed())
                .name("check").value(c.check());
        if (c.skipRelease() > 0) {
            json.name("skip_release").value(c.skipRelease());
        }
        json.name("options").beginArray();
        for (String pair : c.options().pairs()) {
            json.value(pair);
        }
        json.endArray();
        if (c.locality() > 0) { // only when set: the output of a run without it stays as it was
            json.name("locality").value(c.locality()).name("locality_nodes").value(c.localityNodes());
        }
        json.endObject();
        json.name("measured_ops").value(r.measuredOps());
        json.name("measured_s").value(r.measuredSeconds());
        json.name("goodput").value(r.goodput());
        Columns.jsonLatency(json, "latency_us", r.operationLatency());
        Columns.jsonLatency(json, "acquire_latency_us", r.acquireLatency());
        Columns.jsonPerKind(json, "ops_per_cycle", r.lockOpsPerCycle(), false);
        Columns.jsonPerKind(json, "cs_ops_per_cycle", r.csOpsPerCycle(), false);
        json.name("retries").value(r.retries());
        json.name("aborts").value(r.aborts());
        json.name("resets").value(r.resets());
        CheckResult check = r.check();
        json.name("check").beginObject()
                .name("enabled").value(check.enabled())
                .name("clean").value(check.clean())
                .name("holds").value(check.holds())
                .name("exclusive_grants").value(check.exclusiveGrants())
                .name("fencing_checked").value(check.fencingChecked())
                .name("violations").beginArray();
        for (Violation v : check.violations()) {
            json.value(v.description());
        }
        json.endArray().endObject();
        json.name("cross_check").beginObject()
                .name("client_ops").value(r.crossCheck().clientOps())
                .name("memory_node_ops").value(r.crossCheck().memoryNodeOps())
                .name("agree").value(r.crossCheck().agree())
                .endObject();
        if (r.fabric().equals("sim")) {
            Columns.jsonFaults(json, r.faults());
        }
    }
}
