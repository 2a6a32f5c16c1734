package io.lockfabric.check;

import org.junit.jupiter.api.Tag;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;

import java.util.List;

/** The mutual-exclusion contract on the local fabric: 8 threads × 12 500 cycles per protocol. */
@Tag("stress")
class LocalMutualExclusionTest extends MutualExclusionContractTest {
    @Override
    protected Fabric newFabric() {
        return LocalFabric.builder().build();
    }

    /**
     * Leases must outlast the longest time a live thread can be descheduled here. DrTM's readers never release: a reader must finish within {@code tx-time} of its grant, or a
     * writer may take the lock when the lease ends. Eight busy threads on a small shared machine
     * can be descheduled for milliseconds, far beyond the paper's 500 us, so here the lease is longer
     * (and, since every writer behind readers waits a lease out, drtm runs a quarter of the cycles).
     */
    @Override
    protected LockOptions optionsFor(LockProtocol protocol) {
        return switch (protocol.name()) {
            case "drtm" -> LockOptions.parse(List.of("lease-ns=4ms", "tx-time-ns=3ms"));
            // A reset takes a member that stays silent for a lease (100 ms) for dead. On a loaded
            // 2-core machine a live thread was once descheduled for 140 ms mid-hold, and the reset
            // granted a writer over its read lock: the lease hazard, not a protocol bug.
            case "cql", "declock-tf", "declock-pf" -> LockOptions.parse(List.of("lease-ns=2s"));
            // The same hazard for every protocol with a lease: a shiftlock holder descheduled for
            // 85 ms (load 15 on 2 cores) was taken for crashed and its lock recovered under it.
            default -> protocol.options().stream().anyMatch(o -> o.name().equals("lease-ns"))
                    ? LockOptions.parse(List.of("lease-ns=2s")) : LockOptions.DEFAULTS;
        };
    }

    @Override
    protected int opsPerClient(LockProtocol protocol) {
        return "drtm".equals(protocol.name()) ? opsPerClient() / 4 : opsPerClient();
    }
}
