package io.lockfabric.lock.drtm;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.sim.SimProcess;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DrTM's readers validate their lease when they release (the paper's check at commit,
 * {@code now < end − DELTA}): a reader paused past its lease learns at release that a writer may
 * have held the lock with it (the {@link DrTmProtocol#LEASE_OVERRUNS} statistic); one that releases
 * in time does not.
 */
@Tag("faults")
class DrTmLeaseValidationSimTest {
    private static final long US = 1_000;

    /** Reader's grant time, writer's grant time, reader's release time; the reader's overrun count. */
    private record Outcome(long readerGranted, long writerGranted, long readerReleased, long overruns) {
    }

    /** A reader takes the lock and holds it {@code csNs}, paused for {@code pauseNs} at 20 µs; a writer comes at 10 µs. */
    private static Outcome run(long csNs, long pauseNs) {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(1).clientsPerComputeNode(2).seed(4).build())) {
            Endpoint re = fabric.newEndpoint();
            Endpoint we = fabric.newEndpoint();
            LockClient reader = LockProtocols.byName("drtm").open(re, "validate", 1, LockOptions.DEFAULTS);
            LockClient writer = LockProtocols.byName("drtm").open(we, "validate", 1, LockOptions.DEFAULTS);
            long[] at = new long[3];
            ClientThread r = fabric.spawn("reader", () -> {
                Grant g = reader.acquire(0, Mode.SHARED);
                at[0] = fabric.observerNanoTime();
                re.clock().sleepNanos(csNs);
                at[2] = fabric.observerNanoTime();
                reader.release(g);
            });
            ClientThread w = fabric.spawn("writer", () -> {
                we.clock().sleepNanos(10 * US);
                Grant g = writer.acquire(0, Mode.EXCLUSIVE);
                at[1] = fabric.observerNanoTime();
                writer.release(g);
            });
            if (pauseNs > 0) {
                fabric.pauseAt((SimProcess) r, 20 * US, pauseNs);
            }
            r.join();
            w.join();
            return new Outcome(at[0], at[1], at[2], reader.stats().counter(DrTmProtocol.LEASE_OVERRUNS));
        }
    }

    @Test
    void aReaderPausedPastItsLeaseLearnsItAtRelease() {
        Outcome o = run(30 * US, 3_000 * US);
        assertTrue(o.writerGranted() > o.readerGranted() && o.writerGranted() < o.readerReleased(),
                "the writer took the expired lease while the paused reader still held it: " + o);
        assertEquals(1, o.overruns(), "the reader's lease validation at release failed: " + o);
    }

    @Test
    void aReaderWithinItsLeasePassesValidation() {
        Outcome o = run(30 * US, 0);
        assertTrue(o.writerGranted() > o.readerReleased(), "the writer waited the lease out: " + o);
        assertEquals(0, o.overruns(), o.toString());
        Outcome shortPause = run(30 * US, 300 * US);
        assertEquals(0, shortPause.overruns(), "a pause shorter than tx-time leaves the lease valid: " + shortPause);
    }

    @Test
    void theOverrunsAreANamedStatistic() {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(1).clientsPerComputeNode(1).build())) {
            var stats = LockProtocols.byName("drtm").open(fabric.newEndpoint(), "named", 1, LockOptions.DEFAULTS).stats();
            assertTrue(stats.has(DrTmProtocol.LEASE_OVERRUNS), stats.toString());
            assertEquals(0, stats.counter(DrTmProtocol.LEASE_OVERRUNS));
        }
    }
}
