package io.lockfabric;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.Fabrics;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.ValueHistogram;
import io.lockfabric.lock.declock.DecLockCounters;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reset of a DecLock (CQL) lock waits for every member of the table to answer its signal, up to
 * a lease; a member is any client that ever opened the table, also one whose endpoint now sits in
 * its pool. The client API lets its idle endpoints answer ({@link LockFabric#IDLE_ANSWER_NS}), so the
 * reset waits for them a few periods at most, not the lease (before: the whole lease, every reset).
 */
@Tag("faults")
class IdleAnswersTest {
    /** The lease of the spaces here: what a reset waited for each idle member before. */
    private static final long LEASE_MS = 3_000;

    /**
     * Two LockFabrics on one fabric, as two processes on one memory node. The first client of the
     * table resets the lock at each acquisition (option {@code force-reset-ns}, Fig. 16's
     * experiments); the other LockFabric's only endpoint took the lock once and is idle. The reset
     * is over well within the lease: right after the idle one's last acquisition (20 ms period) and
     * after it rested a second (the period backed off to its most, 100 ms).
     */
    @Test
    @Timeout(60)
    void aResetDoesNotWaitALeaseForAMemberWhoseEndpointIsIdle() throws Exception {
        SpaceOptions options = SpaceOptions.builder().protocol("cql").option("force-reset-ns", "1ns")
                .option("lease-ns", LEASE_MS + "ms").build();
        try (Fabric fabric = Fabrics.open("local");
             LockFabric resetter = LockFabric.builder(fabric).poolSize(1).open();
             LockFabric idle = LockFabric.builder(fabric).poolSize(1).open()) {
            LockSpace resets = resetter.lockSpace("idle-answers", options);
            LockSpace rests = idle.lockSpace("idle-answers", options);
            resets.acquire("k", Mode.EXCLUSIVE).close(); // the table's first member: it resets at every acquisition
            rests.acquire("k", Mode.EXCLUSIVE).close(); // a member now, and idle from here on

            long fresh = timedAcquire(resets);
            Thread.sleep(1_000); // the idle LockFabric acquires nothing: its period backs off
            long rested = timedAcquire(resets);

            ValueHistogram latencies = DecLockCounters.of(resets.stats().protocolStats()).resetLatenciesNs();
            assertEquals(3, latencies.count(), "one reset per acquisition of the first member: " + latencies);
            long most = TimeUnit.NANOSECONDS.toMillis(latencies.max());
            assertTrue(most < LEASE_MS / 4, "a reset took " + most + " ms: it waited for the idle member's"
                    + " answer (lease " + LEASE_MS + " ms); acquisitions took " + fresh + " ms and " + rested + " ms");
            assertEquals(0, rests.stats().losses());
            rests.acquire("k", Mode.EXCLUSIVE).close(); // the idle member's endpoint still works after the resets
        }
    }

    private static long timedAcquire(LockSpace space) {
        long start = System.nanoTime();
        space.acquire("k", Mode.EXCLUSIVE).close();
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
