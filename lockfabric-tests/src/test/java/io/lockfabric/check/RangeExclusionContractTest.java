package io.lockfabric.check;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.protocols.RangeLockProtocols;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Range exclusion of every registered range protocol on one fabric: 8 clients, random unaligned
 * ranges of 1 … 10 000 units, some past and across the protocol's tree size. Each fabric
 * subclasses this with {@link #newFabric()} and its load.
 */
@Tag("contract")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class RangeExclusionContractTest {
    /** The tree size the tests give a protocol that has one (citron's {@code units}). */
    protected static final long UNITS = 16_384;
    /** Ranges are drawn from [0, SPACE): a quarter of the space lies past {@code UNITS}. */
    protected static final long SPACE = UNITS + 4_096;
    protected static final long MAX_SIZE = 10_000;

    protected abstract Fabric newFabric();

    /** Acquire–release cycles per client. */
    protected abstract int opsPerClient();

    /** How long a holder keeps its range (on its clock). */
    protected long holdNs() {
        return 2_000;
    }

    /** Options a protocol runs with on this fabric. */
    protected LockOptions optionsFor(RangeLockProtocol protocol, boolean fastPath) {
        // The ss presets' L sizes their segments: at its default (16) ss-under cuts a 10 000-unit range
        // into 5 000 segments, one round trip each, which takes minutes on tcp and shows nothing more.
        List<String> wanted = List.of("units=" + UNITS, "fast-path=" + (fastPath ? 1 : 0), "range-size=1000");
        // Only the options this protocol has (lld and rpc-range have no tree size, only citron a fast path).
        return LockOptions.parse(wanted.stream()
                .filter(o -> protocol.options().stream().anyMatch(k -> o.startsWith(k.name() + "=")))
                .toList());
    }

    Stream<String> protocols() {
        return RangeLockProtocols.all().stream().map(RangeLockProtocol::name);
    }

    private void stress(String name, boolean fastPath, double readRatio) {
        try (Fabric fabric = newFabric()) {
            RangeLockProtocol p = RangeLockProtocols.byName(name);
            var cfg = new RangeLockStress.Config(8, SPACE, MAX_SIZE, readRatio, opsPerClient(), holdNs(), 42,
                    optionsFor(p, fastPath));
            var result = RangeLockStress.run(fabric, p, cfg);
            System.out.printf("%s on %s, fast path %b: %d grants, %d crossing N, %s%n", name, fabric.name(), fastPath,
                    result.holds().size(), result.holdsCrossing(UNITS), result.stats());
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(8L * opsPerClient(), result.holds().size(), "every cycle recorded once");
            assertTrue(result.holds().stream().allMatch(h -> h.releasedAt() != Hold.NEVER), "all released");
            assertTrue(result.holdsCrossing(UNITS) > 0, "some ranges crossed N");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("protocols")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void randomRangesFastPath(String name) {
        stress(name, true, 0.0);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("protocols")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void randomRangesSlowPathWithReaders(String name) {
        stress(name, false, 0.3);
    }

    /**
     * citron with reader lanes ({@code shared-lanes=4}), 80% shared requests: shared requests are
     * granted shared, readers do overlap readers in the run (in space and time), never writers, and
     * tokens keep their order.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void citronReaderLanesOverlapReadersNeverWriters() {
        try (Fabric fabric = newFabric()) {
            RangeLockProtocol p = RangeLockProtocols.byName("citron");
            LockOptions o = LockOptions.parse(List.of("units=" + UNITS, "shared-lanes=4"));
            assertTrue(p.supportsShared(o) && !p.supportsShared());
            int ops = Math.max(100, opsPerClient() / 2); // half the cycles: writers pay four lanes each
            var cfg = new RangeLockStress.Config(8, SPACE, MAX_SIZE, 0.8, ops, holdNs(), 42, o);
            var result = RangeLockStress.run(fabric, p, cfg);
            long shared = result.holds().stream().filter(h -> h.mode() == Mode.SHARED).count();
            long overlaps = readerOverlaps(result.holds());
            System.out.printf("citron shared-lanes=4 on %s: %d grants (%d shared), %d reader pairs overlapped, %s%n",
                    fabric.name(), result.holds().size(), shared, overlaps, result.stats());
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(8L * ops, result.holds().size(), "every cycle recorded once");
            assertTrue(shared > result.holds().size() / 2, "shared requests were granted shared: " + shared);
            assertTrue(overlaps > 0, "readers overlapped readers");
            assertTrue(result.holdsCrossing(UNITS) > 0, "some ranges crossed N");
        }
    }

    /** Pairs of shared holds of different clients that overlap in space and time (counted up to 100 000). */
    public static long readerOverlaps(List<Hold> holds) {
        List<Hold> byGrant = new java.util.ArrayList<>(holds.stream().filter(h -> h.mode() == Mode.SHARED).toList());
        byGrant.sort(java.util.Comparator.comparingLong(Hold::grantedAt));
        List<Hold> active = new java.util.ArrayList<>();
        long n = 0;
        for (Hold h : byGrant) {
            active.removeIf(a -> a.releasedAt() <= h.grantedAt());
            for (Hold a : active) {
                if (a.client() != h.client() && a.overlapsInSpace(h) && a.overlapsInTime(h) && ++n >= 100_000) {
                    return n;
                }
            }
            active.add(h);
        }
        return n;
    }
}
