package io.lockfabric.lock.rpc;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.RpcCall;
import io.lockfabric.fabric.memory.MemoryRegion;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.rpc.RpcLockFrame.Response;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static io.lockfabric.lock.Mode.EXCLUSIVE;
import static io.lockfabric.lock.Mode.SHARED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server's lock logic, driven directly with fake rpc calls (no fabric, no threads unless said). */
class RpcLockServerTest {
    private static final long LOCKS = 4;
    private final Arena arena = Arena.ofShared();
    private final MemoryRegion region = new MemoryRegion(1, LOCKS * RpcLockServer.FENCE_WORD_BYTES, new byte[0], arena);
    private final RpcLockServer server = new RpcLockServer(region, LOCKS);

    @AfterEach
    void close() {
        arena.close();
    }

    /** An rpc whose completion the test inspects. */
    static final class FakeCall implements RpcCall {
        private final EndpointId caller;
        private final byte[] request;
        byte[] response;
        String failure;
        int completions;

        FakeCall(int client, byte[] request) {
            this.caller = new EndpointId(0, client);
            this.request = request;
        }

        @Override
        public EndpointId caller() {
            return caller;
        }

        @Override
        public byte[] request() {
            return request;
        }

        @Override
        public synchronized void reply(byte[] r) {
            response = r.clone();
            completions++;
            notifyAll();
        }

        @Override
        public synchronized void fail(String reason) {
            failure = reason;
            completions++;
            notifyAll();
        }

        synchronized void awaitCompletion() throws InterruptedException {
            while (completions == 0) {
                wait();
            }
        }

        synchronized boolean pending() {
            return completions == 0;
        }

        synchronized Response granted() {
            assertEquals(1, completions, "completed exactly once");
            assertNull(failure, "failed: " + failure);
            Response r = RpcLockFrame.decodeResponse(response);
            assertEquals(RpcLockFrame.STATUS_GRANTED, r.status());
            return r;
        }
    }

    private FakeCall acquire(int client, long lock, Mode mode) {
        FakeCall c = new FakeCall(client, RpcLockFrame.acquire(lock, mode, false));
        server.handle(c);
        return c;
    }

    private FakeCall tryAcquire(int client, long lock, Mode mode) {
        FakeCall c = new FakeCall(client, RpcLockFrame.acquire(lock, mode, true));
        server.handle(c);
        return c;
    }

    private FakeCall release(int client, long lock, Mode mode, long token) {
        FakeCall c = new FakeCall(client, RpcLockFrame.release(lock, mode, token));
        server.handle(c);
        return c;
    }

    private void released(int client, long lock, Mode mode, long token) {
        FakeCall c = release(client, lock, mode, token);
        assertNull(c.failure, c.failure);
        assertEquals(RpcLockFrame.STATUS_RELEASED, RpcLockFrame.decodeResponse(c.response).status());
    }

    @Test
    void exclusiveWaitersAreGrantedInArrivalOrderWithIncreasingTokens() {
        Response first = acquire(1, 0, EXCLUSIVE).granted();
        assertEquals(1, first.token(), "the first exclusive grant of a lock");
        FakeCall w2 = acquire(2, 0, EXCLUSIVE);
        FakeCall w3 = acquire(3, 0, EXCLUSIVE);
        FakeCall w4 = acquire(4, 0, EXCLUSIVE);
        assertTrue(w2.pending() && w3.pending() && w4.pending(), "held: the replies are deferred");
        assertEquals(List.of(EXCLUSIVE, EXCLUSIVE, EXCLUSIVE), server.view(0).waiting());

        released(1, 0, EXCLUSIVE, 1);
        assertEquals(2, w2.granted().token(), "the release grants the head of the queue");
        assertTrue(w3.pending() && w4.pending());
        released(2, 0, EXCLUSIVE, 2);
        assertEquals(3, w3.granted().token());
        assertTrue(w4.pending());
        released(3, 0, EXCLUSIVE, 3);
        assertEquals(4, w4.granted().token());
        released(4, 0, EXCLUSIVE, 4);
        assertEquals(new RpcLockServer.View(null, List.of(), List.of(), 4), server.view(0));
        assertEquals(0, server.liveLocks(), "an idle lock keeps no state object");
        assertEquals(4, region.read8(0), "the fencing count lives in the table region");
        assertEquals(5, acquire(9, 0, EXCLUSIVE).granted().token(), "tokens survive the idle state's removal");
    }

