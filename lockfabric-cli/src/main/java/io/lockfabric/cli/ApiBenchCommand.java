package io.lockfabric.cli;

import io.lockfabric.LockFabric;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.net.TcpMemoryNode;
import io.lockfabric.protocols.LockProtocols;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code lockfabric api-bench}: what the client API costs over the lock SPI on one workload, the
 * two measured in turn in one process ({@link ApiOverhead}), and their ratio.
 */
@Command(name = "api-bench", mixinStandardHelpOptions = true,
        description = {"Measure the client API's overhead: the same workload (each thread takes a Zipf-chosen "
                + "key's lock exclusive and releases it at once) through the lock SPI (one lock client per fabric "
                + "client thread) and through the client API (as many application threads calling "
                + "LockSpace.acquire(key) and Held.close(), a pool of as many endpoints), same protocol, same "
                + "slots, same options. The two run in turn, SPI then API, then API then SPI, for --rounds rounds; "
                + "the summary gives each side's median and the ratio API/SPI of each round.",
                "--fabric tcp starts a memory node in this process on loopback for the runs; give "
                        + "tcp://HOST:PORT to measure against a 'lockfabric serve' of its own."})
final class ApiBenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--fabric", paramLabel = "ADDRESS", split = ",", defaultValue = "local,tcp",
            description = "Fabrics to measure, in order: local, tcp (a memory node started here) or tcp://HOST:PORT. "
                    + "Default: ${DEFAULT-VALUE}.")
    List<String> fabrics;

    @Option(names = "--protocol", paramLabel = "NAME",
            description = "The lock protocol of both sides. Default: the client API's for the fabric (dslr on local, "
                    + "declock-tf on tcp).")
    String protocol;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "16",
            description = "SPI client threads; API application threads and pool endpoints. Default: ${DEFAULT-VALUE}.")
    int threads;

    @Option(names = "--keys", paramLabel = "N", defaultValue = "1000",
            description = "Keys the threads choose from. Default: ${DEFAULT-VALUE}.")
    int keys;

    @Option(names = "--slots", paramLabel = "N", defaultValue = "4096",
            description = "Lock slots of the table the keys hash to (the lock space's default). Default: ${DEFAULT-VALUE}.")
    long slots;

    @Option(names = "--zipf", paramLabel = "THETA", defaultValue = "0.99",
            description = "Skew of the key choice, 0 uniform. Default: ${DEFAULT-VALUE}.")
    double zipf;

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class, defaultValue = "5s",
            description = "Measured time of each run. Default: ${DEFAULT-VALUE}.")
    long durationNs;

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class, defaultValue = "1s",
            description = "Unmeasured time before each run's measurement. Default: ${DEFAULT-VALUE}.")
    long warmupNs;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "3",
            description = "Rounds of one SPI and one API run each, the order alternating. Default: ${DEFAULT-VALUE}.")
    int rounds;

    @Override
    public Integer call() throws InterruptedException {
        if (threads < 1 || keys < 1 || slots < 1 || rounds < 1) {
            throw new BadInputException("--threads, --keys, --slots and --rounds must be at least 1");
        }
        if (!(zipf >= 0) || Double.isInfinite(zipf)) {
            throw new BadInputException("--zipf must be finite and >= 0, got " + zipf);
        }
        if (durationNs <= 0 || warmupNs < 0) {
            throw new BadInputException("--duration must be positive and --warmup not negative");
        }
        if (protocol != null) {
            try {
                LockProtocols.byName(protocol);
            } catch (IllegalArgumentException e) {
                throw new BadInputException(e.getMessage());
            }
        }
        for (String f : fabrics) {
            if (!f.equals(FabricChoice.TCP)) {
                FabricChoice choice = FabricChoice.parse(f, " for api-bench");
                if (choice.isSim()) {
                    throw new BadInputException("api-bench needs a real-time fabric (local, tcp, tcp://HOST:PORT): the "
                            + "client API does not run on the simulator");
                }
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        String runId = Long.toString(ProcessHandle.current().pid(), 36) + "-" + Long.toString(System.currentTimeMillis(), 36);
        out.printf(Locale.ROOT, "api-bench: %d threads (API: %d application threads, pool of %d), %d keys in %d slots, "
                        + "zipf %s, exclusive, empty critical section; %s measured after %s warmup; %d round(s)%n",
                threads, threads, threads, keys, slots, zipf, formatDuration(durationNs), formatDuration(warmupNs), rounds);
        out.printf(Locale.ROOT, "%-28s %-11s %5s %-4s %12s %9s %9s%n", "fabric", "protocol", "round", "via", "ops/s",
                "p50 us", "p99 us");
        out.flush();
        List<String> summary = new ArrayList<>();
        for (String f : fabrics) {
            TcpMemoryNode server = null;
            String address = f;
            if (f.equals(FabricChoice.TCP)) {
                java.util.logging.Logger.getLogger(TcpMemoryNode.class.getName()).setLevel(java.util.logging.Level.WARNING);
                try {
                    server = TcpMemoryNode.builder().port(0).capacityBytes(256L << 20).start();
                } catch (FabricException e) {
                    throw new BadInputException("cannot start a memory node on loopback: " + e.getMessage());
                }
                address = server.uri();
            }
            try {
                summary.add(measure(out, f.equals(FabricChoice.TCP) ? "tcp (in-process node)" : address, address, runId));
            } finally {
                if (server != null) {
                    server.close();
                }
            }
        }
        out.println();
        out.println("summary (medians over the rounds; ratio = API / SPI, per round in brackets):");
        summary.forEach(out::println);
        out.flush();
        return Main.EXIT_OK;
    }

    private static String formatDuration(long ns) {
        return ns % 1_000_000_000L == 0 ? ns / 1_000_000_000L + "s" : ns / 1_000_000L + "ms";
    }

    /** Measures one fabric's rounds and returns its summary line. */
    private String measure(PrintWriter out, String label, String address, String runId) throws InterruptedException {
        String proto = protocol;
        if (proto == null) {
            try (LockFabric probe = LockFabric.builder(address).poolSize(1).open()) {
                proto = probe.defaultProtocol();
            }
        }
        ApiOverhead.Shape shape = new ApiOverhead.Shape(address, proto, threads, keys, slots, zipf, warmupNs, durationNs);
        double[] spi = new double[rounds];
        double[] api = new double[rounds];
        double[] ratio = new double[rounds];
        double[][] p50 = new double[2][rounds];
        double[][] p99 = new double[2][rounds];
        for (int r = 0; r < rounds; r++) {
            ApiOverhead.Variant[] order = r % 2 == 0
                    ? new ApiOverhead.Variant[] {ApiOverhead.Variant.SPI, ApiOverhead.Variant.API}
                    : new ApiOverhead.Variant[] {ApiOverhead.Variant.API, ApiOverhead.Variant.SPI};
            for (ApiOverhead.Variant v : order) {
                String table = "api-bench-" + runId + "-" + v.name().toLowerCase(Locale.ROOT) + "-" + r;
                ApiOverhead.Result res;
                try {
                    res = ApiOverhead.run(v, shape, table);
                } catch (IllegalStateException e) {
                    throw new io.lockfabric.bench.BenchmarkFailedException(label + " " + v + " round " + (r + 1) + ": "
                            + e.getMessage(), e);
                }
                int side = v == ApiOverhead.Variant.SPI ? 0 : 1;
                (side == 0 ? spi : api)[r] = res.opsPerSec();
                p50[side][r] = res.p50Us();
                p99[side][r] = res.p99Us();
                out.printf(Locale.ROOT, "%-28s %-11s %5d %-4s %12.0f %9.1f %9.1f%n", label, proto, r + 1,
                        v.name(), res.opsPerSec(), res.p50Us(), res.p99Us());
                out.flush();
            }
            ratio[r] = api[r] / spi[r];
        }
        StringBuilder perRound = new StringBuilder();
        for (int r = 0; r < rounds; r++) {
            perRound.append(r == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.2f", ratio[r]));
        }
        return String.format(Locale.ROOT, "  %s, %s: SPI %.0f ops/s (p50 %.1f us, p99 %.1f us), API %.0f ops/s "
                        + "(p50 %.1f us, p99 %.1f us); API/SPI %.2f [%s]", label, proto, median(spi), median(p50[0]),
                median(p99[0]), median(api), median(p50[1]), median(p99[1]), median(ratio), perRound);
    }

    private static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }
}
