package io.lockfabric.bench.experiment;

import io.lockfabric.bench.ProtocolOptions;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each paper's reproductions take its own artifact's baseline settings; options set explicitly win. */
class ArtifactOptionsTest {
    @Test
    void shiftLockExperimentsRunTheShiftLockArtifactsBaselines() {
        assertEquals(List.of("dslr.omega-ns=1862"), ArtifactOptions.shiftLock("dslr", List.of()));
        assertEquals(List.of("rmarw.backoff-init-ns=0"), ArtifactOptions.shiftLock("rmarw", List.of()));
        assertEquals(List.of("drtm.backoff-init-ns=0"), ArtifactOptions.shiftLock("drtm", List.of()));
        assertEquals(List.of("rpc.retry-on-fail=1"), ArtifactOptions.shiftLock("rpc", List.of()));
        assertEquals(List.of("shiftlock.poll-ns=1862", "shiftlock.max-poll-ns=1862"),
                ArtifactOptions.shiftLock("shiftlock", List.of()));
        assertEquals(List.of(), ArtifactOptions.shiftLock("cas", List.of()), "cas's default is the artifact's already");
        assertEquals(List.of(), ArtifactOptions.shiftLock("mcs", List.of()));
    }

    @Test
    void decLockExperimentsRunTheDecLockArtifactsBaselines() {
        assertEquals(List.of("dslr.waiting=backoff"), ArtifactOptions.decLock("dslr", List.of()));
        assertEquals(List.of("cas-rw.backoff-init-ns=0"), ArtifactOptions.decLock("cas-rw", List.of()));
        assertTrue(ArtifactOptions.decLock("shiftlock", List.of()).contains("shiftlock.poll-ns=1862"));
    }

    @Test
    void anOptionSetExplicitlyIsKept() {
        assertEquals(List.of("dslr.waiting=dynamic"), ArtifactOptions.decLock("dslr", List.of("dslr.waiting=dynamic")));
        assertEquals(List.of("dslr.omega-ns=20000"), ArtifactOptions.shiftLock("dslr", List.of("dslr.omega-ns=20000")));
    }

    @Test
    void everySettingIsAnOptionItsProtocolTakes() {
        for (List<String> settings : List.of(ArtifactOptions.SHIFTLOCK_BASELINES, ArtifactOptions.DECLOCK_BASELINES)) {
            for (String pair : settings) {
                String protocol = pair.substring(0, pair.indexOf('.'));
                String option = pair.substring(protocol.length() + 1, pair.indexOf('='));
                assertTrue(ArtifactOptions.hasOption(protocol, option), pair);
                assertDoesNotThrow(() -> ProtocolOptions.parse(List.of(pair)), pair);
            }
        }
    }
}
