package io.lockfabric.bench.point;

import io.lockfabric.bench.ProtocolOptions;

import io.lockfabric.protocols.LockProtocols;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PointWorkloadTest {
    @Test
    void defaultsAreTheDocumentedOnes() {
        PointWorkload c = PointWorkload.builder().build();
        assertEquals(8, c.clients());
        assertEquals(1_000, c.locks());
        assertEquals(0.99, c.zipf());
        assertEquals(0.5, c.readRatio());
        assertEquals(1, c.cs());
        assertEquals(PointWorkload.DEFAULT_DURATION_NS, c.durationNs());
        assertFalse(c.byOperations());
        assertFalse(c.check());
    }

    @Test
    void rejectsBadValues() {
        var b = PointWorkload.builder();
        assertThrows(IllegalArgumentException.class, () -> b.clients(0).build());
        assertThrows(IllegalArgumentException.class, () -> PointWorkload.builder().locks(0).build());
        assertThrows(IllegalArgumentException.class, () -> PointWorkload.builder().zipf(-1).build());
        assertThrows(IllegalArgumentException.class, () -> PointWorkload.builder().readRatio(1.01).build());
        assertThrows(IllegalArgumentException.class, () -> PointWorkload.builder().readRatio(Double.NaN).build());
        assertThrows(IllegalArgumentException.class, () -> PointWorkload.builder().cs(-1).build());
        assertThrows(IllegalArgumentException.class, () -> PointWorkload.builder().warmupNs(-1).build());
        assertThrows(IllegalArgumentException.class, () -> PointWorkload.builder().durationNs(0).build());
    }

    @Test
    void operationsAreSplitWithoutLoss() {
        PointWorkload c = PointWorkload.builder().clients(3).operations(10).build();
        assertTrue(c.byOperations());
        assertEquals(0, c.durationNs());
        assertEquals(List.of(4L, 3L, 3L), List.of(c.operationsOf(0), c.operationsOf(1), c.operationsOf(2)));
    }

    @Test
    void protocolOptionsAreCheckedAgainstTheProtocols() {
        var juc = LockProtocols.byName("juc");
        assertThrows(IllegalArgumentException.class, () -> ProtocolOptions.parse(List.of("novalue")));
        assertThrows(IllegalArgumentException.class, () -> ProtocolOptions.parse(List.of("no-such-protocol.x=1")));
        assertThrows(IllegalArgumentException.class, () -> ProtocolOptions.parse(List.of("x=abc")));
        ProtocolOptions unknownName = ProtocolOptions.parse(List.of("no-such-option=1"));
        assertThrows(IllegalArgumentException.class, () -> unknownName.validate(List.of(juc)));
        ProtocolOptions forJuc = ProtocolOptions.parse(List.of("juc.x=1"));
        assertThrows(IllegalArgumentException.class, () -> forJuc.validate(List.of(juc)));
        assertTrue(ProtocolOptions.NONE.forProtocol(juc).asMap().isEmpty());
    }

    /**
     * The texts the CLI prints (exit 2) for bad option values, now that LockOptions leaves choice
     * names to the protocols: ProtocolOptions, which knows the registry, still rejects a word that
     * names no choice of the option when it parses, as before.
     */
    @Test
    void badValuesGetTheSameMessages() {
        IllegalArgumentException word = assertThrows(IllegalArgumentException.class,
                () -> ProtocolOptions.parse(List.of("lease=abc")));
        assertEquals("option lease: 'abc' is not a number", word.getMessage());
        IllegalArgumentException duration = assertThrows(IllegalArgumentException.class,
                () -> ProtocolOptions.parse(List.of("dslr.lease-ns=soon")));
        assertEquals("option lease-ns: 'soon' is not a number or a duration", duration.getMessage());
        IllegalArgumentException early = assertThrows(IllegalArgumentException.class,
                () -> ProtocolOptions.parse(List.of("policy=fastest")), "a choice no protocol has fails at once");
        assertThrows(IllegalArgumentException.class, () -> ProtocolOptions.parse(List.of("declock-tf.policy=fastest")));
        assertEquals("option policy: 'fastest' is not one of [timestamp, remote-prefer, local-prefer, local-bound]",
                early.getMessage());
        var declock = LockProtocols.byName("declock-tf");
        assertEquals(2, ProtocolOptions.parse(List.of("policy=local-prefer")).forProtocol(declock)
                .get(io.lockfabric.lock.declock.DecLockProtocol.POLICY));
    }
}
