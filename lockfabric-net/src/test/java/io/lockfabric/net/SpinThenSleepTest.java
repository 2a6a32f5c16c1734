package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.channel.SelectStrategy;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/** The memory node's idle strategy, on a clock the test moves: poll while recently busy, then sleep. */
class SpinThenSleepTest {
    private long now = 1_000;
    private int ready;
    private final LongAdder polls = new LongAdder();

    private int next(SpinThenSleep s, boolean hasTasks) throws Exception {
        return s.calculateStrategy(() -> ready, hasTasks);
    }

    @Test
    void pollsForTheSpinAfterItsLastActivityThenSleeps() throws Exception {
        SpinThenSleep s = new SpinThenSleep(300, () -> now, polls);
        assertEquals(SelectStrategy.CONTINUE, next(s, false), "just started: polls");
        now += 299;
        assertEquals(SelectStrategy.CONTINUE, next(s, false));
        now += 1;
        assertEquals(SelectStrategy.SELECT, next(s, false), "the spin is over: sleeps until a connection is ready");
        assertEquals(2, polls.sum());
        ready = 3;
        assertEquals(3, next(s, false), "ready connections are served at once");
        ready = 0;
        now += 250;
        assertEquals(SelectStrategy.CONTINUE, next(s, false), "the spin counts from the last activity");
        now += 100;
        assertEquals(SelectStrategy.SELECT, next(s, false));
        assertEquals(0, next(s, true), "tasks to run: they run, and count as activity");
        now += 299;
        assertEquals(SelectStrategy.CONTINUE, next(s, false));
        assertEquals(4, polls.sum());
    }

    @Test
    void noSpinSleepsAtOnceAndANegativeOneIsRefused() throws Exception {
        SpinThenSleep s = new SpinThenSleep(0, () -> now, polls);
        assertEquals(SelectStrategy.SELECT, next(s, false));
        ready = 1;
        assertEquals(1, next(s, false));
        ready = 0;
        assertEquals(SelectStrategy.SELECT, next(s, false));
        assertEquals(0, polls.sum());
        assertThrows(IllegalArgumentException.class, () -> new SpinThenSleep(-1, () -> now, polls));
    }
}
