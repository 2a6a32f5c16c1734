package io.lockfabric.bench.experiment.citron;

import io.lockfabric.bench.experiment.Band;
import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;

import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.range.RangeWorkload;
import io.lockfabric.sim.SimConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code citron-fig12}: CITRON (FAST'23) §4.7, Figure 12: CITRON's abort rate (node acquisitions
 * aborted because a notification may have come later than T_wait allows, per acquisition) and
 * goodput on the mixed workload, varying one of clients (m = 4, T_wait = 15 µs), m (options
 * {@code m}, 96 clients) and T_wait (option {@code t-wait-ns}, 96 clients). The paper: the rate
 * grows from the 1e-5 level at 3 clients to the 1e-2 level at 192 while goodput does not drop
 * after its peak (compared as goodput at 192 clients over the peak); m = 4 and T_wait = 15 µs
 * balance goodput and aborts (shown, not compared: the paper gives no numbers). Rates are compared as
 * log10; a run with no abort counts as {@value #FLOOR_LOG10} (below what the window can show).
 */
public final class CitronAbortRateExperiment implements Experiment {
    public static final String NAME = "citron-fig12";
    static final int[] CLIENTS = {3, 24, 48, 96, 192};
    static final int[] MS = {1, 2, 3, 4, 6};
    static final long[] T_WAITS_NS = {5_000, 10_000, 15_000, 20_000, 30_000};
    static final int FIXED_CLIENTS = 96;
    static final double FLOOR_LOG10 = -7;
    /** Client counts of the fencing-cost table (their fencing-off runs are the clients sweep's). */
    static final int[] FENCING_CLIENTS = {24, 48};
    /**
     * The sensitivity table's client counts (their runs at the default serialization are the
     * clients sweep's) and the other same-word serializations it runs them with; 100 ns is the
     * floor, the atomic's own service time (SimConfig's atomicServiceNs): a word is held at least
     * that long.
     */
    static final int[] SERIAL_CLIENTS = {48, 96, 192};
    static final long[] SERIAL_NS = {150, 100};

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String reference() {
        return "CITRON (FAST'23) §4.7, Figure 12";
    }

    @Override
    public String description() {
        return "citron abort rate and goodput, mixed sizes: vs clients (3..192), vs m (options m), vs T_wait "
                + "(option t-wait-ns)";
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        List<RunResult> all = new ArrayList<>();
        int total = CLIENTS.length + MS.length + T_WAITS_NS.length + FENCING_CLIENTS.length
                + SERIAL_CLIENTS.length * SERIAL_NS.length;
        // (the runs of the clients sweep come first in 'all': the fencing table reuses them)
        int[] done = {0};
        ClientsSweep byClients = clientsSweep(settings, all, done, total);
        ExperimentTable byM = mSweep(settings, all, done, total);
        ExperimentTable byT = tWaitSweep(settings, all, done, total);
        Fencing fencing = fencingCost(settings, all, done, total);
        Sensitivity serial = serializationSensitivity(settings, all, done, total);
        RunResult fenceOff = clientsSweepRun(all, FENCING_CLIENTS[FENCING_CLIENTS.length - 1]);
        String discussion = discussion(byClients, fenceOff, fencing.lastOn(), serial.runs());
        List<ExperimentRow> rows = rows(byClients, serial.runs(), all);
        return new ExperimentResult(NAME, reference(), description(),
                RangeMicrobench.setup(settings, "mixed L, Zipf 0.9; clients " + java.util.Arrays.toString(CLIENTS)
                        + ", m " + java.util.Arrays.toString(MS) + ", T_wait (ns) "
                        + java.util.Arrays.toString(T_WAITS_NS)),
                List.of(byClients.table(), byM, byT, fencing.table(), serial.table()), rows,
                discussion, System.nanoTime() - wallStart);
    }

    /** The clients sweep: its table, its first and last runs, and the peak goodput over it. */
    private record ClientsSweep(ExperimentTable table, RunResult first, RunResult last, double peak) {
    }

    /** The fencing-cost table and the fencing-on run of its last row. */
    private record Fencing(ExperimentTable table, RunResult lastOn) {
    }

    /**
     * The serialization-sensitivity table and its runs: {@code runs[i][j]} at
     * {@code SERIAL_CLIENTS[i]} clients and {@code SERIAL_NS[j]} ns per atomic on one word.
     */
    private record Sensitivity(ExperimentTable table, RunResult[][] runs) {
    }

    /**
     * The clients sweep's run at {@code clients} (fencing off, default serialization), from the head
     * of {@code all}.
     */
    private static RunResult clientsSweepRun(List<RunResult> all, int clients) {
        return all.get(java.util.Arrays.stream(CLIENTS).boxed().toList().indexOf(clients));
    }

    /** Citron at each of {@link #CLIENTS} (m = 4, T_wait = 15 us), its runs appended to {@code all}. */
    private static ClientsSweep clientsSweep(ExperimentSettings settings, List<RunResult> all, int[] done,
                                             int total) {
        ExperimentTable.Builder byClients = new ExperimentTable.Builder("vs clients (m = 4, T_wait = 15 us)",
                "clients", "abort rate", "goodput, Mops/s", "p50/p99, us");
        RunResult first = null;
        RunResult last = null;
        double peak = 0;
        for (int n : CLIENTS) {
            RunResult r = run(settings, n, List.of(), "clients " + n, done, total);
            all.add(r);
            byClients.row(Integer.toString(n), rate(r), RangeMicrobench.goodputCell(r), RangeMicrobench.latencyCell(r));
            first = first == null ? r : first;
            last = r;
            peak = Math.max(peak, r.goodput());
        }
        return new ClientsSweep(byClients.build(), first, last, peak);
    }

    /** Citron at {@link #FIXED_CLIENTS} with each m of {@link #MS}, its runs appended to {@code all}. */
    private static ExperimentTable mSweep(ExperimentSettings settings, List<RunResult> all, int[] done, int total) {
        ExperimentTable.Builder byM = new ExperimentTable.Builder("vs m (" + FIXED_CLIENTS + " clients, T_wait = 15 us)",
                "m", "abort rate", "goodput, Mops/s", "p50/p99, us");
        for (int m : MS) {
            RunResult r = run(settings, FIXED_CLIENTS, List.of("citron.m=" + m), "m " + m, done, total);
            all.add(r);
            byM.row(Integer.toString(m), rate(r), RangeMicrobench.goodputCell(r), RangeMicrobench.latencyCell(r));
        }
        return byM.build();
    }

    /** Citron at {@link #FIXED_CLIENTS} with each T_wait of {@link #T_WAITS_NS}, its runs appended to {@code all}. */
    private static ExperimentTable tWaitSweep(ExperimentSettings settings, List<RunResult> all, int[] done,
                                              int total) {
        ExperimentTable.Builder byT = new ExperimentTable.Builder("vs T_wait (" + FIXED_CLIENTS + " clients, m = 4)",
                "T_wait, us", "abort rate", "goodput, Mops/s", "p50/p99, us");
        for (long t : T_WAITS_NS) {
            RunResult r = run(settings, FIXED_CLIENTS, List.of("citron.t-wait-ns=" + t), "T_wait " + t + " ns",
                    done, total);
            all.add(r);
            byT.row(Long.toString(t / 1_000), rate(r), RangeMicrobench.goodputCell(r), RangeMicrobench.latencyCell(r));
        }
        return byT.build();
    }

    /**
     * Not in the paper: what our fencing tokens (one FAA on one word per node acquisition) cost, at
     * each of {@link #FENCING_CLIENTS}: the clients sweep's run (fencing off) against one with
     * fencing on, appended to {@code all}.
     */
    private static Fencing fencingCost(ExperimentSettings settings, List<RunResult> all, int[] done, int total) {
        ExperimentTable.Builder fencing = new ExperimentTable.Builder(
                "cost of fencing tokens (option fencing; not in the paper, which has none)", "clients",
                "goodput off / on, Mops/s", "on / off", "p50/p99 off, us", "p50/p99 on, us", "abort rate off / on");
        RunResult fenceOn = null; // the last row's fencing-on run
        for (int n : FENCING_CLIENTS) {
            int same = java.util.Arrays.stream(CLIENTS).boxed().toList().indexOf(n);
            RunResult off = same >= 0 ? all.get(same) // the clients sweep's run (fencing off)
                    : run(settings, n, List.of(), "fencing off, clients " + n, done, total);
            RunResult on = run(settings, n, List.of("citron.fencing=1"), "fencing on, clients " + n, done, total);
            all.add(on);
            fenceOn = on;
            fencing.row(Integer.toString(n), RangeMicrobench.f2(off.goodput() / 1e6) + " / "
                            + RangeMicrobench.f2(on.goodput() / 1e6),
                    off.goodput() == 0 ? "-" : RangeMicrobench.f2(on.goodput() / off.goodput()),
                    RangeMicrobench.latencyCell(off), RangeMicrobench.latencyCell(on), rate(off) + " / " + rate(on));
        }
        return new Fencing(fencing.build(), fenceOn);
    }

    /**
     * Not a protocol setting: how much of the gap to the paper is the simulator's 270 ns per atomic
     * on one word (calibrated on ShiftLock §2.3), which the hot level-(m - 1) stand-in node meets.
     * Each of {@link #SERIAL_CLIENTS} at the default (the clients sweep's run) and at each of
     * {@link #SERIAL_NS}, those runs appended to {@code all}.
     */
    private static Sensitivity serializationSensitivity(ExperimentSettings settings, List<RunResult> all, int[] done,
                                                        int total) {
        List<String> serialColumns = new ArrayList<>(List.of("clients",
                SimConfig.DEFAULT_SAME_WORD_SERIAL_NS + " ns (default)"));
        for (long ns : SERIAL_NS) {
            serialColumns.add(ns + " ns");
        }
        ExperimentTable.Builder serial = new ExperimentTable.Builder("sensitivity to the simulator's serialization of "
                + "atomics on one word (SimConfig.sameWordSerialNs; not a protocol option): abort rate / goodput, "
                + "Mops/s", serialColumns.toArray(String[]::new));
        RunResult[][] bySerial = new RunResult[SERIAL_CLIENTS.length][SERIAL_NS.length];
        for (int i = 0; i < SERIAL_CLIENTS.length; i++) {
            int n = SERIAL_CLIENTS[i];
            List<String> row = new ArrayList<>(List.of(Integer.toString(n)));
            row.add(serialCell(clientsSweepRun(all, n)));
            for (int j = 0; j < SERIAL_NS.length; j++) {
                long ns = SERIAL_NS[j];
                settings.progress(++done[0], total, "clients " + n + ", " + ns + " ns per atomic on one word");
                RunResult r = RangeMicrobench.of("citron", RangeWorkload.MIXED, 0.9, n).withSameWordSerialNs(ns)
                        .run(settings);
                all.add(r);
                bySerial[i][j] = r;
                row.add(serialCell(r));
            }
            serial.row(row.toArray(String[]::new));
        }
        return new Sensitivity(serial.build(), bySerial);
    }

    /**
     * The discussion: what agrees, what differs and why, with the rate and goodput at the most
     * clients, the sensitivity runs at the most clients ({@code bySerial}'s last row), and the
     * fencing cost at the last of {@link #FENCING_CLIENTS}.
     */
    private static String discussion(ClientsSweep byClients, RunResult fenceOff, RunResult fenceOn,
                                     RunResult[][] bySerial) {
        RunResult last = byClients.last();
        double peak = byClients.peak();
        RunResult last150 = bySerial[SERIAL_CLIENTS.length - 1][0];
        double peak150 = java.util.Arrays.stream(bySerial).mapToDouble(r -> r[0].goodput()).max().orElse(0);
        return String.format(java.util.Locale.ROOT, "Agrees: the abort rate grows with clients and "
                + "falls as T_wait or m grows, and m = 4 / T_wait = 15 us is a reasonable middle. Differs: (1) no abort "
                + "at 3 clients in the window (paper: 1e-5, from \"occasional long-lasting RDMA verbs\"; the simulator's "
                + "verbs vary by at most the 100 ns jitter). (2) From 96 clients the rate climbs to %.2g per acquisition "
                + "at 192 (paper: 1e-2) and goodput falls to %.0f%% of its peak (paper: no drop). Why: Zipf-0.9 puts 61%% "
                + "of left borders under the first level-3 node, the m - 1 stand-in that every such request notifies; "
                + "each attempt puts two masked FAAs on that one word (notify, then release or rollback) and READs it "
                + "in step (b), and the simulator serializes atomics on a word at 270 ns (calibrated on ShiftLock's "
                + "CAS storm). Its queue grows with clients and pushes t2 - t1 (4.8 us uncontended for a leaf) past "
                + "T_wait around 60 clients; every abort adds atomics to the same word. Measured here (last table): "
                + "with %d ns per atomic on one word instead of 270, 192 clients abort %.2g times per acquisition "
                + "(%s the paper's 1e-2 band of one decade) at %.2f Mops/s, %.0f%% of that series' peak (270 ns: "
                + "%.0f%%); with %d ns, the floor (the atomic's own service time: a word is held at least that "
                + "long, so a lower setting changes nothing), %.2g. So the serialization explains the collapse "
                + "after the peak and most of the excess aborts; at seed 42 the rate at 192 clients is the paper's "
                + "order of magnitude only at the floor (150 ns: about ten times it). The abort backoff cap "
                + "(512 us, was 64 us) keeps it from a livelock (measured when the cap was raised, not rerun here: "
                + "192 clients on L = 1 had 185 of 192 clients without a grant over 30 ms with the 64 us cap). "
                + "m = 6 aborts less (its stand-in, level 5, covers 42%% of borders, and a leaf notifies two nodes "
                + "instead of three). (3) T_wait = 5 us is below an uncontended leaf's t2 - t1 in the "
                + "simulator (two round trips of ~2.4 us), so every attempt aborts (clients stuck); the paper's 2 us "
                + "round trips leave room. Fencing tokens (not in the paper) change goodput by %+.0f%% at %d "
                + "clients (within run-to-run noise if near 0): one more FAA per node acquisition, on one word "
                + "every acquisition hits (3.7 M/s at 270 ns).",
                last.timingAbortsPerOperation(), peak == 0 ? 0 : 100 * last.goodput() / peak,
                SERIAL_NS[0], last150.timingAbortsPerOperation(),
                Math.abs(log10(last150) + 2) <= 1 ? "inside" : "outside", last150.goodput() / 1e6,
                peak150 == 0 ? 0 : 100 * last150.goodput() / peak150, peak == 0 ? 0 : 100 * last.goodput() / peak,
                SERIAL_NS[1], bySerial[SERIAL_CLIENTS.length - 1][1].timingAbortsPerOperation(),
                fenceOff.goodput() == 0 ? 0 : 100 * (fenceOn.goodput() / fenceOff.goodput() - 1),
                FENCING_CLIENTS[FENCING_CLIENTS.length - 1]);
    }

    /**
     * The compared rows: the abort rate at the fewest and the most clients, goodput at the most
     * clients over the peak, the abort rate at the most clients at {@code SERIAL_NS[0]}, and mutual
     * exclusion over every run.
     */
    private static List<ExperimentRow> rows(ClientsSweep byClients, RunResult[][] bySerial, List<RunResult> all) {
        RunResult last = byClients.last();
        double peak = byClients.peak();
        RunResult last150 = bySerial[SERIAL_CLIENTS.length - 1][0];
        List<ExperimentRow> rows = new ArrayList<>();
        rows.add(new ExperimentRow(CLIENTS[0] + " clients", "log10 abort rate", -5, log10(byClients.first()), "log10",
                Band.absolute(1)));
        rows.add(new ExperimentRow(CLIENTS[CLIENTS.length - 1] + " clients", "log10 abort rate", -2, log10(last),
                "log10", Band.absolute(1)));
        // "the overall throughput does not drop with the increase in the abort rate after reaching the maximum"
        rows.add(new ExperimentRow(CLIENTS[CLIENTS.length - 1] + " clients", "goodput / peak goodput over clients", 1,
                peak == 0 ? 0 : last.goodput() / peak, "x", Band.relative(0.25)));
        rows.add(new ExperimentRow(CLIENTS[CLIENTS.length - 1] + " clients, " + SERIAL_NS[0] + " ns/word",
                "log10 abort rate (sensitivity)", -2, log10(last150), "log10", Band.absolute(1)));
        rows.add(RangeMicrobench.exclusionRow(all));
        return rows;
    }

    private static RunResult run(ExperimentSettings settings, int clients, List<String> options, String label,
                                      int[] done, int total) {
        settings.progress(++done[0], total, label);
        return RangeMicrobench.of("citron", RangeWorkload.MIXED, 0.9, clients).withOptions(options).run(settings);
    }

    private static String rate(RunResult r) {
        return String.format(Locale.ROOT, "%.2e", r.timingAbortsPerOperation()) + RangeMicrobench.stuckNote(r);
    }

    private static String serialCell(RunResult r) {
        return String.format(Locale.ROOT, "%.2e / %.2f", r.timingAbortsPerOperation(), r.goodput() / 1e6)
                + RangeMicrobench.stuckNote(r);
    }

    private static double log10(RunResult r) {
        double rate = r.timingAbortsPerOperation();
        return rate <= 0 ? FLOOR_LOG10 : Math.max(FLOOR_LOG10, Math.log10(rate));
    }
}
