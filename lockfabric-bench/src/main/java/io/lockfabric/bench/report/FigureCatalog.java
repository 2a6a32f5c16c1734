package io.lockfabric.bench.report;

import io.lockfabric.bench.experiment.Figure;
import io.lockfabric.bench.experiment.Figure.PaperSeries;

import java.util.List;

/**
 * The figures of the experiments that predate {@link io.lockfabric.bench.experiment.Experiment#figures()}:
 * per experiment name, which of its tables to draw as which of the paper's figures (axes and series as the
 * paper has them; a log axis where the paper's caption says so, where the experiment's x values are
 * powers of a number, as queue capacities and range sizes are, and for latencies that span decades
 * across protocols, which a linear axis flattens to nothing). A new experiment declares its own
 * figures instead. Where the paper's numbers are in the tables ("paper / sim" cells) or in the compared
 * rows, they are drawn as the paper's series.
 */
public final class FigureCatalog {
    private FigureCatalog() {
    }

    /** The figures of the experiment {@code name}; empty if the catalogue does not know it. */
    public static List<Figure> forExperiment(String name) {
        return switch (name) {
            case "shiftlock-2.3" -> List.of(
                    Figure.of("goodput", "ShiftLock §2.3: 240 clients on one CAS lock, goodput", Figure.NO_TABLE)
                            .xInRows("lock").y("goodput, Kops/s")
                            .paper(PaperSeries.fromRowsWithOurs("goodput", "goodput", "(.*)")).build(),
                    Figure.of("retries", "ShiftLock §2.3: share of CAS received that are retries", Figure.NO_TABLE)
                            .xInRows("lock").y("retries among CAS received, %")
                            .paper(PaperSeries.fromRowsWithOurs("retries", "retries among CAS received", "(.*)"))
                            .build(),
                    Figure.of("timeline", "ShiftLock §2.3: cas with SMART backoff over its run", "cas (SMART")
                            .xInRows("time (start of the bin, as in the table)").y("Kops/s")
                            .series("goodput Kops/s", "goodput of a run ending here Kops/s").build());
            case "shiftlock-fig4" -> List.of(
                    Figure.of("fig4", "ShiftLock Fig. 4: goodput, microbenchmark", "goodput")
                            .xInColumns("workload").y("goodput, Mops/s").build(),
                    Figure.of("fig5-p50", "ShiftLock Fig. 5: acquire latency p50", "acquire latency")
                            .xInColumns("workload").y("acquire p50, us (log)").part(0).logY().build(),
                    Figure.of("fig5-p99", "ShiftLock Fig. 5: acquire latency p99", "acquire latency")
                            .xInColumns("workload").y("acquire p99, us (log)").part(1).logY().build());
            case "shiftlock-fig6" -> List.of(verbs("WI"), verbs("RI"));
            case "shiftlock-fig10" -> List.of(txn("TATP", "10a"), txn("TPC-C", "10d"));
            case "declock-fig12" -> List.of(
                    Figure.of("goodput", "DecLock Fig. 12 (clients): goodput", "goodput")
                            .xInColumns("CNs x clients per CN").y("goodput, Mops/s").lines().build(),
                    Figure.of("p99", "DecLock Fig. 12 (clients): operation latency p99", "operation latency p99")
                            .xInColumns("CNs x clients per CN").y("p99, us").lines().build());
            case "declock-fig13" -> List.of(
                    Figure.of("goodput", "DecLock Fig. 12 (cs): goodput", "goodput")
                            .xInColumns("cs (remote operations in the critical section)").y("goodput, Mops/s").build(),
                    Figure.of("p50", "DecLock Fig. 13 (left): operation latency p50", "operation latency")
                            .xInColumns("cs").y("p50, us").part(0).build(),
                    Figure.of("p99", "DecLock Fig. 13 (left): operation latency p99", "operation latency")
                            .xInColumns("cs").y("p99, us").part(1).build(),
                    Figure.of("mn-verbs", "DecLock Fig. 13 (right): memory-node verbs per acquisition",
                            "memory-node verbs").xInColumns("cs").y("verbs per acquisition").build());
            case "declock-fig14" -> List.of(
                    Figure.of("p50", "DecLock Fig. 14: hottest lock's acquire latency p50", "hottest lock")
                            .xInColumns("workload").y("p50, us").part(0).build(),
                    Figure.of("p99", "DecLock Fig. 14: hottest lock's acquire latency p99", "hottest lock")
                            .xInColumns("workload").y("p99, us").part(1).build());
            case "declock-fig15" -> List.of(
                    Figure.of("p50", "DecLock Fig. 15 (right): release latency p50 against queue capacity",
                            "release latency").xInColumns("queue capacity").y("release p50, us").part(0).logX()
                            // the paper: "below 8.80 us up to capacity 128", even uniform: a bound, drawn where it is stated
                            .paper(PaperSeries.point("uniform, bound up to cap 128", "cap 128", 8.80)).build(),
                    Figure.of("p99", "DecLock Fig. 15 (right): release latency p99 against queue capacity",
                            "release latency").xInColumns("queue capacity").y("release p99, us").part(1).logX().build());
            case "declock-fig16" -> List.of(
                    Figure.of("fig16", "DecLock Fig. 16 (left): cql reset latency against clients", "cql forced resets")
                            .xInRows("CNs x clients per CN").y("reset latency, us")
                            .series("reset latency mean us", "median us", "p90 us").lines()
                            .paper(PaperSeries.points("reset latency mean us", "reset latency (mean)",
                                    "(\\S+) clients")).build());
            case "citron-fig6" -> List.of(range("goodput", 1), range("goodput", 16), range("goodput", 256),
                    range("p99", 1), range("p99", 16), range("p99", 256));
            case "citron-fig7" -> List.of(
                    mixed("total", 0), mixed("l1", 1), mixed("l16", 2), mixed("l256", 3));
            case "citron-fig9" -> List.of(
                    Figure.of("goodput", "CITRON Fig. 9: goodput, fast path on / off", "goodput")
                            .xInColumns("Zipf alpha").y("goodput, Mops/s").build(),
                    Figure.of("p50", "CITRON Fig. 9: acquire latency p50, fast path on / off", "acquire latency")
                            .xInColumns("Zipf alpha").y("acquire p50, us").part(0).build());
            case "citron-fig10" -> List.of(
                    Figure.of("fig10", "CITRON Fig. 10: lock/unlock throughput over time, IO500 hard-write",
                                    "throughput over time").xInRows("t, ms (start of the bucket)").y("throughput, Mops/s")
                            .series("N = 2^10 + scale-ups", "N = 2^28").build());
            case "citron-fig11" -> List.of(
                    Figure.of("fig11", "CITRON Fig. 11: false-conflict rate by k (log scale)", "false-conflict rate")
                            .xInRows("range size L").y("false-conflict rate per request").logX().logY().build());
            case "citron-fig12" -> List.of(
                    Figure.of("abort-clients", "CITRON Fig. 12: abort rate against clients (log scale)", "vs clients")
                            .xInRows("clients").y("abort rate").series("abort rate").logY()
                            // the paper's "10^-5" with 3 clients and "10^-2" with 192 (the rows compare their log10)
                            .paper(PaperSeries.points("abort rate", List.of("3", "192"), List.of(1e-5, 1e-2)))
                            .build(),
                    Figure.of("goodput-clients", "CITRON Fig. 12: goodput against clients", "vs clients")
                            .xInRows("clients").y("goodput, Mops/s").series("goodput, Mops/s").build(),
                    Figure.of("abort-m", "CITRON Fig. 12: abort rate against m (log scale)", "vs m")
                            .xInRows("m").y("abort rate").series("abort rate").logY().build(),
                    Figure.of("abort-twait", "CITRON Fig. 12: abort rate against T_wait (log scale)", "vs T_wait")
                            .xInRows("T_wait, us").y("abort rate").series("abort rate").logY().build());
            default -> List.of();
        };
    }

