package io.lockfabric.bench.experiment.citron;

import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.ExperimentTable;
import io.lockfabric.bench.fs.FsTrace;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CitronFS's reproductions at a reduced scale: the key direction of each holds (byte-range locks
 * beat the inode mutex; CITRON's reader p99 under OLTP is below the mutex's) and every run checks clean.
 */
@Tag("experiments")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CitronFsExperimentsTest {
    private static double cell(ExperimentTable t, String row, int column) {
        for (List<String> r : t.cells()) {
            if (r.getFirst().equals(row)) {
                return Double.parseDouble(r.get(column));
            }
        }
        throw new AssertionError("no row " + row + " in " + t.title());
    }

    @Test
    void table2AtAReducedScaleCitronOutrunsTheInodeMutexWithALowerReaderTail() {
        FsTrace.Oltp small = new FsTrace.Oltp(4, 1 << 20, 1, 4, 20, 8192, 256 * 1024, 100, 1000, 3200);
        ExperimentResult r = new CitronFsTable2Experiment(small, 1).run(ExperimentSettings.defaults()
                .withWarmupNs(500_000).withDurationNs(2_000_000).withProtocols(List.of("citron", "mutex")));
        ExperimentTable t = r.tables().getFirst();
        assertEquals(2, t.cells().size(), t.toString());
        for (List<String> row : t.cells()) {
            assertEquals("ok", row.getLast(), row.toString());
        }
        assertTrue(cell(t, "CITRON", 2) > cell(t, "Mutex", 2), "throughput: " + t.cells());
        assertTrue(cell(t, "CITRON", 6) < cell(t, "Mutex", 6), "reader p99: " + t.cells());
        assertTrue(r.rows().stream().anyMatch(x -> x.caseName().equals("Mutex")), r.rows().toString());
    }

    @Test
    void fig8AtAReducedScaleCitronMovesMoreBytesThanTheInodeMutexAsProcessesGrow() {
        ExperimentResult r = new CitronFsFig8Experiment(new int[] {4, 16}, 8).run(ExperimentSettings.defaults()
                .withWarmupNs(200_000).withDurationNs(1_000_000).withProtocols(List.of("citron", "mutex")));
        ExperimentTable bw = r.tables().getFirst();
        assertTrue(cell(bw, "CITRON", 2) > cell(bw, "Mutex", 2), "16 processes: " + bw.cells());
        assertTrue(cell(bw, "CITRON", 2) > cell(bw, "CITRON", 1), "CITRON scales with processes: " + bw.cells());
        for (List<String> row : r.tables().get(2).cells()) {
            assertTrue(row.stream().skip(1).allMatch(c -> c.endsWith("ok")), row.toString());
        }
    }
}
