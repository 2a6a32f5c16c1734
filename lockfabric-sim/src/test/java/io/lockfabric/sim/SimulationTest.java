package io.lockfabric.sim;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scheduler itself: event order, baton passing, blocking, crashes, pauses, teardown, failures. */
class SimulationTest {

    /** Blocks the calling process for {@code ns} of virtual time. */
    private static void sleep(Simulation sim, long ns) {
        SimProcess p = sim.current();
        long token = sim.token(p);
        sim.schedule(sim.now() + ns, () -> sim.resume(p, token, null, null));
        sim.block(p);
    }

    @Test
    void eventsRunInTimeThenSchedulingOrder() {
        Simulation sim = new Simulation();
        SplittableRandom rnd = new SplittableRandom(3);
        record Ev(long time, int order) {
        }
        List<Ev> scheduled = new ArrayList<>();
        List<Ev> ran = new ArrayList<>();
        int n = 5_000;
        for (int i = 0; i < n; i++) {
            Ev e = new Ev(rnd.nextLong(300), i);
            scheduled.add(e);
            sim.schedule(e.time(), () -> {
                assertEquals(e.time(), sim.now());
                ran.add(e);
                if (e.order() % 7 == 0) {
                    Ev later = new Ev(sim.now() + rnd.nextLong(3), n + ran.size());
                    scheduled.add(later);
                    sim.schedule(later.time(), () -> ran.add(later));
                }
            });
        }
        sim.runUntil(() -> ran.size() == scheduled.size(), "every event");
        List<Ev> expected = new ArrayList<>(scheduled);
        expected.sort(Comparator.comparingLong(Ev::time).thenComparingInt(Ev::order));
        assertEquals(expected, ran);
        assertEquals(scheduled.size(), sim.executedEvents());
        assertThrows(IllegalArgumentException.class, () -> sim.schedule(sim.now() - 1, () -> { }));
    }

    @Test
    void processesInterleaveInVirtualTimeAndResumeValuesArrive() {
        Simulation sim = new Simulation();
        StringBuilder log = new StringBuilder();
        for (String name : List.of("a", "b")) {
            sim.spawn(name, () -> {
                SimProcess p = sim.current();
                for (int i = 0; i < 3; i++) {
                    long token = sim.token(p);
                    long delay = name.equals("a") ? 100 : 150;
                    sim.schedule(sim.now() + delay, () -> sim.resume(p, token, name + sim.now(), null));
                    log.append(sim.block(p)).append(' ');
                }
            });
        }
        sim.runUntil(() -> sim.processes().stream().allMatch(SimProcess::finished), "both");
        assertEquals("a100 b150 a200 b300 a300 b450 ", log.toString(), "ties in time go in scheduling order");
        assertTrue(sim.processes().stream().noneMatch(p -> p.failure() != null));
    }

    @Test
    void aResumeErrorIsThrownFromTheBlock() {
        Simulation sim = new Simulation();
        AtomicReference<Throwable> caught = new AtomicReference<>();
        SimProcess p = sim.spawn("p", () -> {
            SimProcess self = sim.current();
            long token = sim.token(self);
            sim.schedule(10, () -> sim.resume(self, token, null, new IllegalStateException("nak")));
            try {
                sim.block(self);
            } catch (IllegalStateException e) {
                caught.set(e);
            }
        });
        p.join();
        assertEquals("nak", caught.get().getMessage());
    }

    @Test
    void staleResumesAreIgnored() {
        Simulation sim = new Simulation();
        List<Object> got = new ArrayList<>();
        SimProcess p = sim.spawn("p", () -> {
            SimProcess self = sim.current();
            long first = sim.token(self);
            sim.schedule(100, () -> sim.resume(self, first, "first", null));
            sim.schedule(200, () -> sim.resume(self, first, "stale", null));
            got.add(sim.block(self));
            long second = sim.token(self);
            sim.schedule(300, () -> sim.resume(self, second, "second", null));
            got.add(sim.block(self));
        });
        p.join();
        assertEquals(List.of("first", "second"), got);
        assertEquals(300, sim.now());
    }

