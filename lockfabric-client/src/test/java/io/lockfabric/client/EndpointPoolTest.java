package io.lockfabric.client;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.Fabrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class EndpointPoolTest {

    /**
     * Many threads, platform and virtual, and asynchronous requests, on fewer endpoints than
     * requesters: no endpoint is ever held by two at once, every request is served, and at the end
     * every endpoint is free again.
     */
    @Test
    void anEndpointIsNeverCheckedOutTwiceAndEveryRequestIsServed() throws Exception {
        try (Fabric fabric = Fabrics.open("local")) {
            EndpointPool pool = new EndpointPool(fabric, 3);
            Set<EndpointPool.Worker> out = ConcurrentHashMap.newKeySet();
            AtomicInteger twice = new AtomicInteger();
            AtomicLong served = new AtomicLong();
            int threads = 12;
            int rounds = 20_000;
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> all = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                boolean async = t % 4 == 3;
                Runnable body = () -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                    for (int i = 0; i < rounds; i++) {
                        EndpointPool.Worker w;
                        if (async) {
                            AtomicReference<EndpointPool.Worker> got = new AtomicReference<>();
                            CountDownLatch granted = new CountDownLatch(1);
                            pool.checkoutAsync(x -> {
                                got.set(x);
                                granted.countDown();
                            }, e -> granted.countDown());
                            try {
                                granted.await();
                            } catch (InterruptedException e) {
                                throw new AssertionError(e);
                            }
                            w = pool.ready(got.get());
                        } else {
                            w = pool.checkout();
                        }
                        if (!out.add(w)) {
                            twice.incrementAndGet();
                        }
                        if ((i & 63) == 0) {
                            Thread.yield(); // hold it a little: the others queue
                        }
                        out.remove(w);
                        served.incrementAndGet();
                        pool.checkin(w);
                    }
                };
                all.add(t % 2 == 0 ? Thread.ofPlatform().start(body) : Thread.ofVirtual().start(body));
            }
            start.countDown();
            for (Thread t : all) {
                t.join();
            }
            assertEquals(0, twice.get(), "an endpoint was checked out by two requests at once");
            assertEquals((long) threads * rounds, served.get());
            List<EndpointPool.Worker> idle = new ArrayList<>();
            pool.forEachIdle(idle::add);
            assertEquals(3, new HashSet<>(idle).size(), "every endpoint is free again");
            assertTrue(pool.hasFreeEndpoint());
            pool.close();
        }
    }

    /**
     * One endpoint, two threads passing it back and forth as fast as they can: a checkin that
     * lands between a request's look at the free stack and its queueing must still serve it (were
     * it missed, both threads would wait for ever).
     */
    @Test
    @Timeout(30)
    void aCheckinRacingAQueueingRequestStillServesIt() throws Exception {
        try (Fabric fabric = Fabrics.open("local")) {
            EndpointPool pool = new EndpointPool(fabric, 1);
            int rounds = 300_000;
            AtomicLong served = new AtomicLong();
            Runnable body = () -> {
                for (int i = 0; i < rounds; i++) {
                    EndpointPool.Worker w = pool.checkout();
                    served.incrementAndGet();
                    pool.checkin(w);
                }
            };
            Thread a = Thread.ofPlatform().start(body);
            Thread b = Thread.ofPlatform().start(body);
            a.join();
            b.join();
            assertEquals(2L * rounds, served.get());
            pool.close();
        }
    }

    /** The most recently checked-in endpoint is checked out first; waiters are served oldest first. */
    @Test
    void freeEndpointsGoMostRecentFirstAndWaitersOldestFirst() throws Exception {
        try (Fabric fabric = Fabrics.open("local")) {
            EndpointPool pool = new EndpointPool(fabric, 2);
            EndpointPool.Worker a = pool.checkout();
            EndpointPool.Worker b = pool.checkout();
            assertFalse(pool.hasFreeEndpoint());
            pool.checkin(a);
            pool.checkin(b);
            assertSame(b, pool.checkout(), "the last one in is the first out");
            assertSame(a, pool.checkout());

            List<String> order = Collections.synchronizedList(new ArrayList<>());
            List<Thread> waiting = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                String name = "w" + i;
                Thread t = Thread.ofPlatform().start(() -> {
                    EndpointPool.Worker w = pool.checkout();
                    order.add(name);
                    pool.checkin(w);
                });
                waiting.add(t);
                awaitWaiting(t); // queued before the next one starts
            }
            AtomicReference<String> asyncGot = new AtomicReference<>();
            pool.checkoutAsync(w -> {
                asyncGot.set("async");
                order.add("async");
                pool.checkin(w);
            }, e -> asyncGot.set("failed: " + e));
            assertNull(asyncGot.get(), "queued behind the four");
            pool.checkin(a); // one endpoint for five waiters: each passes it on to the next
            for (Thread t : waiting) {
                t.join();
            }
            assertEquals(List.of("w0", "w1", "w2", "w3", "async"), order);
            pool.checkin(b);
            pool.close();
        }
    }

    /**
     * Outside virtual time the free endpoints are on several stacks, one the home of each thread:
     * a thread whose home is empty takes endpoints from the others (one thread can check out the
     * whole pool), and two threads of different homes that take turns each get back the endpoint
     * it checked in last.
     */
    @Test
    void eachThreadGetsBackItsOwnEndpointAndTakesFromOtherStacksWhenItsHomeIsEmpty() throws Exception {
        try (Fabric fabric = Fabrics.open("local")) {
            EndpointPool pool = new EndpointPool(fabric, 8);
            assertEquals(8, pool.stackCount());
            assertEquals(1, EndpointPool.stacksFor(8, true), "one stack in virtual time");
            assertEquals(4, EndpointPool.stacksFor(3, false));
            assertEquals(EndpointPool.MAX_STACKS, EndpointPool.stacksFor(1000, false));

            Set<EndpointPool.Worker> all = new HashSet<>();
            for (int i = 0; i < 8; i++) {
                all.add(pool.checkout()); // one on this thread's home: the other seven come from the other stacks
            }
            assertEquals(8, all.size());
            assertFalse(pool.hasFreeEndpoint());
            all.forEach(pool::checkin); // all onto this thread's home now
            assertTrue(pool.hasFreeEndpoint());

            // two threads of different homes: each gets its own endpoint back, turn after turn
            Thread[] two = new Thread[2];
            List<List<EndpointPool.Worker>> got = List.of(Collections.synchronizedList(new ArrayList<>()),
                    Collections.synchronizedList(new ArrayList<>()));
            java.util.concurrent.Semaphore[] turn = {new java.util.concurrent.Semaphore(1), new java.util.concurrent.Semaphore(0)};
            int rounds = 200;
            for (int k = 0; k < 2; k++) {
                int me = k;
                Runnable body = () -> {
                    for (int i = 0; i < rounds; i++) {
                        turn[me].acquireUninterruptibly();
                        EndpointPool.Worker w = pool.checkout();
                        got.get(me).add(w);
                        pool.checkin(w);
                        turn[1 - me].release();
                    }
                };
                Thread t;
                do { // unstarted threads have their ids: make them until the second has another home
                    t = Thread.ofPlatform().unstarted(body);
                } while (k == 1 && EndpointPool.homeOf(t.threadId(), 7) == EndpointPool.homeOf(two[0].threadId(), 7));
                two[k] = t;
            }
            two[0].start();
            two[1].start();
            two[0].join();
            two[1].join();
            // each thread's first checkout may take from the other's home (its own is empty until its
            // first checkin); after that it finds its own endpoint at home
            for (int k = 0; k < 2; k++) {
                assertEquals(rounds, got.get(k).size());
                assertEquals(1, new HashSet<>(got.get(k).subList(2, rounds)).size(),
                        "thread " + k + " got its own endpoint back: " + got.get(k).subList(0, 8));
            }
            assertFalse(got.get(0).get(rounds - 1) == got.get(1).get(rounds - 1), "the two threads used different endpoints");
            pool.close();
        }
    }

    /**
     * A close fails the waiters and later requests, waits for the endpoints out, and closes each
     * endpoint once, including one checked in after the close gave up waiting for it.
     */
    @Test
    void closeFailsWaitersAndClosesEveryEndpointOnce() throws Exception {
        try (Fabric fabric = Fabrics.open("local")) {
            EndpointPool pool = new EndpointPool(fabric, 1);
            EndpointPool.Worker held = pool.checkout();
            Probe probe = held.client(this, Probe.class, e -> new Probe());
            AtomicReference<Throwable> waiterFailure = new AtomicReference<>();
            Thread waiter = Thread.ofPlatform().start(() -> {
                try {
                    pool.checkout();
                } catch (IllegalStateException e) {
                    waiterFailure.set(e);
                }
            });
            awaitWaiting(waiter);
            long t0 = System.nanoTime();
            pool.close(TimeUnit.MILLISECONDS.toNanos(200)); // the held endpoint does not come back in time
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(200));
            waiter.join();
            assertTrue(waiterFailure.get() != null, "the waiter failed");
            assertThrows(IllegalStateException.class, pool::checkout);
            assertThrows(IllegalStateException.class, () -> pool.checkoutAsync(w -> { }, e -> { }));
            assertEquals(0, probe.closed.get(), "still out: not closed under its user");
            pool.checkin(held); // late: closed by its checkin
            assertEquals(1, probe.closed.get(), "an endpoint checked in after the close is closed");
            pool.close(); // idempotent
            assertEquals(1, probe.closed.get(), "closed once");
        }
    }

    /** A close waits for an endpoint checked in within its grace, then closes it. */
    @Test
    void closeWaitsForAnEndpointCheckedInWithinTheGrace() throws Exception {
        try (Fabric fabric = Fabrics.open("local")) {
            EndpointPool pool = new EndpointPool(fabric, 2);
            EndpointPool.Worker held = pool.checkout();
            Probe probe = held.client(this, Probe.class, e -> new Probe());
            EndpointPool.Worker idle = pool.checkout();
            Probe idleProbe = idle.client(this, Probe.class, e -> new Probe());
            pool.checkin(idle);
            Thread user = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                pool.checkin(held);
            });
            long t0 = System.nanoTime();
            pool.close(TimeUnit.SECONDS.toNanos(30));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            user.join();
            assertTrue(tookMs < 10_000, "woken by the checkin, not by the grace: " + tookMs + " ms");
            assertEquals(1, probe.closed.get(), "the endpoint that came back is closed");
            assertEquals(1, idleProbe.closed.get(), "the free endpoint is closed");
        }
    }

    /**
     * A close past its grace interrupts protocol code that runs on an endpoint still out. Here the
     * interrupt comes after the protocol's last wait (the body returns when it sees it): the run ends
     * normally, and the pool's interrupt ends with it, so that it does not reach the application.
     */
    @Test
    void thePoolsInterruptOfProtocolCodeEndsWithTheRun() throws Exception {
        try (Fabric fabric = Fabrics.open("local")) {
            EndpointPool pool = new EndpointPool(fabric, 1);
            CountDownLatch inBody = new CountDownLatch(1);
            AtomicReference<String> outcome = new AtomicReference<>();
            Thread user = Thread.ofPlatform().start(() -> {
                EndpointPool.Worker w = pool.checkout();
                String r = w.runProtocol(() -> {
                    inBody.countDown();
                    while (!Thread.currentThread().isInterrupted()) {
                        Thread.onSpinWait();
                    }
                    return "returned";
                });
                outcome.set(r + (Thread.currentThread().isInterrupted() ? ", interrupted after the run" : ", not interrupted"));
                pool.checkin(w);
            });
            inBody.await();
            pool.close(TimeUnit.MILLISECONDS.toNanos(50));
            user.join();
            assertEquals("returned, not interrupted", outcome.get());
        }
    }

    /**
     * A close past its grace cuts a protocol wait short even where the application's own interrupt
     * was deferred; the application's interrupt is set again after the run, and the pool's does not
     * clear it.
     */
    @Test
    void aForcedCloseCutsAProtocolWaitShortAndKeepsTheOwnersDeferredInterrupt() throws Exception {
        try (Fabric fabric = Fabrics.open("local")) {
            EndpointPool pool = new EndpointPool(fabric, 1);
            CountDownLatch inBody = new CountDownLatch(1);
            AtomicInteger waits = new AtomicInteger();
            AtomicReference<String> outcome = new AtomicReference<>();
            Thread user = Thread.ofPlatform().start(() -> {
                EndpointPool.Worker w = pool.checkout();
                try {
                    w.runProtocol(() -> {
                        inBody.countDown();
                        while (true) { // a protocol's wait, answering interrupts as every real-time wait does
                            waits.incrementAndGet();
                            java.util.concurrent.locks.LockSupport.park();
                            io.lockfabric.fabric.WaitInterruptedException.throwIfInterrupted("the test");
                        }
                    });
                    outcome.set("returned");
                } catch (io.lockfabric.fabric.WaitInterruptedException e) {
                    outcome.set("cut short" + (Thread.currentThread().isInterrupted() ? ", interrupted after the run" : ""));
                }
                pool.checkin(w);
            });
            inBody.await();
            user.interrupt(); // deferred: the wait goes on
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (waits.get() < 2) {
                assertTrue(System.nanoTime() < deadline, "the body never waited again after the deferred interrupt");
                Thread.sleep(1);
            }
            assertTrue(user.isAlive(), "the owner's interrupt did not cut the protocol short");
            pool.close(TimeUnit.MILLISECONDS.toNanos(50));
            user.join();
            assertEquals("cut short, interrupted after the run", outcome.get());
        }
    }

    /** A client kept on an endpoint: closed with it. */
    static final class Probe implements AutoCloseable {
        final AtomicInteger closed = new AtomicInteger();

        @Override
        public void close() {
            closed.incrementAndGet();
        }
    }

    private static void awaitWaiting(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            assertTrue(System.nanoTime() < deadline, "the thread never parked: " + t.getState());
            Thread.sleep(1);
        }
    }
}
