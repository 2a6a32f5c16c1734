package io.lockfabric.lock.rmarw;

import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import io.lockfabric.check.LockStress;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** rmarw's two thresholds on the deterministic simulator. */
class RmaRwThresholdTest {
    private static final long US = 1_000;

    private static SimFabric fabric(long seed) {
        return new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(4).seed(seed).build());
    }

    /**
     * Writer W0 holds; W1..W6 queue behind it, then reader R arrives (write flag set: it waits).
     * With write-threshold 4 the lock passes W0 → W1 → W2 → W3, then to the readers (R), and
     * only then to W4, the new head, and on.
     */
    @Test
    void afterWriteThresholdWritersTheWaitingReaderGoesFirst() {
        try (SimFabric fabric = fabric(3)) {
            LockProtocol rmarw = LockProtocols.byName("rmarw");
            LockOptions options = LockOptions.of(Map.of("write-threshold", 4L));
            List<String> order = Collections.synchronizedList(new ArrayList<>());
            List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
            List<ClientThread> threads = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                int client = c;
                boolean reader = c == 7;
                Endpoint e = fabric.newEndpoint();
                LockClient locks = rmarw.open(e, "wt", 1, options);
                threads.add(fabric.spawn("c" + c, () -> {
                    e.clock().sleepNanos(client * 10 * US);
                    Grant g = locks.acquire(0, reader ? Mode.SHARED : Mode.EXCLUSIVE);
                    order.add(reader ? "R" : "W" + client);
                    tokens.add(g.fencingToken());
                    e.clock().sleepNanos(client == 0 ? 200 * US : 5 * US);
                    locks.release(g);
                }));
            }
            threads.forEach(ClientThread::join);
            assertEquals(List.of("W0", "W1", "W2", "W3", "R", "W4", "W5", "W6"), order);
            assertEquals(tokens.get(3) + 1, tokens.get(4), "the reader's token follows the last writer's: " + tokens);
            assertEquals(tokens.get(4), tokens.get(5), "the new head continues the count: " + tokens);
        }
    }

    /**
     * With reader-threshold 3, three readers fill the counter; a fourth is refused until they have
     * left and the last one reset the counters, then gets in.
     */
    @Test
    void aReaderOverTheThresholdWaitsForTheReset() {
        try (SimFabric fabric = fabric(4)) {
            LockProtocol rmarw = LockProtocols.byName("rmarw");
            LockOptions options = LockOptions.of(Map.of("reader-threshold", 3L));
            long[] releasedAt = new long[4];
            long[] grantedAt = new long[4];
            LockStats[] stats = new LockStats[4];
            List<ClientThread> threads = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                int client = c;
                Endpoint e = fabric.newEndpoint();
                LockClient locks = rmarw.open(e, "rt", 1, options);
                threads.add(fabric.spawn("r" + c, () -> {
                    e.clock().sleepNanos(client * 10 * US);
                    Grant g = locks.acquire(0, Mode.SHARED);
                    grantedAt[client] = fabric.observerNanoTime();
                    e.clock().sleepNanos(client < 3 ? 100 * US : 5 * US);
                    releasedAt[client] = fabric.observerNanoTime();
                    locks.release(g);
                    stats[client] = locks.stats();
                }));
            }
            threads.forEach(ClientThread::join);
            for (int c = 0; c < 3; c++) {
                assertTrue(grantedAt[c] < grantedAt[1] + 50 * US, "the first three share at once");
                assertTrue(grantedAt[3] > releasedAt[c], "the fourth waits for reader " + c + " to leave");
            }
            assertTrue(stats[3].retries() >= 1, "the fourth was refused: " + stats[3]);
            long resets = 0;
            for (LockStats s : stats) {
                resets += s.resets();
            }
            assertTrue(resets >= 1, "someone reset the counters");
        }
    }

    /** The contract stress with tiny thresholds: mode changes and counter resets all the time. */
    @Test
    void tinyThresholdsKeepMutualExclusion() {
        try (SimFabric fabric = fabric(9)) {
            var options = LockOptions.of(Map.of("write-threshold", 2L, "reader-threshold", 3L));
            var cfg = LockStress.Config.of(8, 2, 0.9, 0.6, 1_000).withOptions(options);
            var result = LockStress.run(fabric, LockProtocols.byName("rmarw"), cfg);
            assertTrue(result.violations().isEmpty(), result.summary());
            assertTrue(result.sharedGrants() > 0 && result.exclusiveGrants() > 0);
            assertTrue(result.stats().resets() > 0, "counters were reset: " + result.stats());
        }
    }
}