    /** ShiftLock Fig. 6: verbs per cycle by kind for each protocol, the paper's numbers as markers. */
    private static Figure verbs(String workload) {
        String rows = "(\\S+) " + workload;
        return Figure.of("fig6-" + workload.toLowerCase(java.util.Locale.ROOT),
                        "ShiftLock Fig. 6: verbs per acquire-release cycle, Zipf " + workload,
                        "verbs per cycle, Zipf " + workload)
                .xInRows("protocol").y("verbs per cycle").series("atomics", "READs", "WRITEs")
                .paper(PaperSeries.fromRows("atomics", "atomics per cycle", rows))
                .paper(PaperSeries.fromRows("READs", "READs per cycle", rows)).build();
    }

    /** ShiftLock Fig. 10: a transaction workload's goodput by protocol. */
    private static Figure txn(String workload, String panel) {
        return Figure.of(workload.toLowerCase(java.util.Locale.ROOT).replace("-", ""),
                        "ShiftLock Fig. " + panel + ": " + workload + " goodput under 2PL", workload)
                .xInRows("protocol").y("goodput, Ktxn/s").series("goodput").build();
    }

    /** CITRON Fig. 6: one range size's goodput or p99 against clients, a line per protocol. */
    private static Figure range(String metric, long size) {
        boolean goodput = metric.equals("goodput");
        return Figure.of(metric + "-l" + size, "CITRON Fig. 6: " + (goodput ? "goodput" : "acquire p99") + ", L = "
                        + size, goodput ? "goodput" : "acquire latency")
                .xInColumns("clients").y(goodput ? "goodput, Mops/s" : "acquire p99, us").only(", L=" + size + "$")
                .part(goodput ? 0 : 1).build();
    }

    /** CITRON Fig. 7: goodput in the mixed workload, in total (part 0) or of one range size (parts 1-3). */
    private static Figure mixed(String id, int part) {
        String what = part == 0 ? "total" : "L = " + new String[]{"", "1", "16", "256"}[part];
        return Figure.of(id, "CITRON Fig. 7: goodput by range size, mixed workload, " + what, "goodput")
                .xInColumns("clients").y("goodput, Mops/s").part(part).build();
    }
}