    @Test
    void aSecondResumeOfOneWaitInTheSameEventIsStale() {
        Simulation sim = new Simulation();
        List<String> got = new ArrayList<>();
        SimProcess p = sim.spawn("p", () -> {
            SimProcess self = sim.current();
            long token = sim.token(self);
            sim.schedule(100, () -> {
                sim.resume(self, token, "first", null);
                sim.resume(self, token, "second", null);
            });
            got.add(sim.block(self) + "@" + sim.now());
            long next = sim.token(self);
            sim.schedule(300, () -> sim.resume(self, next, "later", null));
            got.add(sim.block(self) + "@" + sim.now());
        });
        p.join();
        assertEquals(List.of("first@100", "later@300"), got);
    }

    @Test
    void oneEventResumingTwoProcessesRunsBothInOrderAtThatTime() {
        Simulation sim = new Simulation();
        StringBuilder log = new StringBuilder();
        long[] tokens = new long[2];
        List<SimProcess> ps = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            int k = i;
            ps.add(sim.spawn("p" + i, () -> {
                SimProcess self = sim.current();
                tokens[k] = sim.token(self);
                sim.block(self);
                log.append(self.name()).append('@').append(sim.now()).append(' ');
                sleep(sim, 5);
                log.append(self.name()).append('@').append(sim.now()).append(' ');
            }));
        }
        sim.schedule(50, () -> {
            sim.resume(ps.get(1), tokens[1], null, null);
            sim.resume(ps.get(0), tokens[0], null, null);
        });
        sim.runUntil(() -> ps.stream().allMatch(SimProcess::finished), "both");
        assertEquals("p1@50 p0@50 p1@55 p0@55 ", log.toString());
    }

    @Test
    void runUntilGivesControlBackWhenTheConditionHoldsAndCanRunAgain() {
        Simulation sim = new Simulation();
        AtomicInteger ticks = new AtomicInteger();
        SimProcess p = sim.spawn("ticker", () -> {
            for (int i = 0; i < 100; i++) {
                sleep(sim, 10);
                ticks.incrementAndGet();
            }
        });
        sim.runUntil(() -> ticks.get() >= 30, "30 ticks");
        assertEquals(30, ticks.get());
        assertEquals(300, sim.now());
        assertFalse(p.finished());
        assertNull(sim.current(), "the caller is not a simulated process");
        p.join();
        assertEquals(100, ticks.get());
        assertEquals(1000, sim.now());
    }

    @Test
    void aFailingBodyIsRecordedAndTheOthersCarryOn() {
        Simulation sim = new Simulation();
        SimProcess bad = sim.spawn("bad", () -> {
            sleep(sim, 10);
            throw new IllegalStateException("broken");
        });
        SimProcess good = sim.spawn("good", () -> sleep(sim, 100));
        good.join();
        assertTrue(bad.finished());
        assertFalse(bad.crashed());
        assertInstanceOf(IllegalStateException.class, bad.failure());
        assertNull(good.failure());
    }

    @Test
    void anExceptionInAnEventReachesTheCallerAndTheSimulationGoesOn() {
        Simulation sim = new Simulation();
        SimProcess p = sim.spawn("p", () -> {
            sleep(sim, 100);
            sleep(sim, 100);
        });
        sim.schedule(50, () -> {
            throw new IllegalStateException("bad event");
        });
        IllegalStateException e = assertThrows(IllegalStateException.class, p::join);
        assertEquals("bad event", e.getMessage());
        assertEquals(50, sim.now());
        p.join();
        assertEquals(200, sim.now());
    }

    @Test
    void aSimulatedProcessCannotRunTheSimulation() {
        Simulation sim = new Simulation();
        SimProcess p = sim.spawn("p", () -> sim.runUntil(() -> true, "nothing"));
        p.join();
        assertInstanceOf(IllegalStateException.class, p.failure());
    }

    @Test
    void runningOutOfEventsOrTimeIsReportedWithTheBlocked() {
        Simulation sim = new Simulation();
        for (int i = 0; i < 12; i++) {
            sim.spawn("stuck-" + i, () -> sim.block(sim.current()));
        }
        SimulationStuckException e = assertThrows(SimulationStuckException.class,
                () -> sim.runUntil(() -> false, "godot"));
        assertTrue(e.getMessage().contains("no events left") && e.getMessage().contains("godot")
                && e.getMessage().contains("stuck-0 ") && e.getMessage().contains("(12 in all)"), e.getMessage());

        Simulation timed = new Simulation();
        timed.timeLimitNs(10_000);
        SimProcess sleeper = timed.spawn("sleeper", () -> {
            for (;;) {
                sleep(timed, 1_000);
            }
        });
        e = assertThrows(SimulationStuckException.class, sleeper::join);
        assertTrue(e.getMessage().contains("time limit"), e.getMessage());
        assertEquals(10_000, timed.now());
        timed.shutdown();
        assertTrue(sleeper.finished());
        sim.shutdown();
        assertTrue(sim.processes().stream().allMatch(SimProcess::finished));
    }

    @Test
    void aCrashedProcessNeverRunsAgainAndIsTornDownHoldingItsState() {
        Simulation sim = new Simulation();
        AtomicInteger ticks = new AtomicInteger();
        AtomicReference<Throwable> endedWith = new AtomicReference<>();
        SimProcess victim = sim.spawn("victim", () -> {
            try {
                for (;;) {
                    sleep(sim, 100);
                    ticks.incrementAndGet();
                }
            } catch (Throwable t) {
                endedWith.set(t);
                throw t;
            }
        });
        SimProcess other = sim.spawn("other", () -> sleep(sim, 2_000));
        sim.schedule(550, () -> sim.crash(victim));
        other.join();
        assertEquals(5, ticks.get());
        assertTrue(victim.crashed());
        assertTrue(victim.finished());
        assertNull(endedWith.get(), "a crashed process just stops");
        sim.shutdown();
        assertInstanceOf(ProcessKilled.class, endedWith.get(), "teardown unwinds it");
        assertTrue(victim.crashed());
        assertNull(victim.failure());
    }

    @Test
    void shutdownKillsEveryBlockedProcessEvenOneThatBlocksAgain() {
        Simulation sim = new Simulation();
        AtomicBoolean started = new AtomicBoolean();
        AtomicReference<Throwable> killedWith = new AtomicReference<>();
        SimProcess blocked = sim.spawn("blocked", () -> {
            started.set(true);
            try {
                sim.block(sim.current());
            } catch (ProcessKilled e) {
                killedWith.set(e);
                throw e;
            }
        });
        SimProcess stubborn = sim.spawn("stubborn", () -> {
            try {
                sim.block(sim.current());
            } catch (ProcessKilled e) {
                sleep(sim, 10);
            }
        });
        SimProcess never = sim.spawn("never", () -> sleep(sim, 1_000_000));
        sim.runUntil(() -> sim.processes().stream().allMatch(p -> p.state == SimProcess.State.BLOCKED), "all blocked");
        assertTrue(started.get());
        assertFalse(never.finished());
        sim.shutdown();
        assertInstanceOf(ProcessKilled.class, killedWith.get());
        assertTrue(blocked.finished());
        assertNull(blocked.failure(), "a kill is not a failure");
        assertFalse(stubborn.finished(), "blocked again during teardown: left alone");
        assertTrue(never.finished());
    }

    @Test
    void aPausedProcessIsResumedOnlyAfterThePause() {
        Simulation sim = new Simulation();
        List<Long> wakes = new ArrayList<>();
        SimProcess p = sim.spawn("p", () -> {
            for (int i = 0; i < 4; i++) {
                sleep(sim, 100);
                wakes.add(sim.now());
            }
        });
        sim.schedule(150, () -> p.pausedUntilNs = 1_000);
        p.join();
        assertEquals(List.of(100L, 1_000L, 1_100L, 1_200L), wakes);
    }

    @Test
    void aProcessSpawnedWhilePausedStartsAfterThePause() {
        Simulation sim = new Simulation();
        AtomicReference<Long> startedAt = new AtomicReference<>();
        SimProcess p = sim.spawn("late", () -> startedAt.set(sim.now()));
        p.pausedUntilNs = 500;
        p.join();
        assertEquals(500L, startedAt.get());
        assertNull(p.failure());
    }
}
