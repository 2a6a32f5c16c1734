package io.lockfabric.lock.declock;

import io.lockfabric.check.LockStress;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code declock-tf}/{@code -pf} on the local fabric (all clients on one node): every policy is safe. */
@Tag("stress")
@Timeout(120)
class DecLockLocalTest {

    @ParameterizedTest(name = "{0} policy={1}")
    @CsvSource({
            "declock-tf, timestamp", "declock-pf, timestamp", "declock-tf, remote-prefer", "declock-pf, local-prefer",
            "declock-pf, local-bound",
    })
    void everyPolicyKeepsMutualExclusion(String protocol, String policy) {
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            LockProtocol p = LockProtocols.byName(protocol);
            var options = LockOptions.parse(List.of("policy=" + policy));
            var result = LockStress.run(fabric, p, LockStress.Config.of(6, 4, 0.99, 0.5, 3_000).withOptions(options));
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(6 * 3_000, result.holds().size());
        }
    }

    @Test
    void policyNamesAreCheckedAndCapacityHasAFloor() {
        // a word is kept until the protocol's own option resolves it: an unknown one fails there
        LockOptions fastest = LockOptions.parse(List.of("policy=fastest"));
        IllegalArgumentException notAPolicy = assertThrows(IllegalArgumentException.class,
                () -> fastest.validate("declock-tf", LockProtocols.byName("declock-tf").options()));
        assertEquals("option policy: 'fastest' is not one of " + DecLockProtocol.POLICY.choices(), notAPolicy.getMessage());
        assertThrows(IllegalArgumentException.class, () -> fastest.get(DecLockProtocol.POLICY));
        assertEquals(2, LockOptions.parse(List.of("policy=local-prefer")).get(DecLockProtocol.POLICY));
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint e = fabric.newEndpoint()) {
            LockProtocol p = LockProtocols.byName("declock-tf");
            assertThrows(IllegalArgumentException.class, () -> p.open(e, "t", 4, LockOptions.parse(List.of("capacity=4"))));
            assertThrows(IllegalArgumentException.class, () -> p.open(e, "t", 4, LockOptions.parse(List.of("policy=7"))));
            assertThrows(IllegalArgumentException.class, () -> p.open(e, "t", 4, LockOptions.parse(List.of("cns=0"))));
        }
    }

    /** The queue holds one entry per compute node: its capacity follows {@code cns} unless {@code capacity} is set. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "'', 8", "cns=1, 8", "cns=2, 8", "cns=8, 8", "cns=9, 16", "cns=16, 16", "cns=20, 32", "cns=128, 128",
            "'cns=2,capacity=64', 64",
    })
    void capacityIsTheComputeNodeCount(String options, long capacity) {
        List<String> pairs = options.isEmpty() ? List.of() : List.of(options.split(","));
        CqlProtocol.Settings s = DecLockProtocol.settings(LockOptions.parse(pairs));
        assertEquals(capacity, s.layout().capacity());
        // the table's size follows: one 8-byte entry per queue slot besides the header
        long oneLock = s.layout().tableBytes(2) - s.layout().tableBytes(1);
        assertEquals((capacity + 1) * 8, oneLock);
    }
}
