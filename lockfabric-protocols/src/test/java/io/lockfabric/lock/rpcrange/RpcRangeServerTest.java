package io.lockfabric.lock.rpcrange;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.RpcCall;
import io.lockfabric.fabric.memory.MemoryRegion;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.rpcrange.RpcRangeFrame.Response;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;

import static io.lockfabric.lock.Mode.EXCLUSIVE;
import static io.lockfabric.lock.Mode.SHARED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The range server's grant logic, driven with fake rpc calls (no fabric). */
class RpcRangeServerTest {
    private final Arena arena = Arena.ofShared();
    private final MemoryRegion region = new MemoryRegion(1, RpcRangeServer.TABLE_BYTES, new byte[0], arena);
    private final RpcRangeServer server = new RpcRangeServer(region);

    @AfterEach
    void close() {
        arena.close();
    }

    private static final class FakeCall implements RpcCall {
        private final EndpointId caller;
        private final byte[] request;
        byte[] response;
        String failure;

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
        public void reply(byte[] r) {
            if (response != null || failure != null) {
                throw new AssertionError("completed twice");
            }
            response = r.clone();
        }

        @Override
        public void fail(String reason) {
            if (response != null || failure != null) {
                throw new AssertionError("completed twice");
            }
            failure = reason;
        }

        Response decoded() {
            assertNull(failure);
            assertNotNull(response, "replied");
            return RpcRangeFrame.decodeResponse(response);
        }
    }

    private FakeCall acquire(int client, long start, long end, Mode mode) {
        var c = new FakeCall(client, RpcRangeFrame.acquire(start, end, mode));
        server.handle(c);
        return c;
    }

    private FakeCall release(int client, long start, long end, Mode mode, Response grant) {
        var c = new FakeCall(client, RpcRangeFrame.release(start, end, mode, grant.grantId(), grant.token()));
        server.handle(c);
        return c;
    }

    @Test
    void conflictingRequestsWaitAndAreGrantedOnRelease() {
        FakeCall a = acquire(1, 10, 20, EXCLUSIVE);
        assertEquals(1, a.decoded().token(), "first exclusive grant");
        FakeCall b = acquire(2, 15, 30, EXCLUSIVE);
        FakeCall c = acquire(3, 20, 40, EXCLUSIVE); // overlaps waiting b, not holder a: waits behind b (FIFO)
        FakeCall d = acquire(4, 40, 50, EXCLUSIVE); // overlaps nothing
        assertNull(b.response);
        assertNull(c.response);
        assertNotNull(d.response, "disjoint: granted at once");
        assertArrayEquals(new int[] {2, 2}, server.counts());
        assertEquals(RpcRangeFrame.STATUS_RELEASED, release(1, 10, 20, EXCLUSIVE, a.decoded()).decoded().status());
        assertNotNull(b.response, "b granted by a's release");
        assertNull(c.response, "c overlaps b");
        release(2, 15, 30, EXCLUSIVE, b.decoded());
        assertNotNull(c.response);
        assertEquals(4, c.decoded().token(), "tokens count exclusive grants: a, d, b, c");
    }

    @Test
    void sharedRangesAreGrantedTogether() {
        FakeCall w = acquire(1, 0, 100, EXCLUSIVE);
        FakeCall r1 = acquire(2, 10, 20, SHARED);
        FakeCall r2 = acquire(3, 15, 25, SHARED);
        FakeCall w2 = acquire(4, 18, 19, EXCLUSIVE);
        FakeCall r3 = acquire(5, 17, 30, SHARED); // behind waiting writer w2, which it overlaps
        release(1, 0, 100, EXCLUSIVE, w.decoded());
        assertEquals(SHARED, r1.decoded().mode());
        assertEquals(SHARED, r2.decoded().mode());
        assertEquals(1, r1.decoded().token(), "a reader's token is the exclusive count");
        assertNull(w2.response);
        assertNull(r3.response, "FIFO: a reader does not pass a waiting writer it overlaps");
        release(2, 10, 20, SHARED, r1.decoded());
        assertNull(w2.response);
        release(3, 15, 25, SHARED, r2.decoded());
        assertEquals(2, w2.decoded().token());
        assertNull(r3.response);
        release(4, 18, 19, EXCLUSIVE, w2.decoded());
        assertNotNull(r3.response);
        FakeCall r4 = acquire(6, 0, 50, SHARED);
        assertNotNull(r4.response, "readers share");
    }

    @Test
    void badRequestsAndForeignReleasesAreFailedAndChangeNothing() {
        FakeCall a = acquire(1, 10, 20, EXCLUSIVE);
        Response g = a.decoded();
        FakeCall empty = acquire(2, 5, 5, EXCLUSIVE);
        assertNotNull(empty.failure);
        FakeCall truncated = new FakeCall(2, new byte[3]);
        server.handle(truncated);
        assertNotNull(truncated.failure);
        assertNotNull(release(2, 10, 20, EXCLUSIVE, g).failure, "not the caller's grant");
        assertNotNull(release(1, 10, 21, EXCLUSIVE, g).failure, "wrong range");
        var badToken = new FakeCall(1, RpcRangeFrame.release(10, 20, EXCLUSIVE, g.grantId(), g.token() + 1));
        server.handle(badToken);
        assertNotNull(badToken.failure);
        assertArrayEquals(new int[] {1, 0}, server.counts());
        assertEquals(RpcRangeFrame.STATUS_RELEASED, release(1, 10, 20, EXCLUSIVE, g).decoded().status());
        assertNotNull(release(1, 10, 20, EXCLUSIVE, g).failure, "released twice");
        assertThrows(IllegalArgumentException.class, () -> RpcRangeFrame.decodeResponse(new byte[5]));
    }
}
