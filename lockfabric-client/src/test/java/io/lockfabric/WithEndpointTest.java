package io.lockfabric;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link LockFabric#withEndpoint}: one client per endpoint and owner, data verbs on the memory node. */
class WithEndpointTest {
    /** What an application keeps on one endpoint: a data table opened once. */
    record DataClient(Endpoint endpoint, Table table) {
    }

    @Test
    void makesOneClientPerEndpointAndRunsTheBodyOnIt() throws Exception {
        try (LockFabric lf = LockFabric.builder("local").poolSize(2).open()) {
            Object owner = new Object();
            AtomicInteger opened = new AtomicInteger();
            Set<DataClient> seen = ConcurrentHashMap.newKeySet();
            java.util.function.Function<Endpoint, DataClient> open = ep -> {
                opened.incrementAndGet();
                return new DataClient(ep, ep.openTable(new TableSpec("with-endpoint-data", "data", 1, 64)));
            };
            Thread[] threads = new Thread[4];
            for (int t = 0; t < threads.length; t++) {
                threads[t] = Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < 200; i++) {
                        lf.withEndpoint(owner, DataClient.class, open, c -> {
                            seen.add(c);
                            return c.endpoint().queuePair(0).faa(c.table().address(), 1);
                        });
                    }
                });
            }
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(opened.get() >= 1 && opened.get() <= 2, "clients made: " + opened.get());
            assertEquals(opened.get(), seen.size());
            long total = lf.withEndpoint(owner, DataClient.class, open, c -> c.endpoint().queuePair(0).read8(c.table().address()));
            assertEquals(800, total, "every FAA of every thread landed on the one memory-node word");
        }
    }

    @Test
    void aTableOfAnotherShapeIsReportedAsSuchNotAsALostFabric() {
        try (LockFabric lf = LockFabric.open("local")) {
            lf.withEndpoint("a", Table.class, ep -> ep.openTable(new TableSpec("with-endpoint-shape", "data", 1, 64)), t -> t);
            assertThrows(io.lockfabric.fabric.TableMismatchException.class, () -> lf.withEndpoint("b", Table.class,
                    ep -> ep.openTable(new TableSpec("with-endpoint-shape", "data", 1, 128)), t -> t));
        }
    }

    @Test
    void refusesOnAClosedFabric() {
        LockFabric lf = LockFabric.open("local");
        lf.close();
        assertThrows(LockFabricException.class, () -> lf.withEndpoint(this, Object.class, ep -> new Object(), c -> c));
    }
}
