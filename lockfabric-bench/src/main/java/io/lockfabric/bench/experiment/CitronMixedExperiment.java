package io.lockfabric.bench.experiment;

import io.lockfabric.bench.range.RangeBenchConfig;
import io.lockfabric.bench.range.RangeRunResult;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code citron-fig7}: CITRON (FAST'23) §4.2, Figure 7: goodput by range size under the mixed
 * workload (a third of the clients each asks for L = 1, 16, 256; Zipf-0.9 left borders) as
 * clients grow, for CITRON and the range baselines. The paper: CITRON beats the best baseline by
 * 27.7%, 51.7% and 55.9% at 63, 129 and 192 clients, and gives small ranges more goodput without
 * starving large ones (checked here as: every size gets goodput at every client count). The paper
 * runs SS at granularities 1, 16 and 256; here the SS variants run as registered.
 */
public final class CitronMixedExperiment implements Experiment {
    public static final String NAME = "citron-fig7";
    /** The paper's three compared points and two low-contention ones. */
    static final int[] CLIENTS = {3, 24, 63, 129, 192};
    static final double[] PAPER_GAIN = {0, 0, 0.277, 0.517, 0.559};
    private static final Band RATIO_BAND = Band.relative(0.3);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String reference() {
        return "CITRON (FAST'23) §4.2, Figure 7";
    }

    @Override
    public String description() {
        return "goodput by range size, mixed L = 1/16/256 (a third of the clients each), clients 3..192: "
                + String.join(", ", RangeMicrobench.RANGE_PROTOCOLS);
    }

    @Override
    public boolean selectsProtocols() {
        return true;
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        List<String> protocols = RangeMicrobench.protocols(settings, RangeMicrobench.RANGE_PROTOCOLS);
        Map<String, RangeRunResult> runs = new LinkedHashMap<>();
        int total = protocols.size() * CLIENTS.length;
        int done = 0;
        for (String protocol : protocols) {
            for (int clients : CLIENTS) {
                String key = key(protocol, clients);
                settings.progress(++done, total, key);
                runs.put(key, RangeMicrobench.of(protocol, RangeBenchConfig.MIXED, 0.9, clients).run(settings));
            }
        }
        List<String> columns = new ArrayList<>(List.of("protocol"));
        for (int n : CLIENTS) {
            columns.add(n + " clients");
        }
        ExperimentTable.Builder goodput = new ExperimentTable.Builder("goodput, Mops/s: total (L=1 / L=16 / L=256)",
                columns.toArray(String[]::new));
        ExperimentTable.Builder latency = new ExperimentTable.Builder("acquire latency p50 / p99, us",
                columns.toArray(String[]::new));
        for (String protocol : protocols) {
            List<String> g = new ArrayList<>(List.of(protocol));
            List<String> l = new ArrayList<>(List.of(protocol));
            for (int n : CLIENTS) {
                RangeRunResult r = runs.get(key(protocol, n));
                g.add(RangeMicrobench.goodputCell(r) + " (" + RangeMicrobench.f2(r.goodput(1) / 1e6) + " / "
                        + RangeMicrobench.f2(r.goodput(16) / 1e6) + " / " + RangeMicrobench.f2(r.goodput(256) / 1e6)
                        + ")");
                l.add(RangeMicrobench.latencyCell(r));
            }
            goodput.row(g.toArray(String[]::new));
            latency.row(l.toArray(String[]::new));
        }
        List<ExperimentRow> rows = new ArrayList<>();
        List<String> baselines = protocols.stream().filter(p -> !p.equals("citron")).toList();
        String discussion = "";
        if (protocols.contains("citron") && !baselines.isEmpty()) {
            for (int i = 0; i < CLIENTS.length; i++) {
                if (PAPER_GAIN[i] == 0) {
                    continue;
                }
                int n = CLIENTS[i];
                double best = baselines.stream().mapToDouble(b -> runs.get(key(b, n)).goodput()).max().orElse(0);
                double ours = runs.get(key("citron", n)).goodput();
                rows.add(new ExperimentRow(n + " clients", "goodput citron / best baseline", 1 + PAPER_GAIN[i],
                        best == 0 ? 0 : ours / best, "x", RATIO_BAND));
            }
        } else {
            discussion = "No citron-vs-baseline rows: they need citron and at least one baseline. ";
        }
        discussion += "Agrees: at 63 clients citron's goodput against the best baseline lies within the band "
                + "of the paper's ratio, and citron serves all three sizes at every client count (none starved, "
                + "small ranges get more). Differs: from 129 clients citron's goodput falls "
                + "while the paper's keeps rising to 1.56x the best baseline. Why: under Zipf-0.9 borders 61% of "
                + "requests notify one node (the first level-3 node, the m - 1 stand-in), two atomics per attempt on "
                + "one word that the simulator serializes at 270 ns; its queue pushes notifications past T_wait and "
                + "every abort adds to it (citron-fig12 has the measurements). rpc-range stays flat at ~1.3 Mops/s: "
                + "the simulated memory node has 4 cores of 1.5 us per rpc (2 rpcs per acquisition), the paper's "
                + "server 18 eRPC threads; lld walks its list with one round trip per entry, as in the paper.";
        if (protocols.contains("citron")) {
            long starved = 0;
            for (int n : CLIENTS) {
                RangeRunResult r = runs.get(key("citron", n));
                for (long size : RangeBenchConfig.MIXED) {
                    if (r.goodput(size) == 0) {
                        starved++;
                    }
                }
            }
            rows.add(new ExperimentRow("all client counts", "citron range sizes with no goodput (starved)", 0, starved,
                    "count", Band.absolute(0.5)));
        }
        rows.add(RangeMicrobench.exclusionRow(List.copyOf(runs.values())));
        return new ExperimentResult(NAME, reference(), description(),
                RangeMicrobench.setup(settings, "mixed L, Zipf 0.9, clients " + java.util.Arrays.toString(CLIENTS)
                        + ", protocols " + String.join(", ", protocols)),
                List.of(goodput.build(), latency.build()), rows, discussion, System.nanoTime() - wallStart);
    }

    static String key(String protocol, int clients) {
        return protocol + " mixed " + clients + " clients";
    }
}
