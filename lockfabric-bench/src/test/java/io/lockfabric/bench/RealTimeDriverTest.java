package io.lockfabric.bench;

import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs on a real-time fabric end at their deadline (planned end plus grace) with their stuck
 * clients reported and ended, or early on a stop request with a partial result; a run that
 * completes is reported as it always was.
 */
@Tag("faults")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RealTimeDriverTest {
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());
    private static final long DURATION_NS = TimeUnit.MILLISECONDS.toNanos(300);
    private static final long SLACK_NS = TimeUnit.MILLISECONDS.toNanos(200);
    /** What a busy 2-core machine may add to a run's end: starting threads, the check, ending clients. */
    private static final long OVERHEAD_NS = TimeUnit.SECONDS.toNanos(3);

    private static PointWorkload timed(boolean check) {
        return PointWorkload.builder().clients(3).locks(4).durationNs(DURATION_NS).warmupNs(0).cs(0).check(check)
                .seed(5).build();
    }

    private static RunResult run(LocalFabric fabric, RealTimeDriver driver, LockProtocol protocol,
                                 PointWorkload workload) {
        return new Runner(driver, false, QUIET).run(protocol, workload);
    }

    private static boolean clientThreadsAlive(String protocol) {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.isAlive() && t.getName().startsWith("bench-" + protocol + "-client-"));
    }

    @Test
    void aClientBlockedForeverIsReportedStuckAndTheRunEndsAtItsDeadline() {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            RealTimeDriver driver = RunDriver.threads(fabric).withSlackNs(SLACK_NS);
            PointWorkload workload = timed(true);
            long graceNs = driver.graceNs(workload, FailureModel.NONE);
            long started = System.nanoTime();
            RunResult r = run(fabric, driver, FaultyProtocols.blocksForever(3), workload);
            long tookNs = System.nanoTime() - started;

            assertTrue(tookNs < DURATION_NS + graceNs + OVERHEAD_NS, "took " + tookNs + " ns");
            RunEnd end = r.runEnd();
            assertEquals(RunEnd.How.DEADLINE, end.how());
            assertFalse(end.partial());
            assertEquals(List.of(0), end.stuckClients());
            assertTrue(end.stuck().getFirst().lastProgressNs() < DURATION_NS, end.toString());
            assertTrue(end.atNs() >= DURATION_NS + end.graceNs(), end.toString());
            assertEquals(graceNs, end.graceNs());
            assertEquals(TimeUnit.MILLISECONDS.toNanos(220), graceNs, "the point workload's 20 ms and the slack");
            assertEquals(List.of(), end.unended());
            assertTrue(r.measuredOps() > 0, "the other clients were measured");
            assertTrue(r.check().clean(), () -> r.check().violations().toString());
            assertFalse(clientThreadsAlive("blocks-forever"), "the stuck client's thread ended");

            String table = new TableReport().render(List.of(r));
            assertTrue(table.contains("# blocks-forever: cut off at its deadline, "), table);
            assertTrue(table.contains("1 client stuck (in one operation for 220ms or more): client 0 (no operation "
                    + "completed since "), table);
            String[] csv = new CsvReport().render(List.of(r)).split("\n");
            assertTrue(csv[0].endsWith(",counters_agree,run_end,run_end_ns,stuck_clients,stuck_last_progress_ns"),
                    csv[0]);
            assertTrue(csv[1].matches(".*,deadline,\\d+,0,\\d+"), csv[1]);
            Map<String, Object> json = MiniJson.object(MiniJson.parse(new JsonReport().render(List.of(r)).strip()));
            Map<String, Object> runEnd = MiniJson.object(json.get("run_end"));
            assertEquals("deadline", runEnd.get("how"));
            assertEquals(Boolean.FALSE, runEnd.get("partial"));
            List<?> stuck = (List<?>) runEnd.get("stuck_clients");
            assertEquals(1, stuck.size());
            assertEquals(0.0, MiniJson.object(stuck.getFirst()).get("client"));
        }
    }

    @Test
    void clientsSpinningOnALockNobodyWillReleaseAreEndedToo() {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            PointWorkload workload = timed(false).toBuilder().locks(1).clients(4).build();
            RunResult r = run(fabric, RunDriver.threads(fabric).withSlackNs(SLACK_NS),
                    FaultyProtocols.forgetfulRelease(3), workload);
            assertEquals(RunEnd.How.DEADLINE, r.runEnd().how());
            assertEquals(List.of(0, 1, 2, 3), r.runEnd().stuckClients(), "all wait for the forgotten lock");
            assertFalse(clientThreadsAlive("forgetful"), "cas's backoff sleeps answer the interrupt");
        }
    }

    @Test
    void anOperationCountRunIsCutOffWhenNoClientHasProgressedForTheGrace() {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            PointWorkload workload = timed(false).toBuilder().operations(3_000).build();
            long started = System.nanoTime();
            RunResult r = run(fabric, RunDriver.threads(fabric).withSlackNs(SLACK_NS),
                    FaultyProtocols.blocksForever(3), workload);
            assertTrue(System.nanoTime() - started < SLACK_NS + OVERHEAD_NS);
            assertEquals(RunEnd.How.DEADLINE, r.runEnd().how());
            assertEquals(0, r.runEnd().plannedNs());
            assertEquals(List.of(0), r.runEnd().stuckClients());
            assertEquals(2_002, r.measuredOps(), "the two others did their share, the stuck one two operations");
            assertTrue(new TableReport().render(List.of(r)).contains("(no operation completed for 220ms)"));
        }
    }

    @Test
    void aStopRequestEndsTheRunEarlyWithAPartialResult() throws Exception {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            StopRequest stop = new StopRequest();
            PointWorkload workload = timed(true).toBuilder().durationNs(TimeUnit.SECONDS.toNanos(60)).build();
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
                stop.request("test");
            });
            long started = System.nanoTime();
            RunResult r = run(fabric, RunDriver.threads(fabric).withStop(stop), LockProtocols.byName("cas"), workload);
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(10), "ended long before its 60 s");
            RunEnd end = r.runEnd();
            assertEquals(RunEnd.How.INTERRUPTED, end.how());
            assertTrue(end.partial());
            assertEquals("test", end.cause());
            assertEquals(List.of(), end.stuck(), "no client was in one operation for the grace");
            assertTrue(r.measuredOps() > 0);
            assertTrue(r.measuredSeconds() < 10, "measured up to the stop: " + r.measuredSeconds());
            assertTrue(r.check().clean(), () -> r.check().violations().toString());
            assertFalse(clientThreadsAlive("cas"));
            assertTrue(new TableReport().render(List.of(r)).contains("# cas: PARTIAL: interrupted (test) "));
            assertTrue(new JsonReport().render(List.of(r)).contains("\"run_end\":{\"how\":\"interrupted\","
                    + "\"partial\":true,"));
        }
    }

    @Test
    void aCompleteRunIsReportedAsBefore() {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            RunResult r = run(fabric, RunDriver.threads(fabric), LockProtocols.byName("cas"),
                    timed(false).toBuilder().operations(300).build());
            assertTrue(r.runEnd().complete());
            assertFalse(new CsvReport().render(List.of(r)).contains("run_end"));
            assertFalse(new JsonReport().render(List.of(r)).contains("run_end"));
            assertFalse(new TableReport().render(List.of(r)).contains("#"));
        }
    }
}
