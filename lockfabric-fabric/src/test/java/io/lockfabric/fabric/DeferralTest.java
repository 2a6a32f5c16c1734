package io.lockfabric.fabric;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link WaitInterruptedException.Deferral}: a deferral made once and run again and again defers an
 * interrupt in each run as {@link WaitInterruptedException#deferringInterruptsUnless} does, sets it
 * again after the run, starts every run clean, honours its condition, keeps an outer run's
 * interrupt when a run of it is nested in the same deferral, ends with its run (a wait after it
 * gives up again), and puts an outer deferral back when an inner one ends.
 */
class DeferralTest {
    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    /** A wait of protocol code: gives up if the thread is interrupted, unless interrupts are deferred. */
    private static void aWait() {
        WaitInterruptedException.throwIfInterrupted("a test's wait");
    }

    @Test
    void eachRunDefersItsInterruptAndSetsItAgainAfterwards() {
        WaitInterruptedException.Deferral d = new WaitInterruptedException.Deferral(() -> false);
        for (int run = 0; run < 3; run++) {
            int r = run;
            int result = d.run(() -> {
                Thread.currentThread().interrupt();
                aWait(); // deferred: clears the interrupt and goes on
                assertFalse(Thread.currentThread().isInterrupted(), "cleared inside the run");
                return r;
            });
            assertEquals(run, result);
            assertTrue(Thread.interrupted(), "the interrupt is set again after run " + run);
        }
        assertEquals(7, d.run(() -> 7));
        assertFalse(Thread.interrupted(), "a run without an interrupt leaves none: the last run's is not carried over");
    }

    @Test
    void theConditionCutsARunShort() {
        AtomicBoolean lost = new AtomicBoolean();
        WaitInterruptedException.Deferral d = new WaitInterruptedException.Deferral(lost::get);
        lost.set(true);
        assertThrows(WaitInterruptedException.class, () -> d.run(() -> {
            Thread.currentThread().interrupt();
            aWait();
            return null;
        }));
        assertFalse(Thread.interrupted(), "thrown as a wait gives up: the interrupt cleared");
        lost.set(false);
        assertEquals("done", d.run(() -> {
            Thread.currentThread().interrupt();
            aWait();
            return "done";
        }), "the next run defers again");
        assertTrue(Thread.interrupted());
    }

    @Test
    void aRunNestedInTheSameDeferralKeepsTheOuterRunsInterrupt() {
        WaitInterruptedException.Deferral d = new WaitInterruptedException.Deferral(() -> false);
        d.run(() -> {
            Thread.currentThread().interrupt();
            aWait(); // the outer run's deferred interrupt
            d.run(() -> {
                aWait(); // no interrupt in the inner run
                return null;
            });
            assertFalse(Thread.currentThread().isInterrupted(), "the inner run had none to set again");
            return null;
        });
        assertTrue(Thread.interrupted(), "the outer run's interrupt is set again at its end");
    }

    @Test
    void aRunEndsItsDeferralAndRunsItsBodyOnItsArgument() {
        WaitInterruptedException.Deferral d = new WaitInterruptedException.Deferral(() -> false);
        int result = d.run((Integer n) -> {
            Thread.currentThread().interrupt();
            aWait();
            return n * 2;
        }, 21);
        assertEquals(42, result);
        assertTrue(Thread.interrupted(), "set again after the run");
        Thread.currentThread().interrupt();
        assertThrows(WaitInterruptedException.class, DeferralTest::aWait, "after the run a wait gives up again");
    }

    @Test
    void anInnerDeferralThatEndsPutsTheOuterOneBack() {
        WaitInterruptedException.Deferral outer = new WaitInterruptedException.Deferral(() -> false);
        outer.run(() -> {
            assertThrows(WaitInterruptedException.class, () -> WaitInterruptedException.deferringInterruptsUnless(() -> true, () -> {
                Thread.currentThread().interrupt();
                aWait(); // the inner deferral's condition cuts it short
                return null;
            }));
            Thread.currentThread().interrupt();
            aWait(); // the outer deferral again: deferred
            assertFalse(Thread.currentThread().isInterrupted(), "deferred by the outer run");
            return null;
        });
        assertTrue(Thread.interrupted(), "the outer run's interrupt is set again at its end");
        Thread.currentThread().interrupt();
        assertThrows(WaitInterruptedException.class, DeferralTest::aWait, "no deferral is left behind");
    }
}
