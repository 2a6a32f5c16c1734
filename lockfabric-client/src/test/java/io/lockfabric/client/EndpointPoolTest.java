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
