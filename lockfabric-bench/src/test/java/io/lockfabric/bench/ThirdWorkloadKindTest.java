package io.lockfabric.bench;

import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.bench.sim.SimDriver;
import io.lockfabric.check.History;
import io.lockfabric.check.Hold;
import io.lockfabric.check.MutualExclusionChecker;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A workload kind the harness does not know, written here as a transaction workload would be: an
 * operation takes two locks of a table in lock order (2PL's growing phase), then releases both.
 * It runs through the one {@link Runner} (threads and simulator) and the one set of reports without
 * a change to either: a third kind plugs in, no third copy.
 */
class ThirdWorkloadKindTest {
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    /** Two distinct locks of {@code locks} per operation, exclusive, taken in increasing order. */
    record TwoLocks(Phases phases, long locks) implements Workload<LockProtocol> {
        @Override
        public String kind() {
            return "two-locks";
        }

        @Override
        public TwoLocks withSeed(long seed) {
            return new TwoLocks(phases.withSeed(seed), locks);
        }

        @Override
        public boolean check() {
            return true;
        }

        @Override
        public TwoLocks checked() {
            return this;
        }

        @Override
        public long graceNs(FailureModel model, int crashes) {
            return 20_000_000L;
        }

        @Override
        public Trial trial(LockProtocol protocol, Fabric fabric, boolean sharedTable) {
            return new Trial() {
                @Override
                public String protocol() {
                    return protocol.name();
                }

                @Override
                public FailureModel failureModel() {
                    return protocol.failureModel(LockOptions.DEFAULTS);
                }

                @Override
                public String tablePrefix() {
                    return "txn";
                }

                @Override
                public String label() {
                    return protocol.name();
                }

                @Override
                public String subject() {
                    return "protocol " + protocol.name();
                }

                @Override
                public Session open(int client, Endpoint endpoint, String table, History.Recorder recorder,
                                    RandomGenerator random, LongSupplier observerNanos) {
                    return new TwoLockSession(protocol.open(endpoint, table, locks, LockOptions.DEFAULTS), recorder,
                            random, locks, observerNanos);
                }

                @Override
                public CheckResult check(List<Hold> holds, Map<Long, Long> uncertain) {
                    List<Violation> found = new ArrayList<>(MutualExclusionChecker.overlaps(holds));
                    return new CheckResult(true, holds.size(), holds.size(), false, found);
                }
            };
        }

        @Override
        public ReportLayout layout() {
            return new ReportLayout() {
                @Override
                public List<Column> table() {
                    return List.of(Column.text("protocol", RunResult::protocol),
                            Column.number("txn/s", r -> String.format(Locale.ROOT, "%.0f", r.goodput())),
                            Column.number("holds", r -> Long.toString(r.check().holds())),
                            Column.text("check", r -> r.check().summary()));
                }

                @Override
                public List<Column> csv() {
                    List<Column> columns = new ArrayList<>(List.of(Column.text("protocol", RunResult::protocol)));
                    columns.addAll(Columns.csvMeasured());
                    return columns;
                }

                @Override
                public void json(JsonWriter json, RunResult r) {
                    json.name("protocol").value(r.protocol()).name("transactions").value(r.measuredOps());
                    Columns.jsonLatency(json, "latency_us", r.operationLatency());
                }
            };
        }
    }

    private static final class TwoLockSession implements Session {
        private final LockClient client;
        private final History.Recorder recorder;
        private final RandomGenerator random;
        private final long locks;
        private final LongSupplier observerNanos;

        TwoLockSession(LockClient client, History.Recorder recorder, RandomGenerator random, long locks,
                       LongSupplier observerNanos) {
            this.client = client;
            this.recorder = recorder;
            this.random = random;
            this.locks = locks;
            this.observerNanos = observerNanos;
        }

        @Override
        public void operate(Operation op) {
            long a = random.nextLong(locks);
            long b = (a + 1 + random.nextLong(locks - 1)) % locks;
            Grant first = take(Math.min(a, b));
            Grant second = take(Math.max(a, b));
            op.granted(observerNanos.getAsLong());
            if (Math.min(a, b) == 0) {
                op.hottest();
            }
            op.releasing(observerNanos.getAsLong());
            for (Grant g : List.of(second, first)) {
                recorder.releasing(g);
                client.release(g);
            }
        }

        private Grant take(long lock) {
            recorder.requesting();
            Grant g = client.acquire(lock, Mode.EXCLUSIVE);
            recorder.granted(g);
            return g;
        }

        @Override
        public LockStats stats() {
            return client.stats();
        }

        @Override
        public void close() {
            client.close();
        }
    }

    private static TwoLocks workload(int clients) {
        return new TwoLocks(new Phases(clients, 0, 400, 0, 7), 4);
    }

    @Test
    void aThirdKindRunsAndIsReportedThroughTheOneRunnerAndReports() {
        RunResult r;
        try (LocalFabric fabric = LocalFabric.builder().seed(2).build()) {
            r = new Runner(RunDriver.threads(fabric), false, QUIET).run(LockProtocols.byName("cas"), workload(3));
        }
        assertEquals(400, r.measuredOps());
        assertEquals(800, r.check().holds(), "two holds per transaction, all checked");
        assertTrue(r.correct(), () -> r.violations().toString());
        assertTrue(r.lockOpsPerCycle().oneSided() >= 4, "two acquisitions and two releases: " + r.lockOpsPerCycle());
        String table = new TableReport().render(List.of(r));
        assertTrue(table.startsWith("protocol") && table.lines().findFirst().orElseThrow().endsWith("holds  check"),
                table);
        assertTrue(table.lines().skip(1).findFirst().orElseThrow().endsWith("800  ok"), table);
        String csv = new CsvReport().render(List.of(r));
        assertTrue(csv.startsWith("protocol,measured_ops,measured_s,goodput,"), csv);
        Map<String, Object> json = MiniJson.object(MiniJson.parse(new JsonReport().render(List.of(r)).strip()));
        assertEquals(400.0, json.get("transactions"));
    }

    @Test
    void aThirdKindRunsOnTheSimulatorAndMixedKindsAreReportedApart() {
        RunResult txn;
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(2).seed(5)
                .build())) {
            txn = new Runner(new SimDriver(fabric), false, QUIET).run(LockProtocols.byName("dslr"),
                    new TwoLocks(new Phases(4, 2_000_000, 0, 0, 5), 3));
        }
        assertTrue(txn.measuredOps() > 50, "virtual time: " + txn.measuredOps());
        assertTrue(txn.correct(), () -> txn.violations().toString());
        RunResult point;
        try (LocalFabric fabric = LocalFabric.builder().seed(2).build()) {
            point = new Runner(RunDriver.threads(fabric), false, QUIET).run(LockProtocols.byName("cas"),
                    PointWorkload.builder().clients(2).operations(100).warmupNs(0).build());
        }
        List<String> lines = new TableReport().render(List.of(txn, point, txn)).lines().toList();
        assertEquals(5, lines.size(), "a table per kind, in the order the kinds first appear: " + lines);
        assertTrue(lines.get(0).startsWith("protocol  txn/s"), lines.get(0));
        assertTrue(lines.get(3).startsWith("protocol  goodput Kops/s"), lines.get(3));
    }
}
