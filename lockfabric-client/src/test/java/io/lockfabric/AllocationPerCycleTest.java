package io.lockfabric;

import io.lockfabric.lock.Mode;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.ThreadMXBean;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the client API allocates per acquire–release cycle, counted by the JVM for this thread
 * ({@link ThreadMXBean#getThreadAllocatedBytes}), on the local fabric, after a warm-up: a bound
 * that catches an allocation added to the fast path (a capturing lambda per protocol step, an
 * atomic object per flag, a scoped-value binding per run), not a timing.
 *
 * <p>Measured with this code: 259 bytes a cycle for {@code cas} and 331 for {@code dslr} (the hold,
 * its future, the request, the protocol's grant, the free-stack node of the checkin, and what the
 * protocol makes); the code before made 507 and 547. The bounds leave room for the JIT's escape
 * analysis to remove a little less, and grow by half where the JVM runs without compressed
 * references (bigger objects).
 */
class AllocationPerCycleTest {
    private static final int KEYS = 100_000;

    @Test
    void aCasCycleAllocatesOnlyItsFewObjects() {
        double bytes = bytesPerCycle("cas");
        double bound = bound(300);
        assertTrue(bytes < bound, "cas: " + bytes + " bytes allocated per acquire-release cycle, bound " + bound);
    }

    @Test
    void aDslrCycleAllocatesOnlyItsFewObjects() {
        double bytes = bytesPerCycle("dslr");
        double bound = bound(390);
        assertTrue(bytes < bound, "dslr: " + bytes + " bytes allocated per acquire-release cycle, bound " + bound);
    }

    private static double bound(int compressed) {
        HotSpotDiagnosticMXBean hs = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        boolean compressedOops = Boolean.parseBoolean(hs.getVMOption("UseCompressedOops").getValue());
        return compressedOops ? compressed : compressed * 1.5;
    }

    /** Bytes this thread allocated per cycle of {@code protocol}, uniform over {@link #KEYS} keys, after a warm-up. */
    private static double bytesPerCycle(String protocol) {
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long me = Thread.currentThread().threadId();
        String[] keys = new String[KEYS];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = "k" + i;
        }
        SplittableRandom random = new SplittableRandom(42);
        try (LockFabric lf = LockFabric.open("local")) {
            LockSpace space = lf.lockSpace("alloc-" + protocol, SpaceOptions.builder().protocol(protocol).build());
            cycles(space, keys, random, 100_000); // the JIT compiles the path, the pool and the tables fill
            int n = 200_000;
            long before = mx.getThreadAllocatedBytes(me);
            cycles(space, keys, random, n);
            long after = mx.getThreadAllocatedBytes(me);
            return (after - before) / (double) n;
        }
    }

    private static void cycles(LockSpace space, String[] keys, SplittableRandom random, int n) {
        for (int i = 0; i < n; i++) {
            try (Held h = space.acquire(keys[random.nextInt(keys.length)], Mode.EXCLUSIVE)) {
                if (!h.isValid()) {
                    throw new AssertionError("a fresh hold is not valid: " + h);
                }
            }
        }
    }
}
