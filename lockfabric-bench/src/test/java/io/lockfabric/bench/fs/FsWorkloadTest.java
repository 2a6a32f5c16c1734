package io.lockfabric.bench.fs;

import io.lockfabric.apps.fs.FsLockManager;
import io.lockfabric.bench.Phases;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.bench.sim.SimDriver;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fs workloads at a small scale on the simulator: they run, move bytes of every kind, and check clean. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FsWorkloadTest {
    static final FsTrace.Oltp SMALL_OLTP = new FsTrace.Oltp(2, 1 << 20, 1, 2, 10, 8192, 256 * 1024, 100, 1000, 40);

    static RunResult sim(FsWorkload w, String manager, int cns, int perCn, int mns) {
        SimConfig c = SimConfig.defaults().toBuilder().computeNodes(cns).clientsPerComputeNode(perCn).memoryNodes(mns)
                .mnLinkGbps(100).seed(w.seed()).build();
        try (SimFabric fabric = new SimFabric(c)) {
            return new Runner(new SimDriver(fabric), false, System.err).run(FsLockManager.byName(manager), w);
        }
    }

    @Test
    void oltpRunsEveryKindAndChecksClean() {
        for (String manager : List.of("citron", "mutex")) {
            FsWorkload w = new FsWorkload(new Phases(13, 3_000_000, 0, 1_000_000, 3), SMALL_OLTP, false, false,
                    List.of("ss.segment=4096"));
            RunResult r = sim(w, manager, 1, 13, 2);
            assertTrue(r.check().clean(), manager + ": " + r.check().summary());
            for (int k = 0; k < 3; k++) {
                assertTrue(r.kind(k).operations() > 0, manager + ": kind " + k + " measured");
            }
            assertTrue(FsReport.megabytesPerSecond(r) > 0);
            System.out.println(manager + " oltp: " + FsReport.opsPerSecond(r) + " ops/s, " + FsReport.megabytesPerSecond(r)
                    + " MB/s, read p99 " + r.kind(0).latency().p99Us());
        }
    }

    @Test
    void btioWritesThenReadsBackItsOwnBytes() {
        FsTrace.BtIo t = FsTrace.BtIo.classD(4, 4, 1);
        assertEquals(8160, t.granularity());
        FsWorkload w = new FsWorkload(new Phases(4, 2_000_000, 0, 200_000, 5), t, false, false, List.of());
        RunResult r = sim(w, "citron", 2, 2, 3);
        assertTrue(r.check().clean(), r.check().summary());
        assertTrue(r.kind(FsTrace.BtIo.WRITE).operations() > 0 && r.kind(FsTrace.BtIo.READ).operations() > 0,
                r.kind(FsTrace.BtIo.WRITE).operations() + " writes, " + r.kind(FsTrace.BtIo.READ).operations() + " reads");
        assertThrows(IllegalArgumentException.class, () -> FsTrace.BtIo.classD(3, 8, 2));
    }

    @Test
    void hardWriteGrowsTheFileAndScalesCitronUp() {
        FsWorkload w = new FsWorkload(new Phases(8, 2_000_000, 0, 200_000, 7),
                new FsTrace.HardWrite(FsTrace.HardWrite.IO500_WRITE_BYTES, true, 8L << 20), false, false,
                List.of("citron.units=1024", "citron.scale-poll-ns=100us"));
        RunResult r = sim(w, "citron", 1, 8, 2);
        assertTrue(r.check().clean(), r.check().summary());
        assertTrue(r.kind(0).operations() > 0);
    }
}
