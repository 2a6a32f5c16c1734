package io.lockfabric.bench;

import io.lockfabric.bench.point.PointWorkload;

import io.lockfabric.check.Violation;
import io.lockfabric.local.LocalFabric;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The runner's check and failure handling against deliberately broken protocols. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class RunnerCheckTest {
    private static Runner quietRunner(LocalFabric fabric) {
        return new Runner(RunDriver.threads(fabric), false, new PrintStream(OutputStream.nullOutputStream()));
    }

    @Test
    void aProtocolWithoutExclusionIsCaught() {
        PointWorkload config = PointWorkload.builder().clients(4).locks(1).readRatio(0).cs(8)
                .operations(40_000).warmupNs(0).check(true).build();
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            RunResult r = quietRunner(fabric).run(FaultyProtocols.noExclusion(), config);
            assertTrue(r.check().enabled());
            assertFalse(r.check().clean(), "overlapping exclusive grants must be reported");
            assertTrue(r.check().violations().stream().anyMatch(v -> v instanceof Violation.Overlap));
            assertTrue(r.check().violations().stream().anyMatch(v -> v instanceof Violation.Fencing),
                    "per-client tokens do not increase across clients");
            assertTrue(r.check().summary().endsWith("violations") || r.check().summary().endsWith("violation"));
        }
    }

    @Test
    void aFailingClientFailsTheRunWithTheCause() {
        PointWorkload config = PointWorkload.builder().clients(3).locks(4).operations(3_000).warmupNs(0).build();
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            BenchmarkFailedException e = assertThrows(BenchmarkFailedException.class,
                    () -> quietRunner(fabric).run(FaultyProtocols.failingAfter(100), config));
            assertInstanceOf(io.lockfabric.lock.LockUnavailableException.class, e.getCause());
            assertTrue(e.getMessage().contains("failing"), e.getMessage());
        }
    }

    @Test
    void progressSlotsSumWhatClientsPublished() {
        OpCounterSlots slots = new OpCounterSlots(3);
        slots.publish(0, 5);
        slots.publish(2, 7);
        slots.publish(0, 9);
        assertEquals(16, slots.total());
    }
}
