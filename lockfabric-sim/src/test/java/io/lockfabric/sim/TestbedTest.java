package io.lockfabric.sim;

import org.junit.jupiter.api.Test;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestbedTest {
    /** What a profile never sets: the topology, the seed and the memory size are the experiment's. */
    private static final Set<String> NOT_HARDWARE = Set.of("computeNodes", "clientsPerComputeNode", "memoryNodes",
            "seed", "memoryBytesPerNode");

    @Test
    void everyProfileLoadsAndEveryValueHasASource() {
        for (Testbed t : Testbed.values()) {
            SimConfig config = t.applyTo(SimConfig.defaults());
            assertEquals(SimConfig.defaults().computeNodes(), config.computeNodes(), t + " leaves the topology alone");
            assertFalse(t.settings().isEmpty(), t + " sets something");
            for (Testbed.Setting s : t.settings()) {
                assertFalse(s.source().isBlank(), t + "." + s.parameter() + " has a source");
                assertTrue(s.source().length() > 20, t + "." + s.parameter() + "'s source says where: " + s.source());
            }
        }
    }

    @Test
    void everyHardwareParameterIsSetOrSaidToKeepItsDefault() {
        Set<String> hardware = new TreeSet<>();
        for (RecordComponent c : SimConfig.class.getRecordComponents()) {
            if (!NOT_HARDWARE.contains(c.getName())) {
                hardware.add(c.getName());
            }
        }
        for (Testbed t : Testbed.values()) {
            Set<String> covered = new TreeSet<>(t.keptDefaults());
            for (Testbed.Setting s : t.settings()) {
                assertTrue(covered.add(s.parameter()), t + " sets " + s.parameter() + " once, and does not also keep it");
            }
            assertEquals(hardware, covered, t + ": every hardware parameter set with a source or kept at its default");
        }
    }

    @Test
    void settingsTakeEffect() {
        SimConfig citron = Testbed.CITRON.applyTo(SimConfig.defaults());
        assertEquals(18, citron.mnCpuCores());
        assertEquals(RpcTransport.ERPC, citron.rpcTransport());
        assertTrue(citron.mnLinkModelled());
        SimConfig declock = Testbed.DECLOCK.applyTo(SimConfig.defaults());
        assertEquals(SimConfig.DECLOCK_TESTBED_MN_LINK_GBPS, declock.mnLinkGbps());
        assertEquals(16, declock.cnCores(), "DecLock §6: 16 cores per CN");
        SimConfig shiftlock = Testbed.SHIFTLOCK.applyTo(SimConfig.defaults());
        assertEquals(SimConfig.DEFAULT_SAME_WORD_SERIAL_NS, shiftlock.sameWordSerialNs());
        assertNotEquals(SimConfig.defaults(), shiftlock, "the ShiftLock profile models its 100 Gb/s link");
    }

    @Test
    void namesParse() {
        assertTrue(Testbed.parse("none").isEmpty());
        assertEquals(Testbed.DECLOCK, Testbed.parse(" DecLock ").orElseThrow());
        assertEquals(List.of("none", "shiftlock", "declock", "citron"), Testbed.names());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Testbed.parse("cx7"));
        assertTrue(e.getMessage().contains("shiftlock"), e.getMessage());
        Set<String> names = new HashSet<>(Arrays.stream(Testbed.values()).map(Testbed::cliName).toList());
        assertEquals(Testbed.values().length, names.size());
    }
}
