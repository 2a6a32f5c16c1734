package io.lockfabric.bench.experiment;

import io.lockfabric.bench.RunResult;
import io.lockfabric.fabric.VerbKind;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code declock-fig15}: DecLock §6.5, Figure 15 (right): release latency as the CQL lock's queue
 * capacity grows from 8 to 2048 entries (option {@code capacity}), under Zipf 0.99, Zipf 0.9 and
 * uniform lock choice (8 CNs × 32 clients, 100 000 locks, 50% reads, cs 1). A release READs the
 * whole queue with its FAA, so every entry adds bytes the memory node's NIC must send; the less
 * skewed the workload, the higher its rate and the sooner that bandwidth binds.
 *
 * <p>The paper: release latency stays below 8.80 µs up to capacity 128 even under the uniform
 * workload, and rises faster the less skewed the workload. Runs {@code declock-pf} (the variant the
 * paper's applications use; its queue holds one entry per CN, so every capacity here is enough).
 */
public final class DecLockCapacityExperiment implements Experiment {
    public static final String NAME = "declock-fig15";
    static final String PROTOCOL = DecLockMicrobench.DECLOCK_PF;
    static final String CAPACITY_OPTION = "capacity";
    static final int[] CAPACITIES = {8, 32, 128, 512, 2048};
    static final double[] ZIPFS = {DecLockMicrobench.ZIPF, 0.9, 0};
    private static final long WARMUP_NS = 2_000_000L;
    private static final long DURATION_NS = 8_000_000L;
    private static final Band LATENCY_BAND = Band.relative(0.25);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String reference() {
        return "DecLock §6.5, Figure 15 (right)";
    }

    @Override
    public String description() {
        return "release latency of " + PROTOCOL + " against queue capacity 8..2048, Zipf 0.99 / 0.9 / uniform, "
                + "8 CNs x 32 clients, 100 000 locks, 50% reads, cs 1";
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        String setup = DecLockMicrobench.setup(settings, "cs 1, " + PROTOCOL + " with capacity as the columns, Zipf "
                + "as the rows", WARMUP_NS, DURATION_NS);
        if (!DecLockMicrobench.hasOption(PROTOCOL, CAPACITY_OPTION)) {
            return new ExperimentResult(NAME, reference(), description(), setup, List.of(), List.of(),
                    "Not run: " + PROTOCOL + (DecLockMicrobench.available(PROTOCOL)
                            ? " has no option '" + CAPACITY_OPTION + "'" : " is not registered in this build")
                            + "; no number is reported.",
                    System.nanoTime() - wallStart);
        }
        Map<String, RunResult> runs = new LinkedHashMap<>();
        int total = CAPACITIES.length * ZIPFS.length;
        int done = 0;
        for (double zipf : ZIPFS) {
            for (int capacity : CAPACITIES) {
                settings.progress(++done, total, key(zipf, capacity));
                runs.put(key(zipf, capacity), DecLockMicrobench.testbed(PROTOCOL, WARMUP_NS, DURATION_NS)
                        .withZipf(zipf).withOptions(List.of(PROTOCOL + "." + CAPACITY_OPTION + "=" + capacity))
                        .run(settings));
            }
        }
        List<String> columns = new ArrayList<>();
        columns.add("workload");
        for (int capacity : CAPACITIES) {
            columns.add("cap " + capacity);
        }
        ExperimentTable.Builder release = new ExperimentTable.Builder(
                "release latency p50 / p99, us (Figure 15 right)", columns.toArray(String[]::new));
        ExperimentTable.Builder goodput = new ExperimentTable.Builder("goodput Mops/s; READs per cycle",
                columns.toArray(String[]::new));
        for (double zipf : ZIPFS) {
            List<String> l = new ArrayList<>(List.of(zipfName(zipf)));
            List<String> g = new ArrayList<>(List.of(zipfName(zipf)));
            for (int capacity : CAPACITIES) {
                RunResult r = runs.get(key(zipf, capacity));
                l.add(String.format(Locale.ROOT, "%.2f / %.1f", r.releaseLatency().p50Us(), r.releaseLatency().p99Us()));
                g.add(DecLockMicrobench.mops(r) + "; " + DecLockMicrobench.f2(r.lockOpsPerCycle().get(VerbKind.READ)));
            }
            release.row(l.toArray(String[]::new));
            goodput.row(g.toArray(String[]::new));
        }
        List<ExperimentRow> rows = new ArrayList<>();
        RunResult uniform128 = runs.get(key(0, 128));
        rows.add(new ExperimentRow("uniform, capacity 128", "release latency p50 (paper: below)", 8.80,
                uniform128.releaseLatency().p50Us(), "us", LATENCY_BAND));
        return new ExperimentResult(NAME, reference(), description(), setup,
                List.of(release.build(), goodput.build()), rows, discussion(runs), System.nanoTime() - wallStart);
    }

    private static String discussion(Map<String, RunResult> runs) {
        StringBuilder sb = new StringBuilder();
        for (double zipf : ZIPFS) {
            double first = runs.get(key(zipf, CAPACITIES[0])).releaseLatency().p50Us();
            double at128 = runs.get(key(zipf, 128)).releaseLatency().p50Us();
            double last = runs.get(key(zipf, CAPACITIES[CAPACITIES.length - 1])).releaseLatency().p50Us();
            sb.append(String.format(Locale.ROOT, "%s: release p50 %.2f us at capacity %d, %.2f at 128, %.2f at %d. ",
                    zipfName(zipf), first, CAPACITIES[0], at128, last, CAPACITIES[CAPACITIES.length - 1]));
        }
        sb.append("The paper gives 8.80 us as an upper bound up to capacity 128, not a value: a release well below "
                + "it agrees with the paper even where the row's band says otherwise. The simulator charges "
                + "payload at the memory-node NIC's per-byte rate, so the queue READ grows with the capacity; it "
                + "models no PCIe or DMA limit beyond that.");
        return sb.toString();
    }

    static String zipfName(double zipf) {
        return zipf == 0 ? "uniform" : String.format(Locale.ROOT, "Zipf %.2f", zipf);
    }

    private static String key(double zipf, int capacity) {
        return zipfName(zipf) + " cap " + capacity;
    }
}