    @Test
    void sharedRequestsAreGrantedTogetherAndAQueuedWriterBlocksLaterReaders() {
        assertEquals(1, acquire(1, 2, EXCLUSIVE).granted().token());
        FakeCall r2 = acquire(2, 2, SHARED);
        FakeCall r3 = acquire(3, 2, SHARED);
        FakeCall w4 = acquire(4, 2, EXCLUSIVE);
        FakeCall r5 = acquire(5, 2, SHARED);
        released(1, 2, EXCLUSIVE, 1);

        Response g2 = r2.granted();
        Response g3 = r3.granted();
        assertEquals(SHARED, g2.mode());
        assertEquals(1, g2.token(), "a shared grant carries the current exclusive count");
        assertEquals(1, g3.token());
        assertTrue(w4.pending(), "the writer waits for the readers");
        assertTrue(r5.pending(), "a reader behind a queued writer waits although readers hold the lock");
        FakeCall r6 = acquire(6, 2, SHARED);
        assertTrue(r6.pending(), "a new reader also queues behind the writer");

        released(2, 2, SHARED, 1);
        assertTrue(w4.pending(), "one reader still holds");
        released(3, 2, SHARED, 1);
        assertEquals(2, w4.granted().token());
        assertTrue(r5.pending() && r6.pending());
        released(4, 2, EXCLUSIVE, 2);
        assertEquals(2, r5.granted().token(), "both readers behind the writer go together");
        assertEquals(2, r6.granted().token());
        assertEquals(List.of(new EndpointId(0, 5), new EndpointId(0, 6)), server.view(2).readers());
    }

    @Test
    void readersShareAtOnceWhileNobodyWaits() {
        for (int c = 1; c <= 5; c++) {
            assertEquals(0, acquire(c, 1, SHARED).granted().token(), "no exclusive grant yet");
        }
        FakeCall w = acquire(9, 1, EXCLUSIVE);
        assertTrue(w.pending());
        for (int c = 1; c <= 5; c++) {
            released(c, 1, SHARED, 0);
        }
        assertEquals(1, w.granted().token());
        assertEquals(0, server.view(0).fencingCount(), "locks are independent");
    }

    @Test
    void oneClientMayHoldSeveralSharedGrantsOfALock() {
        acquire(1, 0, SHARED).granted();
        acquire(1, 0, SHARED).granted();
        released(1, 0, SHARED, 0);
        assertEquals(List.of(new EndpointId(0, 1)), server.view(0).readers(), "one of the two released");
        released(1, 0, SHARED, 0);
        assertEquals(0, server.liveLocks());
    }

