package io.lockfabric.lock.ss;

import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Static segmentation client (CITRON FAST'23 §4.1 "SS", after Lustre-style fixed lock
 * granularity; layout in {@link SsLayout}).
 *
 * <p><b>Acquire [l, r)</b>: every segment that [l, r) touches in [0, N), in ascending order, then
 * the spillover lock if {@code r > N}; each is a DSLR lock (ticket FAA, READ polling with DSLR's
 * dynamic interval), taken in the requested mode. A single global order makes it deadlock-free.
 * Units of a segment that the request does not cover are locked too: the false conflicts that the
 * paper measures (an unaligned request of size L touches up to {@code ⌈L/g⌉ + 1} segments).
 * <b>Release</b>: DSLR's release FAA on each segment. Uncontended cost: 2 FAA (two round trips) per
 * segment touched.
 *
 * <p>The DSLR work is delegated to one {@code dslr} client over the table, whose lock {@code i} is
 * segment {@code i}. If a segment cannot be had (DSLR gives up after its lease restarts), the
 * segments already taken are released and the exception propagates. The fencing token is the DSLR
 * ticket of the first lock taken (not strict: DSLR tickets restart at its overflow reset).
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
final class SsClient implements RangeLockClient {
    private final String name;
    private final SsLayout layout;
    private final LockClient segments;
    private final Set<SsGrant> held = Collections.newSetFromMap(new IdentityHashMap<>());

    SsClient(String name, SsLayout layout, LockClient segments) {
        this.name = name;
        this.layout = layout;
        this.segments = segments;
    }

    @Override
    public RangeGrant acquire(long start, long end, Mode mode) {
        if (start < 0 || end <= start) {
            throw new IllegalArgumentException(name + ": bad range [" + start + ", " + end + ")");
        }
        List<Grant> parts = new ArrayList<>();
        try {
            long n = layout.units();
            if (start < n) {
                long last = layout.segmentOf(Math.min(end, n) - 1);
                for (long s = layout.segmentOf(start); s <= last; s++) {
                    parts.add(segments.acquire(s, mode));
                }
            }
            if (end > n) {
                parts.add(segments.acquire(layout.spilloverLock(), mode));
            }
        } catch (RuntimeException e) {
            releaseAll(parts);
            throw e;
        }
        var g = new SsGrant(start, end, parts.getFirst().mode(), parts.getFirst().fencingToken(), List.copyOf(parts));
        held.add(g);
        return g;
    }

    @Override
    public void release(RangeGrant grant) {
        if (!(grant instanceof SsGrant g) || !held.remove(g)) {
            throw new IllegalArgumentException(name + ": not a grant this client holds: " + grant);
        }
        releaseAll(g.parts());
    }

    private void releaseAll(List<Grant> parts) {
        for (Grant p : parts) {
            segments.release(p);
        }
    }

    @Override
    public LockStats stats() {
        return segments.stats();
    }

    /** The segment grants, lowest first (the spillover last). */
    private record SsGrant(long start, long end, Mode mode, long fencingToken, List<Grant> parts) implements RangeGrant {
    }
}
