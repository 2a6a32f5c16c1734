package io.lockfabric.apps.btree;

import io.lockfabric.local.LocalFabric;
import io.lockfabric.net.TcpFabric;
import io.lockfabric.net.TcpMemoryNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every lock variant under concurrent increments, inserts (splits up to the root) and searches, on
 * the local fabric and on tcp (a memory node in this JVM on loopback); the check after each run.
 */
@Tag("stress")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BTreeStressTest {
    private static final BTreeOptions OPTIONS = BTreeOptions.DEFAULTS.withFanout(8).withCapacity(8_192).withLocks(256);

    /**
     * Leases no hold outlasts on a loaded machine, for the variants that recover: a holder descheduled
     * past its lease has its lock reset under it, and its late write then loses another's update (as
     * it would on RDMA; the simulator's fault runs stage that on purpose).
     */
    static java.util.List<String> longLease(String variant) {
        return variant.equals("shiftlock") || variant.equals("declock") ? java.util.List.of("lease-ns=5s")
                : java.util.List.of();
    }

    @Test
    void everyVariantKeepsEveryIncrementAndTheStructureOnTheLocalFabric() {
        for (String variant : BTreeLocks.VARIANTS) {
            try (LocalFabric fabric = LocalFabric.builder().build()) {
                BTreeStress.Outcome o = BTreeStress.run(fabric, "local-" + variant, OPTIONS.withLock(variant)
                                .withLockOptions(longLease(variant)),
                        6, 1_500, 2_000, 2, 0.3, 11);
                assertTrue(o.splits() > 20, variant + ": inserts split nodes: " + o.splits());
                assertTrue(o.increments() > 5_000, variant + ": " + o.increments());
            }
        }
    }

    @Test
    void everyVariantKeepsEveryIncrementOverTcp() {
        java.util.logging.Logger.getLogger(TcpMemoryNode.class.getName()).setLevel(java.util.logging.Level.WARNING);
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start();
        try {
            for (String variant : BTreeLocks.VARIANTS) {
                try (TcpFabric fabric = TcpFabric.connect(server.uri())) {
                    BTreeStress.Outcome o = BTreeStress.run(fabric, "tcp-" + variant, OPTIONS.withLock(variant)
                                    .withLockOptions(longLease(variant)),
                            4, 150, 400, 2, 0.3, 12);
                    assertTrue(o.splits() > 0, variant + ": inserts split nodes");
                }
            }
        } finally {
            server.close();
        }
    }
}