    @Test
    void tryAcquireIsAnsweredAtOnce() {
        Response g = RpcLockFrame.decodeResponse(tryAcquire(1, 3, SHARED).response);
        assertEquals(RpcLockFrame.STATUS_GRANTED, g.status());
        FakeCall busy = tryAcquire(2, 3, EXCLUSIVE);
        assertFalse(busy.pending(), "no deferred reply in retry-on-fail");
        assertEquals(RpcLockFrame.STATUS_BUSY, RpcLockFrame.decodeResponse(busy.response).status());
        assertEquals(List.of(), server.view(3).waiting(), "a refused try does not queue");
        assertEquals(RpcLockFrame.STATUS_GRANTED,
                RpcLockFrame.decodeResponse(tryAcquire(3, 3, SHARED).response).status(), "readers share");

        FakeCall queuedWriter = acquire(4, 3, EXCLUSIVE);
        assertEquals(RpcLockFrame.STATUS_BUSY, RpcLockFrame.decodeResponse(tryAcquire(5, 3, SHARED).response).status(),
                "a try does not overtake a queued request (FIFO) even when compatible with the holders");
        released(1, 3, SHARED, 0);
        released(3, 3, SHARED, 0);
        assertEquals(1, queuedWriter.granted().token());
        released(4, 3, EXCLUSIVE, 1);
        Response again = RpcLockFrame.decodeResponse(tryAcquire(2, 3, EXCLUSIVE).response);
        assertEquals(RpcLockFrame.STATUS_GRANTED, again.status());
        assertEquals(2, again.token());
    }

    @Test
    void badRequestsFailAndChangeNothing() {
        acquire(1, 0, EXCLUSIVE).granted();
        FakeCall waiter = acquire(2, 0, SHARED);
        RpcLockServer.View before = server.view(0);
        long regionBefore = region.read8(0);

        byte[] unknownOp = RpcLockFrame.acquire(0, EXCLUSIVE, false);
        unknownOp[RpcLockFrame.OP_OFFSET] = 7;
        byte[] badMode = RpcLockFrame.acquire(0, EXCLUSIVE, false);
        badMode[RpcLockFrame.MODE_OFFSET] = 0;
        byte[] reserved = RpcLockFrame.acquire(0, EXCLUSIVE, false);
        reserved[RpcLockFrame.RESERVED_OFFSET + 1] = 1;
        byte[] release = RpcLockFrame.release(0, EXCLUSIVE, 1);
        List<byte[]> bad = List.of(
                new byte[0],
                new byte[3],
                unknownOp,
                badMode,
                reserved,
                Arrays.copyOf(RpcLockFrame.acquire(0, EXCLUSIVE, false), RpcLockFrame.ACQUIRE_BYTES - 1),
                Arrays.copyOf(release, RpcLockFrame.RELEASE_BYTES - 1),
                Arrays.copyOf(release, RpcLockFrame.ACQUIRE_BYTES),
                Arrays.copyOf(RpcLockFrame.acquire(0, EXCLUSIVE, false), RpcLockFrame.RELEASE_BYTES),
                RpcLockFrame.acquire(-1, EXCLUSIVE, false),
                RpcLockFrame.acquire(LOCKS, SHARED, false),
                RpcLockFrame.acquire(Long.MAX_VALUE, SHARED, true),
                RpcLockFrame.release(LOCKS, EXCLUSIVE, 1));
        for (byte[] request : bad) {
            FakeCall c = new FakeCall(1, request);
            server.handle(c);
            assertEquals(1, c.completions, "answered once: " + Arrays.toString(request));
            assertTrue(c.failure != null && c.failure.startsWith("rpc lock server: "), "a clear error: " + c.failure);
        }
        String[] notHeld = {
                release(3, 0, EXCLUSIVE, 1).failure, // another client
                release(1, 0, SHARED, 1).failure, // the holder, wrong mode
                release(1, 0, EXCLUSIVE, 0).failure, // the holder, stale token
                release(1, 0, EXCLUSIVE, 2).failure, // the holder, future token
                release(2, 0, SHARED, 1).failure, // a waiter, not yet granted
                release(1, 1, EXCLUSIVE, 0).failure, // a lock nobody holds
        };
        for (String f : notHeld) {
            assertTrue(f != null && f.contains("does not hold"), "release of a lock not held fails: " + f);
        }
        assertTrue(notHeld[0].contains("held exclusive by 0.1"), notHeld[0]);
        assertEquals(before, server.view(0), "the lock's state is unchanged");
        assertEquals(regionBefore, region.read8(0));
        assertEquals(new RpcLockServer.View(null, List.of(), List.of(), 0), server.view(1));
        assertEquals(1, server.liveLocks(), "no state was created for a failed request");
        assertTrue(waiter.pending());

        released(1, 0, EXCLUSIVE, 1);
        assertEquals(1, waiter.granted().token(), "the lock still works after the bad requests");
    }

