package io.lockfabric.bench.txn;

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
 * How {@link TransactionWorkload} runs are reported. Table: protocol, workload, goodput in Ktxn/s,
 * latency p50 / p99 / p99.9 and acquire (whole lock set) p99 in µs, locks per transaction, the lock
 * wait's share of the latency, retries per transaction, each type's goodput and p50 / p99 (types by
 * their initials: GSD is GetSubscriberData), and the check. CSV: the parameters, the measured phase
 * and latencies, locks per transaction, lock-wait share, one {@code types} cell
 * ({@code NAME:goodput:p50_us:p99_us;...}), retries, aborts, resets, the check. JSON: see
 * {@link TransactionWorkload}.
 */
final class TransactionLayout implements ReportLayout {
    static final TransactionLayout INSTANCE = new TransactionLayout();
    private static final double PER_KILO = 1_000.0;

    private TransactionLayout() {
    }

    private static TransactionWorkload config(RunResult r) {
        return r.workload(TransactionWorkload.class);
    }

    /** The initials of a type's name: {@code GetSubscriberData} is {@code GSD}. */
    static String initials(String type) {
        StringBuilder sb = new StringBuilder();
        for (char c : type.toCharArray()) {
            if (Character.isUpperCase(c)) {
                sb.append(c);
            }
        }
        return sb.isEmpty() ? type : sb.toString();
    }

    /** Locks per transaction over every type. */
    static double locksPerTxn(RunResult r) {
        long ops = 0;
        long locks = 0;
        for (KindMeasures k : r.byKind().values()) {
            ops += k.operations();
            locks += k.locks();
        }
        return ops == 0 ? 0 : (double) locks / ops;
    }

    /** The acquire's share of the latency over every type. */
    static double lockWaitShare(RunResult r) {
        long acquire = 0;
        long total = 0;
        for (KindMeasures k : r.byKind().values()) {
            acquire += k.acquireSumNs();
            total += k.latencySumNs();
        }
        return total == 0 ? 0 : (double) acquire / total;
    }

    private static String fixed(double v, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    private static String perType(RunResult r) {
        List<String> types = config(r).generator().types();
        List<String> parts = new ArrayList<>();
        for (int t = 0; t < types.size(); t++) {
            KindMeasures k = r.kind(t);
            parts.add(String.format(Locale.ROOT, "%s %.1f (%.1f/%.1f)", initials(types.get(t)),
                    r.goodputOfKind(t) / PER_KILO, k.latency().p50Us(), k.latency().p99Us()));
        }
        return String.join(" ", parts);
    }

    @Override
    public List<Column> table() {
        return List.of(
                Column.text("protocol", RunResult::protocol),
                Column.text("workload", r -> config(r).generator().name()),
                Column.number("goodput Ktxn/s", r -> fixed(r.goodput() / PER_KILO, 1)),
                Column.number("p50 us", r -> fixed(r.operationLatency().p50Us(), 1)),
                Column.number("p99 us", r -> fixed(r.operationLatency().p99Us(), 1)),
                Column.number("p99.9 us", r -> fixed(r.operationLatency().p999Us(), 1)),
                Column.number("acq p99 us", r -> fixed(r.acquireLatency().p99Us(), 1)),
                Column.number("locks/txn", r -> fixed(locksPerTxn(r), 2)),
                Column.number("lock wait", r -> fixed(lockWaitShare(r) * 100, 0) + "%"),
                Column.number("retries/txn", r -> fixed(r.measuredOps() == 0 ? 0
                        : (double) r.retries() / r.measuredOps(), 2)),
                Column.text("per type: Ktxn/s (p50/p99 us)", TransactionLayout::perType),
                Column.text("check", r -> r.check().summary()));
    }

    @Override
    public List<Column> csv() {
        List<Column> columns = new ArrayList<>(List.of(
                Column.text("protocol", RunResult::protocol),
                Column.text("fabric", RunResult::fabric),
                Column.text("workload", r -> config(r).generator().name()),
                Column.number("lock_table", r -> str(config(r).generator().locks())),
                Column.number("clients", r -> str(config(r).clients())),
                Column.number("work_ns", r -> str(config(r).workNs())),
                Column.number("duration_ns", r -> str(config(r).durationNs())),
                Column.number("ops", r -> str(config(r).operations())),
                Column.number("warmup_ns", r -> str(config(r).warmupNs())),
                Column.number("seed", r -> str(config(r).seed())),
                Column.text("options", r -> config(r).options().toString())));
        columns.addAll(Columns.csvMeasured());
        columns.addAll(List.of(
                Column.number("locks_per_txn", r -> str(locksPerTxn(r))),
                Column.number("lock_wait_share", r -> str(lockWaitShare(r))),
                Column.text("types", TransactionLayout::typesCell),
                Column.number("retries", r -> str(r.retries())),
                Column.number("aborts", r -> str(r.aborts())),
                Column.number("resets", r -> str(r.resets())),
                Column.text("check", r -> r.check().summary()),
                Column.number("violations", r -> str(r.check().violations().size()))));
        return columns;
    }

    private static String typesCell(RunResult r) {
        List<String> types = config(r).generator().types();
        List<String> parts = new ArrayList<>();
        for (int t = 0; t < types.size(); t++) {
            KindMeasures k = r.kind(t);
            parts.add(types.get(t) + ":" + r.goodputOfKind(t) + ":" + k.latency().p50Us() + ":" + k.latency().p99Us());
        }
        return String.join(";", parts);
    }

    @Override
    public void json(JsonWriter json, RunResult r) {
        TransactionWorkload c = config(r);
        json.name("protocol").value(r.protocol());
        json.name("fabric").value(r.fabric());
        json.name("parameters").beginObject()
                .name("workload").value(c.generator().name())
                .name("generator").value(c.generator().toString())
                .name("lock_table").value(c.generator().locks())
                .name("clients").value(c.clients())
                .name("work_ns").value(c.workNs())
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
        json.name("measured_txns").value(r.measuredOps());
        json.name("measured_s").value(r.measuredSeconds());
        json.name("goodput").value(r.goodput());
        Columns.jsonLatency(json, "latency_us", r.operationLatency());
        Columns.jsonLatency(json, "acquire_latency_us", r.acquireLatency());
        json.name("locks_per_txn").value(locksPerTxn(r));
        json.name("lock_wait_share").value(lockWaitShare(r));
        json.name("types").beginArray();
        List<String> types = c.generator().types();
        for (int t = 0; t < types.size(); t++) {
            KindMeasures k = r.kind(t);
            json.beginObject().name("name").value(types.get(t)).name("committed").value(k.operations())
                    .name("goodput").value(r.goodputOfKind(t));
            Columns.jsonLatency(json, "latency_us", k.latency());
            json.name("locks_per_txn").value(k.locksPerOp()).name("lock_wait_share").value(k.lockWaitShare())
                    .endObject();
        }
        json.endArray();
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
        if (r.fabric().equals("sim")) {
            Columns.jsonFaults(json, r.faults());
        }
    }
}
