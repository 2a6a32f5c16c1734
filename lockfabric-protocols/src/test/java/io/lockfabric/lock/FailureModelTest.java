package io.lockfabric.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.protocols.RangeLockProtocols;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

class FailureModelTest {
    /** A duration in raw nanoseconds, as summaries used to carry them ("23500000 ns"). */
    private static final Pattern RAW_NANOS = Pattern.compile("\\d{4,} ?ns\\b");

    @Test
    void describeFormatsTheLeaseAndTheBoundOnce() {
        var model = FailureModel.lease(10_000_000, 23_500_000, "waiters skip a crashed holder");
        assertEquals("waiters skip a crashed holder (lease 10ms, recovery bound 23.5ms per crashed client)",
                model.describe());
    }

    @Test
    void describeNamesWhomALeaseWithoutRecoveryBinds() {
        assertEquals("no recovery: x (readers hold at most 500us)", FailureModel.readLease(500_000, "no recovery: x")
                .describe());
        assertEquals("no recovery: x (holders hold at most 2ms)",
                new FailureModel(false, 2_000_000, 0, "no recovery: x").describe());
        assertEquals("y (lease 1ms for writers, recovery bound 3s per crashed client)",
                new FailureModel(true, 1_000_000, 3_000_000_000L, "y", EnumSet.of(Mode.EXCLUSIVE)).describe());
    }

    @Test
    void describeOfNoRecoveryIsTheSummary() {
        assertEquals(FailureModel.NONE.summary(), FailureModel.NONE.describe());
    }

    /** The structured fields carry the numbers: a summary that repeats them prints the bound twice. */
    @Test
    void noRegisteredProtocolsSummaryRepeatsItsLeaseOrBound() {
        List<Map.Entry<String, FailureModel>> models = new ArrayList<>();
        for (LockProtocol p : LockProtocols.all()) {
            models.add(Map.entry(p.name(), p.failureModel(LockOptions.DEFAULTS)));
        }
        for (RangeLockProtocol p : RangeLockProtocols.all()) {
            models.add(Map.entry(p.name(), p.failureModel(LockOptions.DEFAULTS)));
        }
        // the leased variants too (ss and citron recover only with a finite lease)
        models.add(Map.entry("ss lease-ns=10ms", RangeLockProtocols.byName("ss")
                .failureModel(LockOptions.parse(List.of("lease-ns=10ms")))));
        models.add(Map.entry("citron lease-ns=1ms", RangeLockProtocols.byName("citron")
                .failureModel(LockOptions.parse(List.of("lease-ns=1ms")))));
        for (var e : models) {
            FailureModel m = e.getValue();
            String summary = m.summary();
            assertFalse(RAW_NANOS.matcher(summary).find(), e.getKey() + ": raw nanoseconds in " + summary);
            assertFalse(summary.contains("within") || summary.contains("recovery bound"),
                    e.getKey() + ": the bound belongs to describe(), not the summary: " + summary);
            if (m.leaseNs() > 0) {
                assertFalse(summary.contains(Long.toString(m.leaseNs())), e.getKey() + ": the lease in " + summary);
            }
            if (m.recoversFromCrash()) {
                assertFalse(summary.contains(Long.toString(m.recoveryBoundNs())), e.getKey() + ": the bound in "
                        + summary);
            }
            String line = m.describe();
            assertTrue(line.indexOf("recovery bound") == line.lastIndexOf("recovery bound"), line);
            assertFalse(RAW_NANOS.matcher(line).find(), line);
        }
    }
}
