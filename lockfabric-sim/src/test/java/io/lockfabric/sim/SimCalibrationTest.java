package io.lockfabric.sim;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Anchors of the default model other than the ShiftLock §2.3 experiment it is calibrated on (that
 * one is {@code ShiftLockRetryExperimentTest} in the bench module).
 */
@Tag("experiments")
class SimCalibrationTest {
    private static final int CLIENTS = 5;
    private static final int OPS = 1_000;
    /** ShiftLock Table 3 (write-intensive, 5 clients): a writer's initial 16-byte masked atomic, µs. */
    private static final double SHIFTLOCK_INITIAL_ATOMIC_US = 2.05;

    @Test
    void anUncontendedMaskedAtomicTakesAboutWhatShiftLockMeasured() {
        SimConfig cfg = SimConfig.builder().computeNodes(CLIENTS).clientsPerComputeNode(1).build();
        try (SimFabric fabric = new SimFabric(cfg)) {
            AtomicLong totalNs = new AtomicLong();
            List<ClientThread> threads = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                Endpoint e = fabric.newEndpoint();
                Table t = e.openTable(new TableSpec("entries", "test", CLIENTS, 16L * CLIENTS));
                long entry = t.address() + 16L * i;
                threads.add(fabric.spawn("c" + i, () -> {
                    for (int k = 0; k < OPS; k++) {
                        long start = fabric.observerNanoTime();
                        e.queuePair(0).maskedCas128(entry, Int128.ZERO, Int128.ZERO, new Int128(k, 0),
                                new Int128(-1, 0));
                        totalNs.addAndGet(fabric.observerNanoTime() - start);
                    }
                }));
            }
            threads.forEach(ClientThread::join);
            double meanUs = totalNs.get() / 1e3 / (CLIENTS * OPS);
            assertEquals(SHIFTLOCK_INITIAL_ATOMIC_US, meanUs, SHIFTLOCK_INITIAL_ATOMIC_US * 0.25,
                    "mean 16-byte masked atomic, 5 clients: " + meanUs + " µs");
        }
    }
}
