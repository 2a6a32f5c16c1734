package io.lockfabric.apps.fs;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.Fabrics;
import io.lockfabric.net.TcpMemoryNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CitronFS's POSIX-like semantics under concurrent I/O ({@link FsStress}: no torn 8 KiB block, every
 * read returns the last overlapping write before it) on the local fabric with real threads for every
 * kind of lock manager, with shared reads, and on tcp against a loopback memory node in this JVM.
 */
@Tag("stress")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FsStressTest {
    static final FsOptions OPTIONS = FsOptions.DEFAULTS.withMaxFiles(4).withExtents(16, 16_384)
            .withDataBytesPerNode(4 << 20);

    @Test
    void concurrentReadersAndWritersSeeWholeBlocksAndTheLastWriteOnLocal() {
        for (String manager : List.of("citron", "ss", "rpc-range", "mutex")) {
            for (boolean shared : new boolean[] {false, true}) {
                try (Fabric fabric = Fabrics.open("local")) {
                    FsStress.Outcome o = FsStress.run(fabric, "stress-" + manager + "-" + shared,
                            OPTIONS.withLockManager(manager).withSharedReads(shared)
                                    .withLockOptions(manager.equals("ss") ? List.of("segment=4096") : List.of()),
                            6, 150, 24, 0.6, 11, null);
                    assertTrue(o.writes() > 0 && o.reads() > 0, manager + ": " + o);
                }
            }
        }
    }

    @Test
    void concurrentReadersAndWritersSeeWholeBlocksAndTheLastWriteOnTcp() throws Exception {
        java.util.logging.Logger.getLogger(TcpMemoryNode.class.getName()).setLevel(java.util.logging.Level.WARNING);
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start();
             Fabric fabric = Fabrics.open(server.uri())) {
            FsStress.Outcome o = FsStress.run(fabric, "tcp-citron", OPTIONS, 4, 40, 16, 0.6, 12, null);
            assertTrue(o.writes() > 0 && o.reads() > 0, o.toString());
        }
    }
}