    @Test
    void frameRoundTripsAndHasTheDocumentedBytes() {
        byte[] a = RpcLockFrame.acquire(0x0102030405060708L, SHARED, true);
        assertArrayEquals(new byte[] {2, 1, 0, 0, 0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1}, a, "little-endian lock id");
        assertEquals(new RpcLockFrame.Request(RpcLockFrame.OP_TRY_ACQUIRE, SHARED, 0x0102030405060708L, 0),
                RpcLockFrame.decodeRequest(a));
        byte[] r = RpcLockFrame.release(5, EXCLUSIVE, -2);
        assertEquals(RpcLockFrame.RELEASE_BYTES, r.length);
        assertEquals(new RpcLockFrame.Request(RpcLockFrame.OP_RELEASE, EXCLUSIVE, 5, -2), RpcLockFrame.decodeRequest(r));
        assertEquals(new Response(RpcLockFrame.STATUS_GRANTED, EXCLUSIVE, 77),
                RpcLockFrame.decodeResponse(RpcLockFrame.response(RpcLockFrame.STATUS_GRANTED, EXCLUSIVE, 77)));
        assertThrows(IllegalArgumentException.class, () -> RpcLockFrame.decodeResponse(new byte[8]));
        byte[] badStatus = RpcLockFrame.response(RpcLockFrame.STATUS_BUSY, null, 0);
        badStatus[RpcLockFrame.STATUS_OFFSET] = 9;
        assertThrows(IllegalArgumentException.class, () -> RpcLockFrame.decodeResponse(badStatus));
    }

    /**
     * Many threads call the handler at once, as the local fabric's clients do: every grant is
     * eventually replied, exclusive holders never overlap (a plain counter they increment stays
     * exact) and every lock ends idle.
     */
    @Test
    void concurrentCallersNeverOverlapAndAllAreServed() throws Exception {
        int threads = 4;
        int cycles = 5_000;
        long[] guarded = new long[(int) LOCKS];
        List<Throwable> errors = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            int client = t + 1;
            pool.execute(() -> {
                try {
                    java.util.SplittableRandom rnd = new java.util.SplittableRandom(client);
                    for (int i = 0; i < cycles; i++) {
                        int lock = rnd.nextInt((int) LOCKS);
                        Mode mode = rnd.nextInt(4) == 0 ? SHARED : EXCLUSIVE;
                        FakeCall c = new FakeCall(client, RpcLockFrame.acquire(lock, mode, false));
                        server.handle(c);
                        c.awaitCompletion(); // another thread's release replies
                        Response g = c.granted();
                        if (mode == EXCLUSIVE) {
                            guarded[lock]++; // unsynchronized on purpose: only the lock protects it
                        }
                        FakeCall r = new FakeCall(client, RpcLockFrame.release(lock, mode, g.token()));
                        server.handle(r);
                        if (r.failure != null) {
                            throw new AssertionError(r.failure);
                        }
                    }
                } catch (Throwable e) {
                    synchronized (errors) {
                        errors.add(e);
                    }
                } finally {
                    done.countDown();
                }
            });
        }
        assertTrue(done.await(60, TimeUnit.SECONDS), "all callers finished");
        pool.shutdown();
        assertEquals(List.of(), errors);
        long exclusive = 0;
        for (int l = 0; l < LOCKS; l++) {
            assertEquals(region.read8((long) l * RpcLockServer.FENCE_WORD_BYTES), guarded[l],
                    "each exclusive grant counted once, no lost update: lock " + l);
            exclusive += guarded[l];
        }
        assertTrue(exclusive > 0);
        assertEquals(0, server.liveLocks(), "every lock ended idle");
    }
}
