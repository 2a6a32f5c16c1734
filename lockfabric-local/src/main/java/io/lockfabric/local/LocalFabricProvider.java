package io.lockfabric.local;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricAddress;
import io.lockfabric.fabric.FabricProvider;

import java.util.List;

/**
 * Opens {@code local[:mns=N,seed=N,capacity=BYTES]}: a {@link LocalFabric} with {@code mns}
 * memory nodes (default {@value LocalFabric#DEFAULT_MEMORY_NODES}) of {@code capacity} bytes each,
 * endpoints seeded from {@code seed}. Found by {@link io.lockfabric.fabric.Fabrics#open}.
 */
public final class LocalFabricProvider implements FabricProvider {
    @Override
    public String scheme() {
        return "local";
    }

    @Override
    public String usage() {
        return "local[:mns=N,seed=N,capacity=BYTES]";
    }

    @Override
    public List<String> parameters() {
        return List.of("mns", "seed", "capacity");
    }

    @Override
    public Fabric open(FabricAddress address) {
        if (!address.location().isEmpty()) {
            throw new IllegalArgumentException("fabric local has no location: give " + usage() + ", not '" + address + "'");
        }
        return LocalFabric.builder()
                .memoryNodes(address.intParameter("mns", LocalFabric.DEFAULT_MEMORY_NODES, 1, 1024))
                .seed(address.longParameter("seed", LocalFabric.DEFAULT_SEED, Long.MIN_VALUE, Long.MAX_VALUE))
                .capacityBytesPerNode(address.longParameter("capacity",
                        io.lockfabric.fabric.memory.MemoryNode.DEFAULT_CAPACITY_BYTES, 1, Long.MAX_VALUE))
                .build();
    }
}
