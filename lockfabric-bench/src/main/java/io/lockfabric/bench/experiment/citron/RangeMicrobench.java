package io.lockfabric.bench.experiment.citron;

import io.lockfabric.bench.experiment.OwnTestbeds;
import io.lockfabric.bench.experiment.Band;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;

import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.bench.range.RangeWorkload;
import io.lockfabric.bench.sim.SimDriver;
import io.lockfabric.check.Violation;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.lock.citron.CitronProtocol;
import io.lockfabric.protocols.RangeLockProtocols;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One run of the CITRON (FAST'23) §4.2 range microbenchmark on the simulated testbed: up to 3
 * compute nodes (the paper's 3 client machines × 64 threads), one memory node, N = 2^28, exclusive
 * ranges of the given sizes with Zipf left borders, lock/unlock only (no critical section). A
 * fresh cluster per run; range exclusion is checked in every run.
 *
 * @param options          protocol options as {@code name=value} or {@code protocol.name=value}
 * @param sameWordSerialNs the simulated RNIC's serialization of atomics on one word (the default
 *                         is {@link SimConfig#DEFAULT_SAME_WORD_SERIAL_NS}; other values only for
 *                         the experiments' sensitivity tables)
 */
record RangeMicrobench(String protocol, List<Long> sizes, double zipf, int clients, List<String> options,
                       long warmupNs, long durationNs, long sameWordSerialNs) {
    /** The paper's client machines. */
    static final int TESTBED_COMPUTE_NODES = 3;
    /** The paper's range baselines, in the order its figures show them; not all may be registered. */
    static final List<String> RANGE_PROTOCOLS = List.of("citron", "ss-exact", "ss-over", "ss-under", "lld", "rpc-range",
            "mt", "llc");
    /**
     * The paper's type-I baselines (§4.1: "server-side CPUs are fully responsible for acquiring and
     * releasing locks"): IT ({@code rpc-range}), MT and LLC.
     */
    static final List<String> SERVER_CPU_PROTOCOLS = List.of("rpc-range", "mt", "llc");
    /**
     * The simulated memory node's CPU cost per rpc of each server-CPU baseline: the same for all
     * three, {@link SimConfig#DEFAULT_RPC_SERVICE_NS} (1.5 us) on {@code mnCpuCores} (4) cores, the
     * cost {@code rpc-range} has always run with. Source: CITRON §4.1 runs every type-I baseline
     * on the same RPC engine (eRPC) with the same 18 server threads, and §4.2 finds them "all
     * bottlenecked by CPUs under high contention"; the paper gives no per-structure CPU cost, so
     * none is invented here. What the structures themselves cost (a B-tree descent, a list walk of
     * every entry that starts before the range's end, about 1 ns per cached hop) is not charged:
     * in the simulator the three differ only in whom they grant and when (mt and rpc-range FIFO
     * among overlapping requests; llc by list position, without fairness), and mt's single tree
     * lock, which serializes its servers on a real memory node, is not modelled either.
     */
    static long rpcServiceNs(String protocol) {
        return SimConfig.DEFAULT_RPC_SERVICE_NS;
    }
    static final long WARMUP_NS = 1_000_000L;
    static final long DURATION_NS = 3_000_000L;
    /** Citron as the paper has it: fencing tokens off. */
    static final String PAPER_CITRON = CitronProtocol.NAME + "." + CitronProtocol.FENCING.name() + "=0";

    RangeMicrobench {
        sizes = List.copyOf(sizes);
        options = List.copyOf(options);
    }

    /**
     * The paper's protocol: citron runs with {@link #PAPER_CITRON} (no fencing tokens, which the
     * paper does not have: ours cost one FAA on one shared word per node acquisition).
     */
    static RangeMicrobench of(String protocol, List<Long> sizes, double zipf, int clients) {
        List<String> options = protocol.equals(CitronProtocol.NAME) ? List.of(PAPER_CITRON) : List.of();
        return new RangeMicrobench(protocol, sizes, zipf, clients, options, WARMUP_NS, DURATION_NS,
                SimConfig.DEFAULT_SAME_WORD_SERIAL_NS);
    }

    /** {@code pairs} on top of the options so far (a later pair overrides an earlier one). */
    RangeMicrobench withOptions(List<String> pairs) {
        List<String> all = new ArrayList<>(options);
        all.addAll(pairs);
        return new RangeMicrobench(protocol, sizes, zipf, clients, all, warmupNs, durationNs, sameWordSerialNs);
    }

    /** The same run on a simulated RNIC that serializes atomics on one word for {@code ns} each. */
    RangeMicrobench withSameWordSerialNs(long ns) {
        return new RangeMicrobench(protocol, sizes, zipf, clients, options, warmupNs, durationNs, ns);
    }

    /** Runs on a fresh simulated cluster: clients over as many of the 3 CNs as they fill evenly. */
    RunResult run(ExperimentSettings settings) {
        int cns = clients % TESTBED_COMPUTE_NODES == 0 ? TESTBED_COMPUTE_NODES : 1;
        SimConfig cluster = settings.onTestbed(OwnTestbeds.CITRON, SimConfig.defaults().toBuilder()).computeNodes(cns).clientsPerComputeNode(clients / cns)
                .sameWordSerialNs(sameWordSerialNs).rpcServiceNs(rpcServiceNs(protocol)).seed(settings.seed()).build();
        RangeWorkload workload = RangeWorkload.builder().clients(clients).sizes(sizes).zipf(zipf)
                .warmupNs(settings.warmupOr(warmupNs)).durationNs(settings.durationOr(durationNs))
                .seed(settings.seed()).options(options).build();
        RangeLockProtocol p = RangeLockProtocols.byName(protocol);
        workload.validateOptions(List.of(p));
        try (SimFabric fabric = new SimFabric(cluster)) {
            return new Runner(new SimDriver(fabric), false, settings.progressOut()).run(p, workload);
        }
    }

    /**
     * The protocols an experiment runs: {@code settings.protocols()} if given, else {@code own}.
     *
     * @throws IllegalArgumentException naming every protocol that is not registered (none is skipped)
     */
    static List<String> protocols(ExperimentSettings settings, List<String> own) {
        List<String> wanted = settings.protocols().isEmpty() ? own : settings.protocols();
        List<String> missing = new ArrayList<>();
        for (String name : wanted) {
            if (!RangeLockProtocols.names().contains(name)) {
                missing.add(name);
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("range protocol(s) " + String.join(", ", missing)
                    + " not registered (registered: " + String.join(", ", RangeLockProtocols.names())
                    + "); run a subset with --protocols, e.g. --protocols citron");
        }
        return wanted;
    }

    /**
     * Overlaps of exclusive ranges found by the checker (a correctness failure, never expected);
     * stuck clients are liveness findings, shown in the tables instead.
     */
    static long overlaps(RunResult r) {
        return r.violations().stream().filter(v -> !(v instanceof Violation.Stuck)).count();
    }

    static long stuck(RunResult r) {
        return r.violations().stream().filter(v -> v instanceof Violation.Stuck).count();
    }

    /** A goodput cell in Mops/s, with {@code (N stuck)} when clients never finished. */
    static String goodputCell(RunResult r) {
        return String.format(Locale.ROOT, "%.2f", r.goodput() / 1e6) + stuckNote(r);
    }

    static String latencyCell(RunResult r) {
        return String.format(Locale.ROOT, "%.1f/%.0f", r.acquireLatency().p50Us(), r.acquireLatency().p99Us())
                + stuckNote(r);
    }

    static String stuckNote(RunResult r) {
        long s = stuck(r);
        return s == 0 ? "" : " (" + s + " stuck)";
    }

    /** The correctness row every range experiment carries: no overlap of exclusive ranges in any run. */
    static ExperimentRow exclusionRow(List<RunResult> runs) {
        long overlaps = runs.stream().mapToLong(RangeMicrobench::overlaps).sum();
        return new ExperimentRow("all runs", "range exclusion violations", 0, overlaps, "count", Band.absolute(0.5));
    }

    static String setup(ExperimentSettings settings, String what) {
        return String.format(Locale.ROOT,
                settings.simModel(OwnTestbeds.CITRON) + ", clients over 3 CNs (1 CN if not a multiple of 3), 1 MN, N = 2^28, exclusive ranges, "
                        + "lock/unlock only, citron as in the paper (fencing=0), %s; measured %.1f ms after %.1f ms (virtual; reduced from the paper's "
                        + "seconds); seed %d",
                what, settings.durationOr(DURATION_NS) / 1e6, settings.warmupOr(WARMUP_NS) / 1e6, settings.seed());
    }

    static String f2(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
