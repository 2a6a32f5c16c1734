package io.lockfabric.apps.objstore;

import io.lockfabric.LockFabric;
import io.lockfabric.net.TcpMemoryNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The object store's correctness under stress, through the facade: threads get and set three hot
 * keys at once, and no get ever reads a torn value (the check word and the seeded bytes both
 * verified), on local for several protocols and on tcp against a memory node in this JVM.
 */
@Tag("stress")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ObjectStoreStressTest {
    private static ObjectStoreStress.Outcome stress(LockFabric lf, String protocol, int threads, int ops)
            throws InterruptedException {
        ObjectStore store = ObjectStore.open(lf, "stress-" + protocol, ObjectStoreOptions.DEFAULTS
                .withProtocol(protocol).withObjects(16).withMaxValueBytes(6000));
        return ObjectStoreStress.run(t -> new ObjectStoreStress.Store() {
            @Override
            public byte[] get(long key) {
                return store.get(key);
            }

            @Override
            public void set(long key, byte[] value) {
                store.set(key, value);
            }
        }, threads, 3, ops, 6000, 42);
    }

    @ParameterizedTest
    @ValueSource(strings = {"declock-tf", "declock-pf", "dslr", "shiftlock", "cas", "mcs"})
    void noTornValueOnLocal(String protocol) throws Exception {
        try (LockFabric lf = LockFabric.builder("local").poolSize(6).open()) {
            ObjectStoreStress.Outcome o = stress(lf, protocol, 6, 400);
            System.out.println(protocol + " on local: " + o.summary());
            assertTrue(o.violations().isEmpty(), o.summary());
            assertTrue(o.gets() > 300 && o.sets() > 300, o.summary());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"declock-tf", "dslr", "shiftlock", "cas"})
    void noTornValueOnTcp(String protocol) throws Exception {
        java.util.logging.Logger.getLogger(TcpMemoryNode.class.getName()).setLevel(java.util.logging.Level.WARNING);
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start();
             LockFabric lf = LockFabric.builder(server.uri()).poolSize(4).open()) {
            ObjectStoreStress.Outcome o = stress(lf, protocol, 4, 120);
            System.out.println(protocol + " on tcp: " + o.summary());
            assertTrue(o.violations().isEmpty(), o.summary());
            assertTrue(o.gets() > 80 && o.sets() > 80, o.summary());
        }
    }

    /** The verifier itself: a value spliced from two sets is caught. */
    @Test
    void theSeededBytesCatchASplice() {
        byte[] a = ObjectStoreStress.value(1, 100);
        byte[] b = ObjectStoreStress.value(2, 100);
        assertTrue(ObjectStoreStress.verify(a) == null && ObjectStoreStress.verify(b) == null);
        System.arraycopy(b, 50, a, 50, 50);
        assertTrue(ObjectStoreStress.verify(a) != null);
    }
}
