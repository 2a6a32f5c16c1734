package io.lockfabric.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.ForwardingEndpoint;

import org.junit.jupiter.api.Test;

/**
 * The state the simulator gives out per scope: each endpoint its own, each simulated compute node
 * one shared by its clients (and their background endpoints), the whole fabric one.
 */
class SimComputeNodeStateTest {
    /** A protocol's per-scope object: anything of a class of its own. */
    private static final class Shared {
    }

    @Test
    void clientsOfOneComputeNodeShareItsStateAndClientsOfTwoDoNot() {
        SimConfig config = SimConfig.builder().computeNodes(2).clientsPerComputeNode(2).seed(7).build();
        try (SimFabric fabric = new SimFabric(config)) {
            Endpoint a0 = fabric.newEndpoint();
            Endpoint b0 = fabric.newEndpoint();
            Endpoint a1 = fabric.newEndpoint();
            Endpoint b1 = fabric.newEndpoint();
            assertEquals(0, a0.id().node());
            assertEquals(1, a1.id().node());

            Shared cn0 = a0.computeNode().computeIfAbsent(Shared.class, Shared::new);
            assertSame(cn0, b0.computeNode().computeIfAbsent(Shared.class, Shared::new), "within compute node 0");
            assertNull(a1.computeNode().getIfPresent(Shared.class), "compute node 1 has none yet");
            Shared cn1 = b1.computeNode().computeIfAbsent(Shared.class, Shared::new);
            assertNotSame(cn0, cn1, "one per compute node");
            assertSame(cn1, a1.computeNode().getIfPresent(Shared.class), "within compute node 1");

            Endpoint beside = fabric.newEndpointBeside(a1);
            assertSame(cn1, beside.computeNode().getIfPresent(Shared.class), "a background endpoint is on its client's node");
            assertSame(cn0, new ForwardingEndpoint(b0).computeNode().getIfPresent(Shared.class),
                    "a wrapped endpoint is on the node of the endpoint it wraps");

            Shared own = a0.attachments().computeIfAbsent(Shared.class, Shared::new);
            assertNotSame(cn0, own, "an endpoint's own scope is not its node's");
            assertNull(b0.attachments().getIfPresent(Shared.class), "nor another endpoint's");

            Shared everyone = fabric.attachments().computeIfAbsent(Shared.class, Shared::new);
            assertSame(everyone, a1.fabric().attachments().getIfPresent(Shared.class), "one for the whole fabric");
            assertNotSame(cn0, everyone);
        }
    }

    @Test
    void twoFabricsShareNothing() {
        try (SimFabric one = new SimFabric(SimConfig.defaults()); SimFabric two = new SimFabric(SimConfig.defaults())) {
            Shared mine = one.newEndpoint().computeNode().computeIfAbsent(Shared.class, Shared::new);
            assertNull(two.newEndpoint().computeNode().getIfPresent(Shared.class), "another fabric's node 0");
            assertNull(two.attachments().getIfPresent(Shared.class));
            assertSame(mine, one.newEndpoint().computeNode().getIfPresent(Shared.class));
        }
    }
}
