package io.lockfabric.lock.ss;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockTables;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.RangeLockProtocol;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Static segmentation (CITRON FAST'23 §4.1, Table 1 "SS"): [0, N) cut into fixed segments, one
 * DSLR lock each, plus one DSLR lock for [N, ∞). See {@link SsClient} for the protocol and
 * {@link SsLayout} for the table.
 *
 * <p>Four registry entries share this class:
 * <ul>
 * <li>{@code ss}: the segment size is the {@code segment} option;</li>
 * <li>{@code ss-exact}, {@code ss-over}, {@code ss-under}: the paper's three settings for requests of
 * range size {@code L} (option {@code range-size}): segment {@code L}, {@code 8L} and
 * {@code max(1, L/8)}.</li>
 * </ul>
 * Every entry also takes {@code units} (N) and DSLR's tunables, which are handed to the DSLR
 * clients of the segments; DSLR's lease recovery is off by default here ({@code lease-ns=inf}),
 * because a request that waits for a later segment keeps its earlier ones for as long as it waits,
 * which no lease bounds.
 *
 * <p>The segment locks are a {@link LockProtocol} given to the constructor (the registry gives
 * {@code dslr}), used through the lock SPI only: its table of {@code S + 1} locks is this
 * protocol's table, its clients lock the segments. It must keep one 8-byte word per lock
 * ({@link SsLayout#WORD_BYTES}), as DSLR does; the constructor checks.
 */
public final class SsProtocol implements RangeLockProtocol {
    /** How an entry derives its segment size. */
    public enum Preset {
        /** {@code segment} units per segment. */
        CUSTOM("ss", 0, 0),
        /** Segment = L. */
        EXACT("ss-exact", 1, 1),
        /** Segment = 8L. */
        OVER("ss-over", 8, 1),
        /** Segment = max(1, L / 8). */
        UNDER("ss-under", 1, 8);

        private final String registryName;
        private final long multiply;
        private final long divide;

        Preset(String registryName, long multiply, long divide) {
            this.registryName = registryName;
            this.multiply = multiply;
            this.divide = divide;
        }

        public String registryName() {
            return registryName;
        }
    }

    public static final long DEFAULT_UNITS = 1L << 20;
    public static final LockOption UNITS = new LockOption("units", DEFAULT_UNITS,
            "N: [0, N) is cut into segments, [N, inf) takes one more DSLR lock");
    public static final LockOption SEGMENT = new LockOption("segment", 64, "units per segment (ss only)");
    public static final LockOption RANGE_SIZE = new LockOption("range-size", 16,
            "L, the range size the segments are sized for (ss-exact: L, ss-over: 8L, ss-under: max(1, L/8))");
    public static final LockOption LEASE_NS = new LockOption("lease-ns", Long.MAX_VALUE,
            "DSLR lease of each segment lock (default inf: no recovery; a waiting request holds its earlier segments"
                    + " for unbounded time)");

    private final Preset preset;
    /** The protocol of the segment locks (DSLR). */
    private final LockProtocol segmentLocks;
    /** Its options passed through to the segment locks, in its order, the lease replaced by {@link #LEASE_NS}. */
    private final List<LockOption> segmentOptions;

    /**
     * An entry that locks segments with {@code segmentLocks}.
     *
     * @throws IllegalArgumentException if {@code segmentLocks} does not keep one {@link SsLayout#WORD_BYTES} word
     *                                  per lock
     */
    public SsProtocol(Preset preset, LockProtocol segmentLocks) {
        this.preset = java.util.Objects.requireNonNull(preset, "preset");
        this.segmentLocks = java.util.Objects.requireNonNull(segmentLocks, "segmentLocks");
        TableSpec probe = segmentLocks.tableSpec("ss-probe", 1, LockOptions.DEFAULTS);
        if (probe.bytes() != SsLayout.WORD_BYTES) {
            throw new IllegalArgumentException("static segmentation needs segment locks of " + SsLayout.WORD_BYTES
                    + " bytes each; " + segmentLocks.name() + " takes " + probe.bytes());
        }
        this.segmentOptions = segmentLocks.options().stream()
                .map(o -> o.name().equals(LEASE_NS.name()) ? LEASE_NS : o).toList();
    }

    /** {@code ss}, {@code ss-exact}, {@code ss-over}, {@code ss-under}, locking segments with {@code segmentLocks}. */
    public static List<SsProtocol> all(LockProtocol segmentLocks) {
        return java.util.Arrays.stream(Preset.values()).map(p -> new SsProtocol(p, segmentLocks)).toList();
    }

    @Override
    public String name() {
        return preset.registryName;
    }

    @Override
    public String description() {
        String size = switch (preset) {
            case CUSTOM -> "segment units";
            case EXACT -> "range-size L";
            case OVER -> "8 x range-size L";
            case UNDER -> "range-size L / 8";
        };
        return "static segmentation: fixed segments of " + size + ", one DSLR lock each, taken in ascending order";
    }

    @Override
    public boolean supportsShared() {
        return true;
    }

    /** Tokens are DSLR tickets of the first segment, which restart at DSLR's overflow reset. */
    @Override
    public boolean strictFencing() {
        return false;
    }

    @Override
    public List<LockOption> options() {
        List<LockOption> all = new ArrayList<>();
        all.add(UNITS);
        all.add(preset == Preset.CUSTOM ? SEGMENT : RANGE_SIZE);
        all.addAll(segmentOptions);
        return all;
    }

    /**
     * None by default. With a finite {@code lease-ns}, each segment lock recovers as DSLR's does
     * (the segment protocol's {@link LockProtocol#failureModel}), under DSLR's assumption that a holder keeps a segment at
     * most one lease, which a request still waiting for a later segment may break.
     */
    @Override
    public FailureModel failureModel(LockOptions options) {
        if (options.get(LEASE_NS) == Long.MAX_VALUE) {
            return FailureModel.NONE;
        }
        FailureModel dslr = segmentLocks.failureModel(dslrOptions(options));
        return FailureModel.lease(dslr.leaseNs(), dslr.recoveryBoundNs(), "per segment, as dslr: " + dslr.summary()
                + "; a request that waits longer than the lease for a later segment may lose the earlier ones");
    }

    private LockOptions dslrOptions(LockOptions options) {
        Map<String, Long> dslr = new HashMap<>();
        for (LockOption o : segmentOptions) {
            dslr.put(o.name(), options.get(o));
        }
        return LockOptions.of(dslr).validate(segmentLocks.name(), segmentLocks.options());
    }

    /** The segment size these options give. */
    public long segmentUnits(LockOptions options) {
        if (preset == Preset.CUSTOM) {
            return options.get(SEGMENT);
        }
        long l = options.get(RANGE_SIZE);
        if (l < 1 || l > Long.MAX_VALUE / preset.multiply) {
            throw new IllegalArgumentException("range-size must be in [1, " + Long.MAX_VALUE / preset.multiply
                    + "], got " + l);
        }
        return Math.max(1, l * preset.multiply / preset.divide);
    }

    public SsLayout layout(LockOptions options) {
        return new SsLayout(options.get(UNITS), segmentUnits(options));
    }

    @Override
    public TableSpec tableSpec(String tableName, LockOptions options) {
        return LockTables.fixedStride(tableName, name(), layout(options).locks(), SsLayout.WORD_BYTES);
    }

    @Override
    public RangeLockClient client(Endpoint endpoint, Table table, LockOptions options) {
        SsLayout layout = layout(options);
        if (table.spec().locks() != layout.locks() || table.spec().bytes() != layout.tableBytes()) {
            throw new IllegalArgumentException("table " + table.spec() + " is not an " + name() + " table of " + layout);
        }
        LockClient segments = segmentLocks.client(endpoint, table, dslrOptions(options));
        return new SsClient(name(), layout, segments);
    }
}
