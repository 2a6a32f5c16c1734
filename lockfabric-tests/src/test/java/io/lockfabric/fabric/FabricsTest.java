package io.lockfabric.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.local.LocalFabric;
import io.lockfabric.net.TcpFabric;
import io.lockfabric.net.TcpMemoryNode;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Fabrics.open builds every installed fabric from its address, through the providers on the class path. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FabricsTest {
    @Test
    void everyFabricModuleRegistersItsScheme() {
        assertEquals(4, Fabrics.providers().size(), "one provider per fabric module: local, sim, net, shm");
        assertEquals(List.of("local", "shm", "sim", "tcp"),
                Fabrics.providers().stream().map(FabricProvider::scheme).sorted().toList());
    }

    @Test
    void localWithItsParameters() {
        try (Fabric f = Fabrics.open("local")) {
            assertInstanceOf(LocalFabric.class, f);
            assertEquals(1, f.memoryNodes());
        }
        try (Fabric f = Fabrics.open("local:mns=3,seed=5")) {
            assertEquals(3, f.memoryNodes());
        }
    }

    /** The cluster the command line builds from --cns, --clients-per-cn, --mns and --seed. */
    @Test
    void simWithTheCommandLinesTopology() {
        try (Fabric f = Fabrics.open("sim:cns=5,clients-per-cn=48,seed=7")) {
            SimConfig c = assertInstanceOf(SimFabric.class, f).config();
            assertEquals(5, c.computeNodes());
            assertEquals(48, c.clientsPerComputeNode());
            assertEquals(1, c.memoryNodes());
            assertEquals(7, c.seed());
            assertEquals(SimConfig.builder().computeNodes(5).clientsPerComputeNode(48).seed(7).build(), c,
                    "everything else is the calibrated default");
        }
        try (Fabric f = Fabrics.open("sim:cns=4,clients=16,mns=2")) {
            SimConfig c = ((SimFabric) f).config();
            assertEquals(4, c.clientsPerComputeNode(), "clients spread over the compute nodes");
            assertEquals(2, c.memoryNodes());
        }
        try (Fabric f = Fabrics.open("sim")) {
            assertEquals(SimConfig.defaults(), ((SimFabric) f).config());
        }
    }

    @Test
    void tcpOnARunningServer() {
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(1 << 20).start();
             Fabric f = Fabrics.open(server.uri() + "?seed=3,namespace=ns")) {
            assertInstanceOf(TcpFabric.class, f);
            assertEquals(server.uri(), f.name());
            Endpoint e = f.newEndpoint();
            e.openTable(new TableSpec("t", "test", 1, 8));
            assertTrue(server.memory().table("ns/t") != null, "tables in the namespace");
        }
    }

    @Test
    void defaultsApplyWhereTheFabricHasTheParameter() {
        Map<String, String> defaults = Map.of("seed", "11", "cns", "2");
        try (Fabric f = Fabrics.open("sim", defaults)) {
            assertEquals(11, ((SimFabric) f).config().seed());
            assertEquals(2, ((SimFabric) f).config().computeNodes());
        }
        try (Fabric f = Fabrics.open("sim:seed=4", defaults)) {
            assertEquals(4, ((SimFabric) f).config().seed(), "the address wins");
        }
        try (Fabric f = Fabrics.open("local", defaults)) {
            assertEquals(1, f.memoryNodes(), "cns means nothing to local: ignored");
        }
    }

    @Test
    void unknownSchemesParametersAndBadValuesAreClearErrors() {
        IllegalArgumentException scheme = assertThrows(IllegalArgumentException.class, () -> Fabrics.open("rdma:x=1"));
        assertTrue(scheme.getMessage().startsWith("unknown fabric 'rdma': give ")
                && scheme.getMessage().contains("sim[:cns=N") && scheme.getMessage().contains("tcp://HOST:PORT")
                && scheme.getMessage().contains("local"), scheme.getMessage());
        IllegalArgumentException parameter = assertThrows(IllegalArgumentException.class,
                () -> Fabrics.open("sim:cns=2,colour=red"));
        assertEquals("fabric sim has no parameter 'colour' (its parameters: cns, clients-per-cn, clients, mns, seed, "
                + "mn-link-gbps, cn-latency-ratio, rpc-transport, testbed)",
                parameter.getMessage());
        IllegalArgumentException value = assertThrows(IllegalArgumentException.class, () -> Fabrics.open("sim:cns=0"));
        assertEquals("fabric sim: cns=0 is not in [1, 65536]", value.getMessage());
        IllegalArgumentException uneven = assertThrows(IllegalArgumentException.class,
                () -> Fabrics.open("sim:cns=3,clients=16"));
        assertTrue(uneven.getMessage().contains("do not fill 3 compute nodes evenly"), uneven.getMessage());
        IllegalArgumentException disagree = assertThrows(IllegalArgumentException.class,
                () -> Fabrics.open("sim:cns=2,clients-per-cn=4,clients=9"));
        assertTrue(disagree.getMessage().contains("disagrees"), disagree.getMessage());
        IllegalArgumentException tcp = assertThrows(IllegalArgumentException.class, () -> Fabrics.open("tcp://nohost"));
        assertTrue(tcp.getMessage().contains("tcp://host:port"), tcp.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Fabrics.open("local://x"), "local has no location");
        assertThrows(IllegalArgumentException.class, () -> Fabrics.open("tcp://127.0.0.1:1?cns=2"),
                "tcp has no compute nodes to set");
        FabricException down = assertThrows(FabricException.class, () -> {
            try (Fabric f = Fabrics.open("tcp://127.0.0.1:1")) {
                f.newEndpoint();
            }
        }, "a valid address of a server that is not there fails when used");
        assertTrue(down.getMessage().contains("cannot connect"), down.getMessage());
    }
}
