package io.lockfabric.check;

import org.junit.jupiter.api.Tag;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.local.LocalFabric;

/** The range exclusion contract on the local fabric (threads, real time). */
@Tag("stress")
class LocalRangeExclusionTest extends RangeExclusionContractTest {
    @Override
    protected Fabric newFabric() {
        return LocalFabric.builder().build();
    }

    @Override
    protected int opsPerClient() {
        return 2_000;
    }
}
