package io.lockfabric.bench.experiment;

import io.lockfabric.bench.RunResult;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * {@code declock-fig16}: DecLock §6.6, Figure 16 (left): the average latency of a lock reset as the
 * number of clients grows (a reset broadcasts a signal to every client and waits for their answers),
 * on the CQL lock ({@code cql}) under the default workload (100 000 locks, Zipf 0.99, 50% reads,
 * cs 1), clients 8 … 256 as in {@code declock-fig12}. Resets are provoked by a queue smaller than
 * the clients that can meet on the hottest lock ({@value #RESET_CAPACITY} entries): its overflow
 * makes the lock reset, as §4.4 prescribes.
 *
 * <p>The paper: the reset latency rises from 83.29 µs to 520.72 µs as clients grow. If the protocol
 * does not report its reset latency, the experiment says so and reports only the resets counted.
 */
public final class DecLockResetExperiment implements Experiment {
    public static final String NAME = "declock-fig16";
    static final String PROTOCOL = DecLockMicrobench.CQL;
    static final String CAPACITY_OPTION = "capacity";
    static final int RESET_CAPACITY = 8;
    static final int[][] POINTS = {{1, 8}, {1, 32}, {2, 32}, {4, 32}, {8, 32}};
    private static final long WARMUP_NS = 1_000_000L;
    private static final long DURATION_NS = 8_000_000L;
    private static final Band LATENCY_BAND = Band.relative(0.5);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String reference() {
        return "DecLock §6.6, Figure 16 (left)";
    }

    @Override
    public String description() {
        return "reset latency of " + PROTOCOL + " against clients (8..256), resets provoked by a queue of "
                + RESET_CAPACITY + " entries, 100 000 locks, Zipf 0.99, 50% reads, cs 1";
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        String setup = DecLockMicrobench.setup(settings, "cs 1, " + PROTOCOL + " capacity " + RESET_CAPACITY
                + ", clients as the rows", WARMUP_NS, DURATION_NS);
        if (!DecLockMicrobench.hasOption(PROTOCOL, CAPACITY_OPTION)) {
            return new ExperimentResult(NAME, reference(), description(), setup, List.of(), List.of(),
                    "Not run: " + PROTOCOL + (DecLockMicrobench.available(PROTOCOL)
                            ? " has no option '" + CAPACITY_OPTION + "'" : " is not registered in this build")
                            + "; no number is reported.",
                    System.nanoTime() - wallStart);
        }
        List<RunResult> runs = new ArrayList<>();
        for (int i = 0; i < POINTS.length; i++) {
            int[] point = POINTS[i];
            settings.progress(i + 1, POINTS.length, DecLockClientsExperiment.label(point));
            runs.add(DecLockMicrobench.testbed(PROTOCOL, WARMUP_NS, DURATION_NS).withClients(point[0], point[1])
                    .withOptions(List.of(PROTOCOL + "." + CAPACITY_OPTION + "=" + RESET_CAPACITY)).run(settings));
        }
        ExperimentTable.Builder t = new ExperimentTable.Builder("cql resets by clients (Figure 16 left)",
                "clients", "resets", "reset share %", "reset latency us", "goodput Mops/s");
        boolean latencyMissing = false;
        for (int i = 0; i < POINTS.length; i++) {
            RunResult r = runs.get(i);
            OptionalDouble latency = resetLatencyUs(r);
            latencyMissing |= latency.isEmpty();
            t.row(DecLockClientsExperiment.label(POINTS[i]), Long.toString(r.resets()),
                    String.format(Locale.ROOT, "%.4f", DecLockCriticalSectionExperiment.resetShare(r)),
                    latency.isPresent() ? DecLockMicrobench.f1(latency.getAsDouble()) : "missing",
                    DecLockMicrobench.mops(r));
        }
        List<ExperimentRow> rows = new ArrayList<>();
        OptionalDouble fewest = resetLatencyUs(runs.getFirst());
        OptionalDouble most = resetLatencyUs(runs.getLast());
        if (fewest.isPresent()) {
            rows.add(new ExperimentRow(DecLockClientsExperiment.label(POINTS[0]) + " clients", "reset latency", 83.29,
                    fewest.getAsDouble(), "us", LATENCY_BAND));
        }
        if (most.isPresent()) {
            rows.add(new ExperimentRow(DecLockClientsExperiment.label(POINTS[POINTS.length - 1]) + " clients",
                    "reset latency", 520.72, most.getAsDouble(), "us", LATENCY_BAND));
        }
        String discussion = latencyMissing
                ? "Reset latency missing: " + PROTOCOL + " does not report how long its resets take in this build; "
                + "only the resets it counted are shown, no latency is invented."
                : "The reset's latency is dominated by the broadcast to every client and the wait for their "
                + "answers, which grows with the clients as in the paper.";
        return new ExperimentResult(NAME, reference(), description(), setup, List.of(t.build()), rows, discussion,
                System.nanoTime() - wallStart);
    }

    /** Average latency of the resets in the run, if the protocol reports it. */
    static OptionalDouble resetLatencyUs(RunResult r) {
        return OptionalDouble.empty();
    }
}
