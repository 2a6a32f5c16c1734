package io.lockfabric.bench.experiment.shiftlock;

import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;

import java.util.List;
import java.util.Locale;

/**
 * The runs of ShiftLock's §4.3 scalability sweeps (Figures 7-9): one point of the microbenchmark on
 * the simulated testbed (5 CNs, the artifact's baseline settings), in short windows; {@code cas} warms
 * up longer, as in Figure 4, since its backoff caps adapt slowly.
 */
final class ShiftLockSweep {
    /** The sweeps' windows: measured 4 ms after 1 ms (the paper's runs are 10 s; the simulator's steady state comes in a millisecond). */
    static final long WARMUP_NS = 1_000_000L;
    static final long DURATION_NS = 4_000_000L;

    private ShiftLockSweep() {
    }

    /** One run: {@code clients} (a multiple of 5) on {@code locks} locks, {@code readRatio} shared, Zipf {@code zipf}. */
    static RunResult run(String protocol, double readRatio, double zipf, long locks, int clients, long casWarmupNs,
                         ExperimentSettings settings) {
        long warmup = settings.warmupOr(WARMUP_NS);
        if ("cas".equals(protocol)) {
            warmup = Math.max(warmup, casWarmupNs);
        }
        return new SimMicrobench(protocol, ShiftLockMicrobenchExperiment.ARTIFACT_OPTIONS, readRatio, zipf, locks,
                SimMicrobench.TESTBED_COMPUTE_NODES, clients / SimMicrobench.TESTBED_COMPUTE_NODES, warmup, DURATION_NS)
                .withClients(clients).run(settings.withWarmupNs(warmup));
    }

    /** The windows, for a setup line: {@code measured 4 ms after 1 ms (cas: 300 ms ...)}. */
    static String windows(ExperimentSettings settings, long casWarmupNs, boolean withCas) {
        long warmup = settings.warmupOr(WARMUP_NS);
        return String.format(Locale.ROOT, "measured %.0f ms after %.0f ms%s", settings.durationOr(DURATION_NS) / 1e6,
                warmup / 1e6, withCas ? String.format(Locale.ROOT, " (cas: %.0f ms, its backoff adapts)",
                        Math.max(warmup, casWarmupNs) / 1e6) : "");
    }

    /** "Every compared number is within its band." or the rows outside, paper against ours. */
    static String outside(List<ExperimentRow> rows) {
        List<ExperimentRow> out = rows.stream().filter(r -> !r.withinBand()).toList();
        if (out.isEmpty()) {
            return "Every compared number is within its band.";
        }
        return "Outside their bands: " + String.join("; ", out.stream().map(r -> String.format(Locale.ROOT,
                "%s, %s (paper %.2f, ours %.2f)", r.caseName(), r.metric(), r.paper(), r.sim())).toList()) + ".";
    }
}
