package io.lockfabric.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Fabric addresses read without any fabric installed: scheme, location, parameters, errors. */
class FabricAddressTest {
    @Test
    void schemesLocationsAndParameters() {
        FabricAddress local = FabricAddress.parse("local");
        assertEquals("local", local.scheme());
        assertEquals("", local.location());
        assertEquals(Map.of(), local.parameters());

        FabricAddress sim = FabricAddress.parse("SIM:cns=5, clients-per-cn=48,seed=7");
        assertEquals("sim", sim.scheme());
        assertEquals(List.of("cns", "clients-per-cn", "seed"), List.copyOf(sim.parameters().keySet()), "in order");
        assertEquals(48, sim.intParameter("clients-per-cn", 1, 1, 100));
        assertEquals(3, sim.intParameter("mns", 3, 1, 100), "a default for what is not given");

        FabricAddress tcp = FabricAddress.parse("tcp://127.0.0.1:7420?seed=9&namespace=a");
        assertEquals("tcp", tcp.scheme());
        assertEquals("127.0.0.1:7420", tcp.location());
        assertEquals(Map.of("seed", "9", "namespace", "a"), tcp.parameters());
        assertEquals("127.0.0.1:7420", FabricAddress.parse("tcp://127.0.0.1:7420").location());

        assertEquals("7", sim.withDefaults(Map.of("seed", "1", "mns", "2")).parameter("seed", null), "given wins");
        assertEquals("2", sim.withDefaults(Map.of("seed", "1", "mns", "2")).parameter("mns", null), "default fills");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ":cns=1", "9sim", "sim:cns", "sim:cns=", "sim:=3", "sim:cns=1,cns=2", "tcp:h:1"})
    void malformedAddressesAreRejectedClearly(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FabricAddress.parse(text), text);
        assertTrue(e.getMessage().contains("fabric"), e.getMessage());
    }

    @Test
    void anAbsolutePathIsALocation() {
        FabricAddress shm = FabricAddress.parse("shm:/dev/shm/locks?capacity=1024&seed=3");
        assertEquals("shm", shm.scheme());
        assertEquals("/dev/shm/locks", shm.location());
        assertEquals("1024", shm.parameter("capacity", null));
        assertEquals("3", shm.parameter("seed", null));
        assertEquals("/tmp/x", FabricAddress.parse("shm:/tmp/x").location());
        assertTrue(FabricAddress.parse("shm:/tmp/x").parameters().isEmpty());
    }

    @Test
    void aLocationWrittenWithoutSlashesIsPointedOutAndOnlyThen() {
        IllegalArgumentException tcp = assertThrows(IllegalArgumentException.class,
                () -> FabricAddress.parse("tcp:127.0.0.1:7420"));
        assertEquals("fabric tcp: '127.0.0.1:7420' in 'tcp:127.0.0.1:7420' is not NAME=VALUE (a location is written "
                + "tcp://HOST:PORT)", tcp.getMessage());
        IllegalArgumentException sim = assertThrows(IllegalArgumentException.class, () -> FabricAddress.parse("sim:cns"));
        assertEquals("fabric sim: 'cns' in 'sim:cns' is not NAME=VALUE", sim.getMessage());
    }

    @Test
    void valuesAndNamesAreCheckedWithTheirFabricsName() {
        FabricAddress a = FabricAddress.parse("sim:cns=many,mns=0,colour=red");
        IllegalArgumentException notANumber = assertThrows(IllegalArgumentException.class,
                () -> a.intParameter("cns", 1, 1, 10));
        assertEquals("fabric sim: cns=many is not a whole number", notANumber.getMessage());
        IllegalArgumentException outOfRange = assertThrows(IllegalArgumentException.class,
                () -> a.intParameter("mns", 1, 1, 10));
        assertEquals("fabric sim: mns=0 is not in [1, 10]", outOfRange.getMessage());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> a.checkParameters(List.of("cns", "mns")));
        assertEquals("fabric sim has no parameter 'colour' (its parameters: cns, mns)", unknown.getMessage());
    }

    @Test
    void withNoFabricInstalledEverySchemeIsUnknown() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Fabrics.open("sim:cns=2"));
        assertTrue(e.getMessage().startsWith("unknown fabric 'sim'"), e.getMessage());
    }
}
