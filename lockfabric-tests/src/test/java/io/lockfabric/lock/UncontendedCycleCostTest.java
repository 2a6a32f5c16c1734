package io.lockfabric.lock;

import io.lockfabric.protocols.LockProtocols;

import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.local.LocalFabric;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Remote operations of one uncontended acquire–release cycle are exact counts: the numbers the
 * papers compare (e.g. a CAS cycle is one atomic to take the lock and one verb to give it back).
 */
@Tag("contract")
class UncontendedCycleCostTest {

    private static Map<VerbKind, Long> cycleCost(String protocol, Mode mode) {
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint e = fabric.newEndpoint()) {
            LockClient client = LockProtocols.byName(protocol).open(e, "t", 64, LockOptions.DEFAULTS);
            // Warm the lock once so first-use effects (none expected) would show as a difference.
            client.release(client.acquire(3, mode));
            CounterSnapshot before = e.counters();
            int cycles = 10;
            for (int i = 0; i < cycles; i++) {
                client.release(client.acquire(3, mode));
            }
            CounterSnapshot d = e.counters().minus(before);
            Map<VerbKind, Long> perCycle = new EnumMap<>(VerbKind.class);
            for (VerbKind k : VerbKind.values()) {
                if (d.ops(k) != 0) {
                    assertEquals(0, d.ops(k) % cycles, protocol + ": " + k + " not a whole number per cycle: " + d);
                    perCycle.put(k, d.ops(k) / cycles);
                }
            }
            return perCycle;
        }
    }

    @Test
    void casIsOneMaskedCasAndOneWrite() {
        assertEquals(Map.of(VerbKind.MCAS, 1L, VerbKind.CAS, 1L), cycleCost("cas", Mode.EXCLUSIVE));
        assertEquals(Map.of(VerbKind.MCAS, 1L, VerbKind.CAS, 1L), cycleCost("cas-nb", Mode.EXCLUSIVE));
        assertEquals(Map.of(VerbKind.MCAS, 1L, VerbKind.CAS, 1L), cycleCost("cas", Mode.SHARED), "shared served exclusive");
    }

    @Test
    void casRwReaderIsTwoFaaWriterIsMaskedCasAndMaskedFaa() {
        assertEquals(Map.of(VerbKind.FAA, 2L), cycleCost("cas-rw", Mode.SHARED));
        assertEquals(Map.of(VerbKind.MCAS, 1L, VerbKind.MFAA, 1L), cycleCost("cas-rw", Mode.EXCLUSIVE));
    }

    @Test
    void dslrIsTwoFaa() {
        assertEquals(Map.of(VerbKind.FAA, 2L), cycleCost("dslr", Mode.SHARED));
        assertEquals(Map.of(VerbKind.FAA, 2L), cycleCost("dslr", Mode.EXCLUSIVE));
    }

    @Test
    void mcsIsAFetchAndStoreAndACas() {
        assertEquals(Map.of(VerbKind.MCAS, 1L, VerbKind.CAS, 1L), cycleCost("mcs", Mode.EXCLUSIVE));
        assertEquals(Map.of(VerbKind.MCAS, 1L, VerbKind.CAS, 1L), cycleCost("mcs", Mode.SHARED), "shared served exclusive");
    }

    @Test
    void rmaRwReaderIsTwoFaaWriterIsSwapFlagAndCas() {
        assertEquals(Map.of(VerbKind.MFAA128, 2L), cycleCost("rmarw", Mode.SHARED));
        assertEquals(Map.of(VerbKind.MCAS128, 2L, VerbKind.MFAA128, 1L), cycleCost("rmarw", Mode.EXCLUSIVE));
    }

    /** Readers are in DrTmCycleCostTest: their cost depends on whether the lease is still valid. */
    @Test
    void drtmWriterIsCasAndWrite() {
        assertEquals(Map.of(VerbKind.CAS, 1L, VerbKind.WRITE, 1L), cycleCost("drtm", Mode.EXCLUSIVE));
    }

    @Test
    void jucTouchesNoRemoteMemory() {
        assertEquals(Map.of(), cycleCost("juc", Mode.EXCLUSIVE));
        assertEquals(Map.of(), cycleCost("juc", Mode.SHARED));
    }
}
