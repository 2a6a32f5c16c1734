package io.lockfabric.bench;

import io.lockfabric.bench.point.PointWorkload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;

import io.lockfabric.check.HistoryFile;
import io.lockfabric.fabric.TableSpec;

import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.io.PrintStream;

import org.junit.jupiter.api.Test;

/** Runs on shared tables ({@link Runner#withSharedTable}): one table per protocol and name, reused. */
class SharedTableRunnerTest {
    private static PointWorkload config(long locks) {
        return PointWorkload.builder().clients(2).locks(locks).operations(200).warmupNs(0).seed(3).build();
    }

    @Test
    void runsWithOneNameShareTheTableAndAnotherShapeIsRefused() {
        LockProtocol cas = LockProtocols.byName("cas");
        try (LocalFabric fabric = LocalFabric.builder().seed(1).build()) {
            Runner runner = new Runner(RunDriver.threads(fabric), false,
                    new PrintStream(OutputStream.nullOutputStream())).withSharedTable("s1");
            assertEquals(200, runner.run(cas, config(8)).measuredOps());
            assertEquals(200, runner.run(cas, config(8)).measuredOps(), "a second run opens the same table");
            try (Endpoint e = fabric.newEndpoint()) {
                assertNotNull(e.openTable(cas.tableSpec("bench-cas-s1", 8, LockOptions.DEFAULTS)), "named after s1");
                assertThrows(TableMismatchException.class, () -> e.openTable(cas.tableSpec("bench-cas-s1", 9,
                        LockOptions.DEFAULTS)), "it exists with 8 locks");
            }
            assertThrows(TableMismatchException.class, () -> runner.run(cas, config(16)), "another lock count");
            // checked on a shared table: its own holds here, every process's by a merged check of the histories
            List<HistoryFile.Run> recorded = new ArrayList<>();
            RunResult checked = runner.withHistoryObserver(recorded::add).run(cas, config(8).withCheck(true));
            assertTrue(checked.check().clean(), checked.check().summary());
            assertEquals(1, recorded.size());
            HistoryFile.Run run = recorded.getFirst();
            assertEquals(List.of("point", "cas", "bench-cas-s1"), List.of(run.kind(), run.protocol(), run.table()));
            assertEquals(cas.strictFencing(), run.strictFencing());
            assertEquals(checked.check().holds(), run.holds().size());
            try (Endpoint e = fabric.newEndpoint()) {
                // a table of that name would have the guarded counters' shape, and this one would be refused
                assertNotNull(e.openTable(new TableSpec("bench-cas-s1-guard", "probe", 1, 8)),
                        "no guarded counters on a shared table");
            }
            for (String bad : new String[] {"", "a b", "x/y", "z".repeat(65)}) {
                assertThrows(IllegalArgumentException.class, () -> runner.withSharedTable(bad), bad);
            }
        }
    }
}
