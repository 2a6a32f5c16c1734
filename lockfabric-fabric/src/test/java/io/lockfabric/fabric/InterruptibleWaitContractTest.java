package io.lockfabric.fabric;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How a client of a real-time fabric is ended from outside, written once against the fabric SPI and
 * run against every real-time fabric (subclass it and return a fresh fabric from
 * {@link #newFabric()}): every wait a protocol may make through the fabric (a mailbox's
 * {@code await}, a clock's sleep, an idle strategy, a verb) gives up with
 * {@link WaitInterruptedException} when the client's thread is interrupted, clears the interrupt,
 * and a verb of an interrupted thread is not carried out. A client blocked for ever in a wait ends
 * within moments of {@link ClientThread#interrupt()}, and its thread is a daemon. Under
 * {@link WaitInterruptedException#deferringInterrupts} every wait and verb goes on however often the
 * thread is interrupted, unless the runner cuts it short ({@code deferringInterruptsUnless}).
 */
@Tag("contract")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class InterruptibleWaitContractTest {
    /** How long an interrupted client may take to end. */
    private static final long END_WITHIN_NS = TimeUnit.SECONDS.toNanos(5);
    private static final long ONE_HOUR_NS = TimeUnit.HOURS.toNanos(1);

    protected Fabric fabric;
    protected Endpoint endpoint;
    protected Table table;

    /** A fresh, empty real-time fabric; closed by the suite after each test. */
    protected abstract Fabric newFabric();

    @BeforeEach
    void openFabric() {
        fabric = newFabric();
        endpoint = fabric.newEndpoint();
        table = endpoint.openTable(new TableSpec("interrupts", "test", 0, 64));
    }

    @AfterEach
    void closeFabric() {
        endpoint.close();
        fabric.close();
    }

    /**
     * Runs {@code wait} as a client, lets it block, interrupts it and returns what it threw; checks
     * that it ended within moments and that the interrupt was cleared by the throw.
     */
    private Throwable interruptedWhile(Consumer<Endpoint> wait) {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
        ClientThread client = fabric.spawn("blocked-client", () -> {
            try {
                wait.accept(endpoint);
            } catch (Throwable t) {
                thrown.set(t);
            }
            stillInterrupted.set(Thread.currentThread().isInterrupted());
        });
        assertFalse(client.join(TimeUnit.MILLISECONDS.toNanos(200)), "the wait returned by itself");
        long before = System.nanoTime();
        client.interrupt();
        assertTrue(client.join(END_WITHIN_NS), "an interrupted client is still blocked after 5 s");
        assertTrue(System.nanoTime() - before < END_WITHIN_NS);
        assertEquals(Boolean.FALSE, stillInterrupted.get(), "the exception clears the interrupt");
        return thrown.get();
    }

    @Test
    void aMailboxWaitForeverGivesUpWhenInterrupted() {
        Throwable t = interruptedWhile(e -> e.mailbox().await(Long.MAX_VALUE));
        assertInstanceOf(WaitInterruptedException.class, t);
        assertTrue(t.getMessage().contains("a message"), t.getMessage());
    }

    @Test
    void aLongSleepGivesUpWhenInterrupted() {
        Throwable t = interruptedWhile(e -> e.clock().sleepNanos(ONE_HOUR_NS));
        assertInstanceOf(WaitInterruptedException.class, t);
    }

    @Test
    void anIdleStrategyGivesUpWhenInterrupted() {
        Throwable t = interruptedWhile(e -> {
            IdleStrategy idle = e.clock().idleStrategy();
            while (true) {
                idle.idle();
            }
        });
        assertInstanceOf(WaitInterruptedException.class, t);
    }

    @Test
    void aClientSpinningOnVerbsStopsWhenInterrupted() {
        QueuePair qp = endpoint.queuePair(table.memoryNode());
        Throwable t = interruptedWhile(e -> {
            while (true) {
                qp.cas(table.address(), 1, 2); // never succeeds: the word is 0
            }
        });
        assertInstanceOf(WaitInterruptedException.class, t);
    }

    @Test
    void withInterruptsDeferredAWaitAndAVerbGoOnAndTheInterruptIsSetAgainAfter() {
        QueuePair qp = endpoint.queuePair(table.memoryNode());
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
        AtomicReference<Long> word = new AtomicReference<>();
        ClientThread client = fabric.spawn("deferring-client", () -> {
            try {
                word.set(WaitInterruptedException.deferringInterrupts(() -> {
                    Thread.currentThread().interrupt(); // before the verbs
                    qp.write8(table.address(), 7);
                    endpoint.clock().sleepNanos(TimeUnit.MILLISECONDS.toNanos(300)); // interrupted in it
                    return qp.read8(table.address());
                }));
            } catch (Throwable t) {
                thrown.set(t);
            }
            interruptedAfter.set(Thread.interrupted());
        });
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        client.interrupt();
        assertTrue(client.join(END_WITHIN_NS));
        assertEquals(null, thrown.get(), "nothing gave up");
        assertEquals(7L, word.get(), "the WRITE was carried out and the READ returned it");
        assertEquals(Boolean.TRUE, interruptedAfter.get(), "the interrupt is set again once the body is done");
    }

    @Test
    void verbsUnderDeferredInterruptsAllCompleteWhileTheThreadIsInterruptedAgainAndAgain() {
        QueuePair qp = endpoint.queuePair(table.memoryNode());
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Long> word = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        ClientThread client = fabric.spawn("deferring-client", () -> {
            try {
                word.set(WaitInterruptedException.deferringInterrupts(() -> {
                    for (int i = 0; i < 2_000; i++) {
                        qp.faa(table.address(), 1); // a verb waiting for its reply when an interrupt comes
                    }
                    return qp.read8(table.address());
                }));
            } catch (Throwable t) {
                thrown.set(t);
            }
            done.set(true);
            Thread.interrupted();
        });
        long deadline = System.nanoTime() + END_WITHIN_NS;
        while (!done.get() && System.nanoTime() < deadline) {
            client.interrupt();
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        }
        assertTrue(client.join(END_WITHIN_NS), "a verb under deferred interrupts stopped waiting for its reply");
        assertEquals(null, thrown.get(), "nothing gave up");
        assertEquals(2_000L, word.get(), "every FAA was carried out once");
    }

    @Test
    void deferredInterruptsThatTheRunnerCutsShortEndTheWait() {
        java.util.concurrent.atomic.AtomicBoolean cut = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        ClientThread client = fabric.spawn("cut-short-client", () -> {
            try {
                WaitInterruptedException.deferringInterruptsUnless(cut::get, () -> endpoint.mailbox().await(Long.MAX_VALUE));
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        client.interrupt(); // deferred: the wait goes on
        assertFalse(client.join(TimeUnit.MILLISECONDS.toNanos(200)), "a deferred interrupt ended the wait");
        cut.set(true);
        client.interrupt();
        assertTrue(client.join(END_WITHIN_NS), "the runner's interrupt did not end the wait");
        assertInstanceOf(WaitInterruptedException.class, thrown.get());
    }

    @Test
    void aVerbOfAnInterruptedThreadIsNotCarriedOut() {
        QueuePair qp = endpoint.queuePair(table.memoryNode());
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Long> after = new AtomicReference<>();
        ClientThread client = fabric.spawn("interrupted-client", () -> {
            Thread.currentThread().interrupt();
            try {
                qp.write8(table.address(), 42);
            } catch (Throwable t) {
                thrown.set(t);
            }
            after.set(qp.read8(table.address()));
        });
        assertTrue(client.join(END_WITHIN_NS));
        assertInstanceOf(WaitInterruptedException.class, thrown.get());
        assertEquals(0L, after.get(), "the WRITE was not executed, and the next verb ran normally");
    }

    @Test
    void aClientThreadIsADaemonAndABoundedJoinSaysWhetherItEnded() {
        AtomicReference<Boolean> daemon = new AtomicReference<>();
        ClientThread client = fabric.spawn("daemon-client", () -> {
            daemon.set(Thread.currentThread().isDaemon());
            endpoint.clock().sleepNanos(TimeUnit.MILLISECONDS.toNanos(300));
        });
        assertFalse(client.join(0), "still sleeping");
        assertTrue(client.join(END_WITHIN_NS));
        assertEquals(Boolean.TRUE, daemon.get());
        assertThrows(WaitInterruptedException.class, () -> {
            Thread.currentThread().interrupt();
            WaitInterruptedException.throwIfInterrupted("nothing");
        });
        assertFalse(Thread.currentThread().isInterrupted());
    }
}
