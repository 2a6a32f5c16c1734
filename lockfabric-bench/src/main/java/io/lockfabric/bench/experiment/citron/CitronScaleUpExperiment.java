package io.lockfabric.bench.experiment.citron;

import io.lockfabric.bench.experiment.OwnTestbeds;
import io.lockfabric.bench.experiment.Band;
import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentRow;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;

import io.lockfabric.check.History;
import io.lockfabric.check.RangeExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.citron.CitronClient;
import io.lockfabric.lock.citron.CitronProtocol;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimProcess;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * {@code citron-fig10}: CITRON (FAST'23) §4.5, Figure 10: lock/unlock throughput over time under
 * the IO500 hard-write trace, a tree that starts at N = 2^10 units (4 KiB each: 4 MiB) and scales
 * up (a background poller per client machine polls the maximizer every 10 ms, option
 * {@code scale-poll-ns}) against one of
 * N = 2^28 from the start. 64 writers; writer {@code i}'s j-th write covers bytes
 * [(64 j + i) · 47 008, + 47 008), locked as the 4 KiB units it touches (neighbouring writes share
 * a unit). Reduced: the paper replays 12.8 M writes (seconds); the simulation runs
 * {@value #DURATION_MS} ms of virtual time. Both trees run the paper's protocol (fencing off).
 */
public final class CitronScaleUpExperiment implements Experiment {
    public static final String NAME = "citron-fig10";
    static final int WRITERS = 64;
    static final long WRITE_BYTES = 47_008;
    static final long UNIT_BYTES = 4_096;
    static final long SMALL_UNITS = 1L << 10;
    static final long LARGE_UNITS = 1L << 28;
    static final long DURATION_MS = 60;
    static final long BUCKET_MS = 2;
    static final long SCALE_POLL_NS = 10_000_000;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String reference() {
        return "CITRON (FAST'23) §4.5, Figure 10";
    }

    @Override
    public String description() {
        return "citron scale-up under the IO500 hard-write trace: throughput over time, N = 2^10 scaling up vs 2^28";
    }

    /** One replay: grants per bucket, and when (ms) the tree grew and to what. */
    record Replay(long[] perBucket, TreeMap<Long, Long> scaleUps, long violations, long stuck, long grants) {
        double meanMops(int fromBucket) {
            return meanMops(fromBucket, perBucket.length);
        }

        double meanMops(int fromBucket, int toBucket) {
            long sum = 0;
            int n = 0;
            for (int b = fromBucket; b < Math.min(toBucket, perBucket.length); b++) {
                sum += perBucket[b];
                n++;
            }
            return n == 0 ? 0 : sum / (n * BUCKET_MS * 1e3);
        }
    }

    @Override
    public ExperimentResult run(ExperimentSettings settings) {
        long wallStart = System.nanoTime();
        long durationNs = settings.durationOr(DURATION_MS * 1_000_000);
        settings.progress(1, 2, "N = 2^10, scale-ups");
        Replay small = replay(settings, SMALL_UNITS, durationNs);
        settings.progress(2, 2, "N = 2^28");
        Replay large = replay(settings, LARGE_UNITS, durationNs);
        int buckets = small.perBucket().length;
        ExperimentTable.Builder t = new ExperimentTable.Builder("throughput over time, Mops/s (per " + BUCKET_MS
                + " ms of virtual time)", "t, ms", "N = 2^10 + scale-ups", "tree N after (2^10 run)", "N = 2^28");
        for (int b = 0; b < buckets; b++) {
            long from = b * BUCKET_MS;
            var ups = small.scaleUps().subMap(from, true, from + BUCKET_MS, false);
            String mark = ups.isEmpty() ? "" : "scale-up -> 2^" + Long.numberOfTrailingZeros(ups.lastEntry().getValue());
            t.row(from + "-" + (from + BUCKET_MS), mops(small.perBucket()[b]), mark, mops(large.perBucket()[b]));
        }
        List<ExperimentRow> rows = new ArrayList<>();
        int settled = (int) Math.min(buckets - 1, (SCALE_POLL_NS / 1_000_000 + BUCKET_MS) / BUCKET_MS);
        double ratio = large.meanMops(settled) == 0 ? 0 : small.meanMops(settled) / large.meanMops(settled);
        // §4.5: stable throughput with scale-ups 9.7% / 7.4% above the full-size tree (lower tree).
        rows.add(new ExperimentRow("after the first scale-up", "throughput scaling / N = 2^28", 1.08, ratio, "x",
                Band.relative(0.25)));
        rows.add(new ExperimentRow("both runs", "range exclusion violations", 0, small.violations() + large.violations(),
                "count", Band.absolute(0.5)));
        rows.add(new ExperimentRow("both runs", "stuck clients", 0, small.stuck() + large.stuck(), "count",
                Band.absolute(0.5)));
        String discussion = String.format(Locale.ROOT, "Agrees: the tree starts too small, every write past N "
                + "queues on the one spillover mutex (%.2f Mops/s over the first %d ms), each scale-up ends that at "
                + "once (the throughput jumps in the bucket after each mark) and it drops again once the offsets pass "
                + "the new N before the next 10 ms poll, as in the paper's first 300 ms. Differs: (1) after a scale-up "
                + "the small tree runs %.2fx as fast as the full-size tree (paper: 1.07-1.10x, from a lower tree). "
                + "The 64 writers always write within 734 units (~3 MB) of each other, so in the 2^28 tree (12 levels) "
                + "every request notifies the same level-3 and level-6 nodes (the m-1 stand-in and the ancestor m "
                + "levels up), two masked FAAs per acquisition on each, and the simulator serializes atomics on a word "
                + "at 270 ns: those words cap the tree and their queues push notifications past T_wait (aborts). With "
                + "same-word serialization at 0 the 2^28 tree runs 3.3 Mops/s against 4.4 at 2^22 (9 levels; the "
                + "paper's 6th scale-up), so 1.35x from height alone (11 ancestor READs and 3 notifications against 8 "
                + "and 2, verbs of a batch admitted one after another at the memory node). (2) The simulation covers "
                + "%d ms of the trace (paper: 12.8 M writes, seconds): the first scale-ups only. (3) The scale-up "
                + "is Algorithm 4 with one background poller per client machine (2 here), but it carries the top "
                + "levels' DCnt/DMax(+Occ) into every new ancestor of the old root rather than every m-th one "
                + "(which do not exist for a one-level step), and its Exp flag is a 3-bit generation mark.",
                small.meanMops(0, (int) (SCALE_POLL_NS / 1_000_000 / BUCKET_MS)), SCALE_POLL_NS / 1_000_000, ratio,
                durationNs / 1_000_000);
        return new ExperimentResult(NAME, reference(), description(),
                String.format(Locale.ROOT, settings.simModel(OwnTestbeds.CITRON) + ", %d writers over 2 CNs, 1 MN, %d B writes in 4 KiB units, "
                                + "lock/unlock only, citron fencing=0, scale-poll %d ms; %d ms of virtual time "
                                + "(reduced from the paper's 12.8 M writes); seed %d", WRITERS, WRITE_BYTES,
                        SCALE_POLL_NS / 1_000_000, durationNs / 1_000_000, settings.seed()),
                List.of(t.build()), rows, discussion, System.nanoTime() - wallStart);
    }

    private static String mops(long grants) {
        return String.format(Locale.ROOT, "%.2f", grants / (BUCKET_MS * 1e3));
    }

    static Replay replay(ExperimentSettings settings, long units, long durationNs) {
        SimConfig cluster = settings.onTestbed(OwnTestbeds.CITRON, SimConfig.defaults().toBuilder()).computeNodes(2).clientsPerComputeNode(WRITERS / 2)
                .seed(settings.seed()).build();
        var protocol = new CitronProtocol();
        LockOptions options = LockOptions.parse(List.of("units=" + units, "fencing=0",
                "scale-poll-ns=" + (units == LARGE_UNITS ? "inf" : Long.toString(SCALE_POLL_NS))));
        int buckets = (int) ((durationNs + BUCKET_MS * 1_000_000 - 1) / (BUCKET_MS * 1_000_000));
        long[] perBucket = new long[buckets];
        TreeMap<Long, Long> scaleUps = new TreeMap<>();
        try (SimFabric fabric = new SimFabric(cluster)) {
            History history = new History(fabric::observerNanoTime);
            List<Endpoint> endpoints = new ArrayList<>();
            List<CitronClient> clients = new ArrayList<>();
            String table = "fig10-" + units + "-" + settings.seed();
            for (int i = 0; i < WRITERS; i++) {
                Endpoint e = fabric.newEndpoint();
                endpoints.add(e);
                clients.add(protocol.open(e, table, options));
            }
            long start = fabric.observerNanoTime();
            long end = start + durationNs;
            long[] largestN = {units};
            List<SimProcess> processes = new ArrayList<>();
            for (int i = 0; i < WRITERS; i++) {
                int writer = i;
                CitronClient c = clients.get(i);
                History.Recorder rec = history.recorder(i);
                ClientThread th = fabric.spawn("fig10-writer-" + i, () -> {
                    for (long j = 0; fabric.observerNanoTime() < end; j++) {
                        long offset = (j * WRITERS + writer) * WRITE_BYTES;
                        long first = offset / UNIT_BYTES;
                        long last = (offset + WRITE_BYTES + UNIT_BYTES - 1) / UNIT_BYTES;
                        rec.requesting();
                        RangeGrant g = c.acquire(first, last, Mode.EXCLUSIVE);
                        rec.granted(g);
                        long now = fabric.observerNanoTime();
                        long n = c.units();
                        if (now < end) {
                            perBucket[(int) ((now - start) / (BUCKET_MS * 1_000_000))]++;
                        }
                        // Driver thread only (the simulator runs one process at a time): no race.
                        if (n > largestN[0]) {
                            largestN[0] = n;
                            scaleUps.put((now - start) / 1_000_000, n);
                        }
                        rec.releasing(g);
                        c.release(g);
                    }
                });
                processes.add((SimProcess) th);
            }
            fabric.runUntil(() -> processes.stream().allMatch(SimProcess::finished), end + 50_000_000,
                    "fig10 writers to finish");
            long stuck = processes.stream().filter(pr -> !pr.finished()).count();
            var holds = history.holds();
            List<Violation> v = RangeExclusionChecker.violations(holds);
            for (CitronClient c : clients) {
                c.close();
            }
            for (Endpoint e : endpoints) {
                e.close();
            }
            return new Replay(perBucket, scaleUps, v.size(), stuck, holds.size());
        }
    }
}
