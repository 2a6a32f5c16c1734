package io.lockfabric.bench.txn;

import io.lockfabric.bench.CsvReport;
import io.lockfabric.bench.JsonWriter;
import io.lockfabric.bench.ReportFormat;
import io.lockfabric.bench.TextTable;
import io.lockfabric.txn.TxnResult;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The report of {@code lockfabric txn} runs on the client API ({@link TxnResult}s), in the bench's
 * three formats ({@link ReportFormat}) with the bench's writers: an aligned table, CSV (a header,
 * then rows) and JSON Lines (one object per run).
 *
 * <p>Table and CSV: one row per transaction type of each run and one {@code all} row, with the
 * locker, workload, clients, committed transactions, goodput (the table in Ktxn/s, CSV in txn/s),
 * latency p50 / p99 / p99.9 (µs), locks per transaction, the lock wait's share of the latency and
 * the measured share of shared lock requests; then the run's aborts and conservation check (CSV: on
 * every row of the run; the table: a {@code #} line under it). JSON: {@code locker}, {@code fabric},
 * {@code workload}, {@code clients}, {@code measured_s}, {@code aborted}, {@code ledger},
 * {@code conservation} ({@code checked}, {@code expected_total}, {@code total}, {@code balances_checked}, {@code balances_differing}, {@code ok}),
 * {@code all} and {@code types} (each: {@code name}, {@code committed}, {@code goodput},
 * {@code latency_us} with {@code p50}, {@code p99}, {@code p999}, {@code locks_per_txn},
 * {@code lock_wait_share}, {@code shared_share}) and {@code cdf} (pairs of latency ns and the share
 * of transactions at most that).
 */
public final class TxnReport {
    private TxnReport() {
    }

    /**
     * A store's conservation check after a run: its total against the start's plus the run's ledger,
     * and every balance against its value before the run plus the changes the run recorded in it (a
     * transfer lost or applied twice keeps the total but not the balances).
     *
     * @param checked   whether the run had a store to check (SmallBank)
     * @param expected  the total before the run plus the ledger
     * @param actual    the total after the run
     * @param balances  the balances checked one by one (0: none)
     * @param differing how many of them are not their value before plus their recorded changes
     * @param first     the first differing ones, described ({@code ""} if none)
     */
    public record Conservation(boolean checked, long expected, long actual, long balances, long differing, String first) {
        /** No store: nothing to check. */
        public static final Conservation NONE = new Conservation(false, 0, 0);

        public Conservation {
            Objects.requireNonNull(first, "first");
        }

        /** A check of the total alone. */
        public Conservation(boolean checked, long expected, long actual) {
            this(checked, expected, actual, 0, 0, "");
        }

        /** Nothing lost, nothing applied twice (or nothing checked). */
        public boolean ok() {
            return !checked || (expected == actual && differing == 0);
        }

        /** {@code ok}, {@code VIOLATED (...)} or {@code -}. */
        public String summary() {
            if (!checked) {
                return "-";
            }
            if (ok()) {
                return "ok";
            }
            String total = expected == actual ? "total ok" : String.format(Locale.ROOT, "total %d, expected %d: %+d",
                    actual, expected, actual - expected);
            String each = differing == 0 ? "" : String.format(Locale.ROOT, "; %d of %d balances differ, first: %s",
                    differing, balances, first);
            return "VIOLATED (" + total + each + ")";
        }
    }

    /**
     * One run.
     *
     * @param fabric       the fabric's address
     * @param result       what it measured
     * @param conservation its store's check
     */
    public record Run(String fabric, TxnResult result, Conservation conservation) {
        public Run {
            Objects.requireNonNull(fabric, "fabric");
            Objects.requireNonNull(result, "result");
            Objects.requireNonNull(conservation, "conservation");
        }
    }

    /** The whole report of {@code runs} in {@code format}, ending with a newline. */
    public static String render(ReportFormat format, List<Run> runs) {
        return switch (format) {
            case TABLE -> table(runs);
            case CSV -> csv(runs);
            case JSON -> json(runs);
        };
    }

    private static List<TxnResult.TypeResult> rows(TxnResult r) {
        List<TxnResult.TypeResult> rows = new ArrayList<>(r.types());
        rows.add(r.all());
        return rows;
    }

    private static String fixed(double v, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    private static String us(long ns) {
        return fixed(ns / 1_000.0, 1);
    }

    private static String table(List<Run> runs) {
        TextTable t = new TextTable(
                new String[]{"locker", "workload", "type", "committed", "Ktxn/s", "p50 us", "p99 us", "p99.9 us",
                        "locks/txn", "lock wait", "shared"},
                new boolean[]{false, false, false, true, true, true, true, true, true, true, true});
        StringBuilder notes = new StringBuilder();
        for (Run run : runs) {
            TxnResult r = run.result();
            for (TxnResult.TypeResult y : rows(r)) {
                t.row(r.locker(), r.workload(), y.name(), Long.toString(y.committed()),
                        fixed(y.goodputPerSec() / 1_000, 2), us(y.p50Ns()), us(y.p99Ns()), us(y.p999Ns()),
                        fixed(y.locksPerTxn(), 2), fixed(y.lockWaitShare() * 100, 0) + "%",
                        fixed(y.sharedShare() * 100, 1) + "%");
            }
            notes.append(String.format(Locale.ROOT, "# %s on %s: %d clients, %.1f s measured, %d aborted, conservation %s%n",
                    r.locker(), run.fabric(), r.clients(), r.measuredNs() / 1e9, r.aborted(),
                    run.conservation().summary()));
        }
        return runs.isEmpty() ? "" : t.render() + notes;
    }

    private static String csv(List<Run> runs) {
        StringBuilder sb = new StringBuilder();
        if (runs.isEmpty()) {
            return "";
        }
        sb.append("locker,fabric,workload,clients,measured_s,type,committed,goodput,p50_us,p99_us,p999_us,"
                + "locks_per_txn,lock_wait_share,shared_share,aborted,conservation\n");
        for (Run run : runs) {
            TxnResult r = run.result();
            for (TxnResult.TypeResult y : rows(r)) {
                List<String> cells = List.of(r.locker(), run.fabric(), r.workload(), Integer.toString(r.clients()),
                        Double.toString(r.measuredNs() / 1e9), y.name(), Long.toString(y.committed()),
                        Double.toString(y.goodputPerSec()), Double.toString(y.p50Ns() / 1e3),
                        Double.toString(y.p99Ns() / 1e3), Double.toString(y.p999Ns() / 1e3),
                        Double.toString(y.locksPerTxn()), Double.toString(y.lockWaitShare()),
                        Double.toString(y.sharedShare()), Long.toString(r.aborted()), run.conservation().summary());
                sb.append(String.join(",", cells.stream().map(CsvReport::quote).toList())).append('\n');
            }
        }
        return sb.toString();
    }

    private static String json(List<Run> runs) {
        StringBuilder sb = new StringBuilder();
        for (Run run : runs) {
            TxnResult r = run.result();
            JsonWriter json = new JsonWriter(sb);
            json.beginObject()
                    .name("locker").value(r.locker())
                    .name("fabric").value(run.fabric())
                    .name("workload").value(r.workload())
                    .name("clients").value(r.clients())
                    .name("measured_s").value(r.measuredNs() / 1e9)
                    .name("aborted").value(r.aborted())
                    .name("ledger").value(r.ledger());
            Conservation c = run.conservation();
            json.name("conservation").beginObject().name("checked").value(c.checked());
            if (c.checked()) {
                json.name("expected_total").value(c.expected()).name("total").value(c.actual())
                        .name("balances_checked").value(c.balances()).name("balances_differing").value(c.differing());
            }
            json.name("ok").value(c.ok()).endObject();
            json.name("all");
            type(json, r.all());
            json.name("types").beginArray();
            for (TxnResult.TypeResult y : r.types()) {
                type(json, y);
            }
            json.endArray().name("cdf").beginArray();
            for (double[] point : r.cdf()) {
                json.beginArray().value((long) point[0]).value(point[1]).endArray();
            }
            json.endArray().endObject();
            sb.append('\n');
        }
        return sb.toString();
    }

    private static void type(JsonWriter json, TxnResult.TypeResult y) {
        json.beginObject()
                .name("name").value(y.name())
                .name("committed").value(y.committed())
                .name("goodput").value(y.goodputPerSec())
                .name("latency_us").beginObject()
                .name("p50").value(y.p50Ns() / 1e3)
                .name("p99").value(y.p99Ns() / 1e3)
                .name("p999").value(y.p999Ns() / 1e3)
                .endObject()
                .name("locks_per_txn").value(y.locksPerTxn())
                .name("lock_wait_share").value(y.lockWaitShare())
                .name("shared_share").value(y.sharedShare())
                .endObject();
    }
}
