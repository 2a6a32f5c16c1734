package io.lockfabric.bench.experiment.declock;

import io.lockfabric.bench.experiment.Band;
import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;

import io.lockfabric.bench.RunResult;
import io.lockfabric.fabric.VerbKind;

import java.util.ArrayList;
import java.util.Arrays;
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
 * paper's applications use; its queue holds one entry per CN, so every capacity here is enough) if
 * the build has it, else the flat {@code cql}, whose table admits at most {@code 2 × capacity − 1}
 * clients, so its sweep starts at 256 entries for the 256 clients.
 */
public final class DecLockCapacityExperiment implements Experiment {
    public static final String NAME = "declock-fig15";
    static final List<String> CANDIDATES = List.of(DecLockMicrobench.DECLOCK_PF, DecLockMicrobench.CQL);
    static final String CAPACITY_OPTION = "capacity";
    static final int[] CAPACITIES = {8, 32, 128, 512, 2048};
    static final int[] FLAT_CAPACITIES = {256, 512, 1024, 2048, 4096};
    /** The paper's bound holds up to this capacity. */
    static final int PAPER_CAPACITY = 128;
    static final double[] ZIPFS = {DecLockMicrobench.ZIPF, 0.9, 0};
    private static final long WARMUP_NS = 2_000_000L;
    private static final long DURATION_NS = 8_000_000L;
    /** The paper: release latency below 8.80 µs up to capacity 128, even uniform. */
    private static final double PAPER_BOUND_US = 8.80;
    private static final Band BOUND_BAND = Band.absolute(0.5);

    private final int[] hierarchicalCapacities;
    private final int[] flatCapacities;

    public DecLockCapacityExperiment() {
        this(CAPACITIES, FLAT_CAPACITIES);
    }

    /** With other capacity sweeps (tests: large queues make large tables, slow to set up). */
    DecLockCapacityExperiment(int[] hierarchicalCapacities, int[] flatCapacities) {
        this.hierarchicalCapacities = hierarchicalCapacities.clone();
        this.flatCapacities = flatCapacities.clone();
    }

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
        return "release latency against queue capacity (declock-pf 8..2048, else cql 256..4096), Zipf 0.99 / 0.9 / "
                + "uniform, 8 CNs x 32 clients, 100 000 locks, 50% reads, cs 1";
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        String protocol = protocol();
        if (protocol == null) {
            return new ExperimentResult(NAME, reference(), description(),
                    DecLockMicrobench.setup(settings, "cs 1", WARMUP_NS, DURATION_NS), List.of(), List.of(),
                    "Not run: none of " + String.join(", ", CANDIDATES) + " is registered with option '"
                            + CAPACITY_OPTION + "' in this build; no number is reported.",
                    System.nanoTime() - wallStart);
        }
        int[] capacities = capacities(protocol);
        String setup = DecLockMicrobench.setup(settings, "cs 1, " + protocol + " with capacity as the columns, Zipf "
                + "as the rows", WARMUP_NS, DURATION_NS);
        Map<String, RunResult> runs = new LinkedHashMap<>();
        int total = capacities.length * ZIPFS.length;
        int done = 0;
        for (double zipf : ZIPFS) {
            for (int capacity : capacities) {
                settings.progress(++done, total, key(zipf, capacity));
                runs.put(key(zipf, capacity), DecLockMicrobench.testbed(protocol, WARMUP_NS, DURATION_NS)
                        .withZipf(zipf).withOptions(List.of(protocol + "." + CAPACITY_OPTION + "=" + capacity))
                        .run(settings));
            }
        }
        List<String> columns = new ArrayList<>();
        columns.add("workload");
        for (int capacity : capacities) {
            columns.add("cap " + capacity);
        }
        ExperimentTable.Builder release = new ExperimentTable.Builder(
                "release latency p50 / p99, us (Figure 15 right)", columns.toArray(String[]::new));
        ExperimentTable.Builder goodput = new ExperimentTable.Builder("goodput Mops/s; READs per cycle",
                columns.toArray(String[]::new));
        for (double zipf : ZIPFS) {
            List<String> l = new ArrayList<>(List.of(zipfName(zipf)));
            List<String> g = new ArrayList<>(List.of(zipfName(zipf)));
            for (int capacity : capacities) {
                RunResult r = runs.get(key(zipf, capacity));
                l.add(String.format(Locale.ROOT, "%.2f / %.1f", r.releaseLatency().p50Us(), r.releaseLatency().p99Us()));
                g.add(DecLockMicrobench.mops(r) + "; " + DecLockMicrobench.f2(r.lockOpsPerCycle().get(VerbKind.READ)));
            }
            release.row(l.toArray(String[]::new));
            goodput.row(g.toArray(String[]::new));
        }
        List<ExperimentRow> rows = new ArrayList<>();
        int compared = Arrays.stream(capacities).filter(c -> c >= PAPER_CAPACITY).min()
                .orElse(capacities[capacities.length - 1]);
        // the paper gives a bound, not a value: compare how far the release exceeds it (0 agrees)
        rows.add(new ExperimentRow("uniform, capacity " + compared, "release p50 above the paper's 8.80 us bound", 0,
                Math.max(0, runs.get(key(0, compared)).releaseLatency().p50Us() - PAPER_BOUND_US), "us", BOUND_BAND));
        return new ExperimentResult(NAME, reference(), description(), setup,
                List.of(release.build(), goodput.build()), rows, discussion(runs, capacities), System.nanoTime() - wallStart);
    }

    /** The first candidate with a capacity option, or null. */
    static String protocol() {
        return CANDIDATES.stream().filter(p -> DecLockMicrobench.hasOption(p, CAPACITY_OPTION)).findFirst()
                .orElse(null);
    }

    int[] capacities(String protocol) {
        return (protocol.equals(DecLockMicrobench.CQL) ? flatCapacities : hierarchicalCapacities).clone();
    }

    private static String discussion(Map<String, RunResult> runs, int[] capacities) {
        StringBuilder sb = new StringBuilder();
        for (double zipf : ZIPFS) {
            double first = runs.get(key(zipf, capacities[0])).releaseLatency().p50Us();
            double last = runs.get(key(zipf, capacities[capacities.length - 1])).releaseLatency().p50Us();
            sb.append(String.format(Locale.ROOT, "%s: release p50 %.2f us at capacity %d, %.2f at %d. ",
                    zipfName(zipf), first, capacities[0], last, capacities[capacities.length - 1]));
        }
        sb.append("The paper gives 8.80 us as an upper bound up to capacity 128, not a value, so the row compares "
                + "the excess over it. The simulator charges "
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
