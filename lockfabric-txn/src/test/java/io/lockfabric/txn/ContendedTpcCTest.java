package io.lockfabric.txn;

import io.lockfabric.LockFabric;
import io.lockfabric.SpaceOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Deadlock freedom under a contended TPC-C mix on the local fabric: one warehouse, a small table
 * (so keys share slots too), more clients than endpoints; every client keeps committing to the end.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ContendedTpcCTest {
    @Test
    void oneWarehouseEightClientsFourEndpointsNeverDeadlock() throws Exception {
        TpcC w = new TpcC(1, 3, 3, 20);
        for (String protocol : new String[]{"shiftlock", "dslr", "mcs"}) {
            try (LockFabric lf = LockFabric.builder("local").poolSize(4).open()) {
                LockFabricLocker locker = new LockFabricLocker(lf.lockSpace("tpcc-" + protocol,
                        SpaceOptions.builder().protocol(protocol).slots(64).build()));
                TxnResult r = new TxnRunner(Thread.ofPlatform().factory(), System::nanoTime, ns -> { })
                        .run(w, locker, new TxnRunner.Settings(8, 0, TimeUnit.MILLISECONDS.toNanos(400), 5), null);
                System.out.printf("%s: %d committed, NewOrder p99 %d us%n", protocol, r.all().committed(),
                        r.type(TpcC.NEW).p99Ns() / 1000);
                // a deadlock would keep a client from ever returning: the run would not end
                assertTrue(r.all().committed() > 20, protocol + " committed " + r.all().committed());
                assertEquals(0, locker.space().stats().abandoned());
            }
        }
    }
}
