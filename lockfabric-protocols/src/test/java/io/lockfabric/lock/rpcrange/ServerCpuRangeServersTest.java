package io.lockfabric.lock.rpcrange;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.RegionAccess;
import io.lockfabric.fabric.RpcCall;
import io.lockfabric.fabric.RpcHandler;
import io.lockfabric.fabric.memory.MemoryRegion;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.rpcrange.RpcRangeFrame.Response;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.util.function.Function;

import static io.lockfabric.lock.Mode.EXCLUSIVE;
import static io.lockfabric.lock.Mode.SHARED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The {@code mt} and {@code llc} servers' grant logic, driven with fake rpc calls (no fabric). */
class ServerCpuRangeServersTest {
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

    private static FakeCall acquire(RpcHandler s, int client, long start, long end, Mode mode) {
        var c = new FakeCall(client, RpcRangeFrame.acquire(start, end, mode));
        s.handle(c);
        return c;
    }

    private static FakeCall release(RpcHandler s, int client, long start, long end, FakeCall granted) {
        Response g = granted.decoded();
        var c = new FakeCall(client, RpcRangeFrame.release(start, end, g.mode(), g.grantId(), g.token()));
        s.handle(c);
        return c;
    }

    @ParameterizedTest
    @ValueSource(strings = {"mt", "llc"})
    void readersShareWritersWaitReleasesWakeAndFencingCounts(String name) {
        try (Arena arena = Arena.ofShared()) {
            RegionAccess region = new MemoryRegion(1, 8, new byte[0], arena);
            Function<RegionAccess, RpcHandler> make = name.equals("mt") ? MtServer::new : LlcServer::new;
            RpcHandler s = make.apply(region);
            FakeCall w1 = acquire(s, 1, 0, 10, EXCLUSIVE);
            assertEquals(1, w1.decoded().token(), "the first exclusive grant");
            FakeCall r1 = acquire(s, 2, 5, 20, SHARED);
            FakeCall r2 = acquire(s, 3, 15, 30, SHARED);
            assertNull(r1.response, "a reader overlapping a writer waits");
            assertEquals(1, r2.decoded().token(), "a disjoint reader is granted with the current count");
            FakeCall w2 = acquire(s, 4, 25, 26, EXCLUSIVE);
            assertNull(w2.response, "a writer overlapping a reader waits");
            FakeCall bad = release(s, 9, 0, 10, w1);
            assertNotNull(bad.failure, "a release by another client is refused");
            assertEquals(RpcRangeFrame.STATUS_RELEASED, release(s, 1, 0, 10, w1).decoded().status());
            assertEquals(SHARED, r1.decoded().mode(), "the release woke the reader");
            assertNotNull(release(s, 1, 0, 10, w1).failure, "released twice");
            assertNull(w2.response);
            release(s, 3, 15, 30, r2);
            assertEquals(2, w2.decoded().token(), "the reader's release woke the writer, second exclusive grant");
            release(s, 2, 5, 20, r1);
            release(s, 4, 25, 26, w2);
            FakeCall again = acquire(s, 5, 0, 100, EXCLUSIVE);
            assertEquals(3, again.decoded().token(), "everything released");
        }
    }
}
