package io.lockfabric;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A hold that outlived its lease is reported lost even when the lease timer could not run before
 * the holder closed it, as when the whole process stalls (a GC pause, a descheduled process: the
 * timer thread stalls with the holder, and the holder may run first). The timer is held up here by
 * a loss listener that blocks it, which is what such a stall does to it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LeaseOutlivedAtCloseTest {
    @Test
    void aHoldClosedPastItsLeaseIsALossWhenTheLeaseTimerDidNotRun() throws Exception {
        SpaceOptions options = SpaceOptions.builder().protocol("dslr").option("lease-ns", "50ms").build();
        CountDownLatch stall = new CountDownLatch(1);
        CountDownLatch timerStalled = new CountDownLatch(1);
        AtomicInteger told = new AtomicInteger();
        try (LockFabric lf = LockFabric.open("local")) {
            LockSpace space = lf.lockSpace("outlived", options);
            assertNotEquals(space.slotOf("a"), space.slotOf("b"));
            space.onLoss(h -> {
                if (told.incrementAndGet() == 1) {
                    timerStalled.countDown();
                    try {
                        stall.await(10, TimeUnit.SECONDS); // the timer thread stalls here
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            Held first = space.acquire("a");
            assertTrue(timerStalled.await(10, TimeUnit.SECONDS), "the sweep reports the first hold's loss");
            try {
                Held h = space.acquire("b");
                Thread.sleep(100); // twice the lease, while the lease timer cannot run
                assertFalse(h.isValid(), "past its lease");
                h.close();
                assertEquals(2, space.stats().losses(), "the hold closed past its lease is a loss");
                h.close();
                assertEquals(2, space.stats().losses(), "once");
            } finally {
                stall.countDown();
            }
            first.close();
            assertEquals(2, space.stats().losses(), "the first, reported by the sweep, is not reported again at its close");
            Held inTime = space.acquire("c");
            inTime.close();
            assertEquals(2, space.stats().losses(), "a hold closed within its lease is no loss");
        }
    }
}
