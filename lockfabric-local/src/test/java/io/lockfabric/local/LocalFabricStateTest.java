package io.lockfabric.local;

import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.lockfabric.fabric.Endpoint;

import org.junit.jupiter.api.Test;

/** The local fabric is one compute node: its endpoints share the node's state; each keeps its own too. */
class LocalFabricStateTest {
    private static final class Shared {
    }

    @Test
    void everyEndpointIsOnTheOneComputeNode() {
        try (LocalFabric fabric = LocalFabric.builder().memoryNodes(2).build(); LocalFabric other = LocalFabric.builder().build()) {
            Endpoint a = fabric.newEndpoint();
            Endpoint b = fabric.newEndpoint();
            Shared node = a.computeNode().computeIfAbsent(Shared.class, Shared::new);
            assertSame(node, b.computeNode().getIfPresent(Shared.class), "one compute node");
            assertSame(node, fabric.newEndpointBeside(b).computeNode().getIfPresent(Shared.class));
            assertNull(other.newEndpoint().computeNode().getIfPresent(Shared.class), "another fabric, another node");
            Shared own = a.attachments().computeIfAbsent(Shared.class, Shared::new);
            assertNotSame(node, own);
            assertNull(b.attachments().getIfPresent(Shared.class), "an endpoint's own state is its own");
            Shared all = fabric.attachments().computeIfAbsent(Shared.class, Shared::new);
            assertNotSame(node, all, "the fabric's scope is not the node's, even with one node");
            assertSame(all, b.fabric().attachments().getIfPresent(Shared.class));
        }
    }
}
