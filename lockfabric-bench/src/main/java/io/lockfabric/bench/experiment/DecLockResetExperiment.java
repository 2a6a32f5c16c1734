package io.lockfabric.bench.experiment;

import io.lockfabric.bench.RunResult;
import io.lockfabric.lock.declock.CqlClient;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * {@code declock-fig16}: DecLock §6.6, Figure 16 (left): the average latency of a lock reset as the
 * number of clients grows (a reset broadcasts a signal to every client and waits for their answers),
 * on the CQL lock ({@code cql}) under the default workload (100 000 locks, Zipf 0.99, 50% reads,
 * cs 1), clients 8 … 256 as in {@code declock-fig12}. Resets are provoked by a short acquisition
 * timeout ({@value #TIMEOUT} instead of 10 ms): a waiter not granted within it resets the lock, as
 * after a CN failure (§4.4). (A queue overflow cannot be provoked: {@code cql} admits at most
 * {@code 2 × capacity − 1} clients to a table, so a queue never holds more than its capacity unless
 * more than half of them wait on one lock.) The latency of a reset is the resetter's, from RST set
 * to the fresh header in place ({@link CqlClient#resetLatenciesNs()}), over the whole run.
 *
 * <p>The paper: the reset latency rises from 83.29 µs to 520.72 µs as clients grow.
 */
public final class DecLockResetExperiment implements Experiment {
    public static final String NAME = "declock-fig16";
    static final String PROTOCOL = DecLockMicrobench.CQL;
    static final String TIMEOUT_OPTION = "timeout-ns";
    static final String TIMEOUT = "500us";
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
        return "reset latency of " + PROTOCOL + " against clients (8..256), resets provoked by a " + TIMEOUT
                + " acquisition timeout, 100 000 locks, Zipf 0.99, 50% reads, cs 1";
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        String setup = DecLockMicrobench.setup(settings, "cs 1, " + PROTOCOL + " " + TIMEOUT_OPTION + "=" + TIMEOUT
                + ", clients as the rows", WARMUP_NS, DURATION_NS);
        if (!DecLockMicrobench.hasOption(PROTOCOL, TIMEOUT_OPTION)) {
            return new ExperimentResult(NAME, reference(), description(), setup, List.of(), List.of(),
                    "Not run: " + PROTOCOL + (DecLockMicrobench.available(PROTOCOL)
                            ? " has no option '" + TIMEOUT_OPTION + "'" : " is not registered in this build")
                            + "; no number is reported.",
                    System.nanoTime() - wallStart);
        }
        List<RunResult> runs = new ArrayList<>();
        List<long[]> latencies = new ArrayList<>();
        for (int i = 0; i < POINTS.length; i++) {
            int[] point = POINTS[i];
            settings.progress(i + 1, POINTS.length, DecLockClientsExperiment.label(point));
            List<Long> resetNs = new ArrayList<>();
            runs.add(DecLockMicrobench.testbed(PROTOCOL, WARMUP_NS, DURATION_NS).withClients(point[0], point[1])
                    .withOptions(List.of(PROTOCOL + "." + TIMEOUT_OPTION + "=" + TIMEOUT))
                    .run(settings, c -> {
                        if (c instanceof CqlClient cql) {
                            for (long ns : cql.resetLatenciesNs()) {
                                resetNs.add(ns);
                            }
                        }
                    }));
            latencies.add(resetNs.stream().mapToLong(Long::longValue).toArray());
        }
        ExperimentTable.Builder t = new ExperimentTable.Builder("cql resets by clients (Figure 16 left)",
                "clients", "resets (whole run)", "reset share % (measured)", "aborts", "reset latency mean us",
                "median us", "max us", "goodput Mops/s", "starved clients");
        for (int i = 0; i < POINTS.length; i++) {
            RunResult r = runs.get(i);
            long[] ns = latencies.get(i);
            OptionalDouble mean = meanUs(ns);
            t.row(DecLockClientsExperiment.label(POINTS[i]), Integer.toString(ns.length),
                    String.format(Locale.ROOT, "%.4f", DecLockCriticalSectionExperiment.resetShare(r)),
                    Long.toString(r.aborts()),
                    mean.isPresent() ? DecLockMicrobench.f1(mean.getAsDouble()) : "none",
                    ns.length == 0 ? "none" : DecLockMicrobench.f1(medianUs(ns)),
                    ns.length == 0 ? "none" : DecLockMicrobench.f1(Arrays.stream(ns).max().orElseThrow() / 1e3),
                    DecLockMicrobench.mops(r), Integer.toString(DecLockMicrobench.stuckClients(r)));
        }
        List<ExperimentRow> rows = new ArrayList<>();
        OptionalDouble fewest = meanUs(latencies.getFirst());
        OptionalDouble most = meanUs(latencies.getLast());
        if (fewest.isPresent()) {
            rows.add(new ExperimentRow(DecLockClientsExperiment.label(POINTS[0]) + " clients", "reset latency", 83.29,
                    fewest.getAsDouble(), "us", LATENCY_BAND));
        }
        if (most.isPresent()) {
            rows.add(new ExperimentRow(DecLockClientsExperiment.label(POINTS[POINTS.length - 1]) + " clients",
                    "reset latency", 520.72, most.getAsDouble(), "us", LATENCY_BAND));
        }
        return new ExperimentResult(NAME, reference(), description(), setup, List.of(t.build()), rows,
                discussion(runs, latencies), System.nanoTime() - wallStart);
    }

    private static String discussion(List<RunResult> runs, List<long[]> latencies) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < POINTS.length; i++) {
            if (latencies.get(i).length == 0) {
                sb.append("No reset happened with ").append(DecLockClientsExperiment.label(POINTS[i]))
                        .append(" clients (no waiter waited ").append(TIMEOUT).append("): no latency for it. ");
            }
        }
        int starved = runs.stream().mapToInt(DecLockMicrobench::stuckClients).sum();
        if (starved > 0 || runs.getLast().goodput() < runs.getFirst().goodput()) {
            sb.append(String.format(Locale.ROOT, "Where waits exceed the timeout, resets cascade: each aborts every "
                    + "waiter of the lock, who re-queue and wait again (goodput %.3f Mops/s at %s against %.3f at %s; "
                    + "%d clients starved past the liveness bound). ",
                    runs.getLast().goodput() / 1e6, DecLockClientsExperiment.label(POINTS[POINTS.length - 1]),
                    runs.getFirst().goodput() / 1e6, DecLockClientsExperiment.label(POINTS[0]), starved));
        }
        for (int i = 0; i < POINTS.length; i++) {
            long[] ns = latencies.get(i);
            if (ns.length > 0) {
                sb.append(String.format(Locale.ROOT, "%s: %d resets, mean %.1f us, median %.1f us, longest %.1f us. ",
                        DecLockClientsExperiment.label(POINTS[i]), ns.length, meanUs(ns).orElseThrow(), medianUs(ns),
                        Arrays.stream(ns).max().orElseThrow() / 1e3));
            }
        }
        sb.append("A reset signals every client that opened the table and waits for each answer: a waiter answers at "
                + "its next signal poll (every 50 us), a holder only after its release, a silent client is awaited "
                + "up to a lease (10 ms). The paper does not say how it provoked its resets; ours happen amid a "
                + "cascade of timeouts on the hottest locks, and the mean is set by the slowest resets while the "
                + "median stays near the paper's smallest average.");
        return sb.toString();
    }

    private static double medianUs(long[] ns) {
        long[] sorted = ns.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2] / 1e3;
    }

    private static OptionalDouble meanUs(long[] ns) {
        return ns.length == 0 ? OptionalDouble.empty() : OptionalDouble.of(Arrays.stream(ns).average().orElseThrow() / 1e3);
    }
}
