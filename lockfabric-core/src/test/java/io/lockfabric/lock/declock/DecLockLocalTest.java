package io.lockfabric.lock.declock;

import io.lockfabric.check.LockStress;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.local.LocalFabric;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.LockProtocols;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code declock-tf}/{@code -pf} on the local fabric (all clients on one node): every policy is safe. */
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
        assertThrows(IllegalArgumentException.class, () -> LockOptions.parse(List.of("policy=fastest")));
        assertEquals(2, LockOptions.parse(List.of("policy=local-prefer")).get(DecLockProtocol.POLICY));
        try (LocalFabric fabric = LocalFabric.builder().build(); Endpoint e = fabric.newEndpoint()) {
            LockProtocol p = LockProtocols.byName("declock-tf");
            assertThrows(IllegalArgumentException.class, () -> p.open(e, "t", 4, LockOptions.parse(List.of("capacity=4"))));
            assertThrows(IllegalArgumentException.class, () -> p.open(e, "t", 4, LockOptions.parse(List.of("policy=7"))));
        }
    }
}
