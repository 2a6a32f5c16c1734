package io.lockfabric.bench.btree;

import io.lockfabric.bench.CheckResult;
import io.lockfabric.bench.Columns;
import io.lockfabric.bench.JsonWriter;
import io.lockfabric.bench.KindMeasures;
import io.lockfabric.bench.ReportLayout;
import io.lockfabric.bench.RunResult;
import io.lockfabric.check.Violation;
import io.lockfabric.lock.LockStats;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.lockfabric.bench.Columns.str;

/**
 * How {@link BTreeWorkload} runs are reported. Table: lock variant, workload, goodput in Kops/s, the
 * updates' and searches' goodput and p50 / p99 in µs, memory-node operations per operation (node
 * READs and WRITEs and the locks' verbs: {@code r} READ, {@code w} WRITE, {@code c} CAS, ...), lock
 * retries and local handovers per update, and the check. CSV: the parameters, the measured phase and
 * latencies, the same per kind, one {@code ops_<kind>} column per verb kind, retries, handovers, the
 * check. JSON: see {@link BTreeWorkload}.
 */
final class BTreeReportLayout implements ReportLayout {
    static final BTreeReportLayout INSTANCE = new BTreeReportLayout();
    private static final double PER_KILO = 1_000.0;

    private BTreeReportLayout() {
    }

    private static BTreeWorkload config(RunResult r) {
        return r.workload(BTreeWorkload.class);
    }

    private static String fixed(double v, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    /** Per update: the measured updates, or 0. */
    private static double perUpdate(RunResult r, long count) {
        long updates = r.kind(BTreeWorkload.UPDATE).operations();
        return updates == 0 ? 0 : (double) count / updates;
    }

    static long handovers(RunResult r) {
        return r.stats().counter(LockStats.HANDOVERS);
    }

    @Override
    public List<Column> table() {
        return List.of(
                Column.text("lock", RunResult::protocol),
                Column.text("workload", r -> config(r).mix().label()),
                Column.number("Kops/s", r -> fixed(r.goodput() / PER_KILO, 1)),
                Column.number("upd Kops/s", r -> fixed(r.goodputOfKind(BTreeWorkload.UPDATE) / PER_KILO, 1)),
                Column.number("upd p50 us", r -> fixed(r.kind(BTreeWorkload.UPDATE).latency().p50Us(), 1)),
                Column.number("upd p99 us", r -> fixed(r.kind(BTreeWorkload.UPDATE).latency().p99Us(), 1)),
                Column.number("srch Kops/s", r -> fixed(r.goodputOfKind(BTreeWorkload.SEARCH) / PER_KILO, 1)),
                Column.number("srch p99 us", r -> fixed(r.kind(BTreeWorkload.SEARCH).latency().p99Us(), 1)),
                Column.text("MN ops/op", r -> r.lockOpsPerCycle().compact()),
                Column.number("retries/upd", r -> fixed(perUpdate(r, r.retries()), 2)),
                Column.number("handovers/upd", r -> fixed(perUpdate(r, handovers(r)), 2)),
                Column.text("check", r -> r.check().summary()));
    }

    @Override
    public List<Column> csv() {
        List<Column> columns = new ArrayList<>(List.of(
                Column.text("lock", RunResult::protocol),
                Column.text("fabric", RunResult::fabric),
                Column.text("workload", r -> config(r).mix().label()),
                Column.number("clients", r -> str(config(r).clients())),
                Column.number("keys", r -> str(config(r).keys())),
                Column.number("zipf", r -> str(config(r).zipf())),
                Column.number("fanout", r -> str(config(r).fanout())),
                Column.number("load_every", r -> str(config(r).loadEvery())),
                Column.number("duration_ns", r -> str(config(r).durationNs())),
                Column.number("ops", r -> str(config(r).operations())),
                Column.number("warmup_ns", r -> str(config(r).warmupNs())),
                Column.number("seed", r -> str(config(r).seed())),
                Column.text("options", r -> config(r).options().toString())));
        columns.addAll(Columns.csvMeasured());
        for (int kind : new int[]{BTreeWorkload.UPDATE, BTreeWorkload.SEARCH}) {
            String name = kind == BTreeWorkload.UPDATE ? "update" : "search";
            columns.add(Column.number(name + "_ops", r -> str(r.kind(kind).operations())));
            columns.add(Column.number(name + "_goodput", r -> str(r.goodputOfKind(kind))));
            columns.add(Column.number(name + "_p50_us", r -> str(r.kind(kind).latency().p50Us())));
            columns.add(Column.number(name + "_p99_us", r -> str(r.kind(kind).latency().p99Us())));
        }
        columns.addAll(Columns.csvPerKind("ops_", RunResult::lockOpsPerCycle));
        columns.addAll(List.of(
                Column.number("retries", r -> str(r.retries())),
                Column.number("handovers", r -> str(handovers(r))),
                Column.text("check", r -> r.check().summary()),
                Column.number("violations", r -> str(r.check().violations().size()))));
        return columns;
    }

    @Override
    public void json(JsonWriter json, RunResult r) {
        BTreeWorkload c = config(r);
        json.name("protocol").value(r.protocol());
        json.name("fabric").value(r.fabric());
        json.name("parameters").beginObject()
                .name("workload").value(c.mix().label())
                .name("clients").value(c.clients())
                .name("keys").value(c.keys())
                .name("zipf").value(c.zipf())
                .name("fanout").value(c.fanout())
                .name("load_every").value(c.loadEvery())
                .name("duration_ns").value(c.durationNs())
                .name("ops").value(c.operations())
                .name("warmup_ns").value(c.warmupNs())
                .name("seed").value(c.seed())
                .name("check").value(c.check())
                .name("options").beginArray();
        for (String pair : c.options().pairs()) {
            json.value(pair);
        }
        json.endArray().endObject();
        json.name("measured_ops").value(r.measuredOps());
        json.name("measured_s").value(r.measuredSeconds());
        json.name("goodput").value(r.goodput());
        Columns.jsonLatency(json, "latency_us", r.operationLatency());
        for (int kind : new int[]{BTreeWorkload.UPDATE, BTreeWorkload.SEARCH}) {
            KindMeasures k = r.kind(kind);
            json.name(kind == BTreeWorkload.UPDATE ? "updates" : "searches").beginObject()
                    .name("ops").value(k.operations())
                    .name("goodput").value(r.goodputOfKind(kind));
            Columns.jsonLatency(json, "latency_us", k.latency());
            json.endObject();
        }
        Columns.jsonPerKind(json, "mn_ops_per_op", r.lockOpsPerCycle(), false);
        json.name("retries").value(r.retries());
        json.name("handovers").value(handovers(r));
        CheckResult check = r.check();
        json.name("check").beginObject()
                .name("enabled").value(check.enabled())
                .name("clean").value(check.clean())
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
