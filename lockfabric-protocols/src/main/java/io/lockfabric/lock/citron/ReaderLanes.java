package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Clock;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.LockUnavailableException;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * Shared (reader) range locks for CITRON, beyond the paper (option {@code shared-lanes} R ≥ 2):
 * R independent CITRON range locks, the <em>lanes</em>, each a whole table of its own (tree,
 * maximizer, spillover mutex, configuration word and scale-ups), run by unchanged
 * {@link CitronClient}s. A shared request [l, r) locks [l, r) exclusively in <em>one</em> lane,
 * drawn at random per request; an exclusive request locks [l, r) in <em>every</em> lane, in
 * ascending lane order. The package documentation has the safety argument; in short:
 * <ul>
 * <li>A writer and any overlapping request meet in some lane (the writer holds them all), where
 * that lane's CITRON excludes them. Two readers overlap in time unless they drew the same lane.</li>
 * <li>Deadlock freedom: a writer waiting in lane j holds only lanes below j; a reader holds one
 * lane and waits for nothing while it does. Waits go to higher lanes only.</li>
 * <li>Leases: a writer's earlier lanes are "earlier nodes" of its request: the lane's waits give
 * them back once held {@code hold-wait-ns} ({@link OuterHold}), the bound every lane's lease
 * recovery relies on inside one tree; it finishes the lane under way, releases it and restarts.</li>
 * <li>Fencing: every lane takes its tokens from lane 0's counter word (one FAA per node, in the
 * batch that completes it, as in one tree); a grant's token is that of the node its last lane
 * acquired last, taken while it holds every lane, so a grant after an overlapping one (they share a
 * lane, whose holds cannot overlap in time) gets a larger token.</li>
 * </ul>
 * Costs: a reader pays one lane (as an exclusive request costs with R = 1); a writer pays R lanes in turn and releases them one after another; two readers
 * that draw the same lane exclude each other (probability 1/R per overlapping pair). Memory: R
 * tables. Not thread-safe: one thread at a time, like the endpoint.
 */
final class ReaderLanes {
    /** Most lanes a table may have. */
    static final int MAX_LANES = 64;
    /** Backoff of a writer that gave its lanes back grows to at most poll-ns × 2^this. */
    private static final int MAX_BACKOFF_DOUBLINGS = 9;

    /** A grant of reader lanes: the lanes held (one for a reader, all for a writer) and their tree grants. */
    record LaneGrant(long start, long end, long fencingToken, Mode mode, int firstLane,
                     List<CitronClient.CitronGrant> parts) implements RangeGrant {
    }

    private final List<CitronClient> lanes;
    private final Clock clock;
    private final RandomGenerator random;
    private final long pollNs;
    private final int maxRestarts;
    private final Set<LaneGrant> outstanding = Collections.newSetFromMap(new IdentityHashMap<>());
    private long writerYields;
    private long sharedGrants;

    /**
     * Lanes {@code lanes} (lane 0 first, every lane's tokens from lane 0's counter word);
     * {@code random}: the endpoint's seeded source.
     */
    ReaderLanes(List<CitronClient> lanes, RandomGenerator random, long pollNs, int maxRestarts) {
        if (lanes.size() < 2 || lanes.size() > MAX_LANES) {
            throw new IllegalArgumentException("reader lanes: 2 to " + MAX_LANES + ", got " + lanes.size());
        }
        this.lanes = List.copyOf(lanes);
        this.clock = lanes.getFirst().clock();
        this.random = random;
        this.pollNs = pollNs;
        this.maxRestarts = maxRestarts;
    }

    /** The lanes' clients, lane 0 first. */
    List<CitronClient> clients() {
        return lanes;
    }

    /** A reader in one random lane; a writer in every lane, ascending. */
    RangeGrant acquire(long start, long end, Mode mode) {
        if (mode == Mode.SHARED) {
            return acquireShared(start, end, random.nextInt(lanes.size()));
        }
        return acquireExclusive(start, end);
    }

    /** A reader in lane {@code lane}. */
    RangeGrant acquireShared(long start, long end, int lane) {
        CitronClient.CitronGrant part = lanes.get(lane).acquireTree(start, end);
        var g = new LaneGrant(start, end, part.fencingToken(), Mode.SHARED, lane, List.of(part));
        sharedGrants++;
        outstanding.add(g);
        return g;
    }

    /** A writer: every lane, ascending; earlier lanes given back after hold-wait ({@link OuterHold}). */
    private RangeGrant acquireExclusive(long start, long end) {
        for (int restart = 0; ; restart++) {
            List<CitronClient.CitronGrant> held = new ArrayList<>(lanes.size());
            OuterHold outer = null;
            try {
                for (int j = 0; j < lanes.size(); j++) {
                    CitronClient lane = lanes.get(j);
                    lane.outer(outer);
                    CitronClient.CitronGrant part;
                    try {
                        part = lane.acquireTree(start, end);
                    } finally {
                        lane.outer(null);
                    }
                    if (outer != null && outer.yielded()) {
                        lane.releaseTree(part); // the earlier lanes are gone: restart from lane 0
                        break;
                    }
                    held.add(part);
                    if (j == 0) {
                        outer = new OuterHold(clock, clock.nanoTime(), lane.holdWaitNs(), () -> {
                            releaseParts(held);
                            held.clear();
                        });
                    }
                }
                if (held.size() == lanes.size()) {
                    // the last lane's token: taken while every lane was held
                    var g = new LaneGrant(start, end, held.getLast().fencingToken(), Mode.EXCLUSIVE, 0,
                            List.copyOf(held));
                    outstanding.add(g);
                    return g;
                }
            } catch (RuntimeException e) {
                releaseParts(held);
                throw e;
            }
            writerYields++;
            if (restart >= maxRestarts) {
                throw new LockUnavailableException("citron range [" + start + ", " + end + ") in " + lanes.size()
                        + " reader lanes: restarted " + (restart + 1) + " times; gave up after max-restarts="
                        + maxRestarts);
            }
            clock.sleepNanos(random.nextLong(Math.max(1, pollNs) << Math.min(restart + 1, MAX_BACKOFF_DOUBLINGS)));
        }
    }

    /** Releases the tree grants of {@code parts}, lane by lane (in lane order, as taken). */
    private void releaseParts(List<CitronClient.CitronGrant> parts) {
        RuntimeException first = null;
        for (CitronClient.CitronGrant p : parts) {
            try {
                laneOf(p).releaseTree(p);
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private CitronClient laneOf(CitronClient.CitronGrant p) {
        for (CitronClient c : lanes) {
            if (c.owns(p)) {
                return c;
            }
        }
        throw new IllegalStateException("no lane holds " + p);
    }

    void release(RangeGrant grant) {
        if (!(grant instanceof LaneGrant g) || !outstanding.remove(g)) {
            throw new IllegalArgumentException("not a grant this citron client holds: " + grant);
        }
        if (g.mode() == Mode.SHARED) {
            lanes.get(g.firstLane()).releaseTree(g.parts().getFirst());
        } else {
            releaseParts(g.parts());
        }
    }

    /** Every lane's counts added up, and {@code lanes.writer-yields} and {@code lanes.shared-grants}. */
    LockStats stats() {
        LockStats sum = LockStats.ZERO;
        for (CitronClient c : lanes) {
            sum = sum.plus(c.treeStats());
        }
        return LockStats.builder().addAll(sum).add(LockStats.YIELDS, writerYields)
                .counter("lanes.writer-yields", writerYields).counter("lanes.shared-grants", sharedGrants).build();
    }

    /**
     * Scale-down of every lane whose tree is larger than {@code units} (lanes scale up on their own,
     * so some may never have grown). The caller must hold no grant.
     */
    void scaleDown(long units) {
        if (!outstanding.isEmpty() || lanes.stream().anyMatch(CitronClient::holdsGrants)) {
            throw new IllegalStateException("scale-down drains the tree: release this client's grants first");
        }
        boolean any = false;
        for (CitronClient c : lanes) {
            if (c.currentUnits() > units) {
                c.scaleDownTree(units);
                any = true;
            }
        }
        if (!any && lanes.getFirst().currentUnits() != units) {
            lanes.getFirst().scaleDownTree(units); // fails with the tree's own message
        }
    }

    Optional<String> describeAddress(long address) {
        for (int j = 0; j < lanes.size(); j++) {
            Optional<String> d = lanes.get(j).describeTreeAddress(address);
            if (d.isPresent()) {
                return j == 0 ? d : Optional.of("lane " + j + " " + d.get());
            }
        }
        return Optional.empty();
    }

    /** Closes lanes 1 … R − 1 (lane 0 closes itself). */
    void closeOthers() {
        for (int j = 1; j < lanes.size(); j++) {
            lanes.get(j).close();
        }
    }

    /** Writer acquisitions that gave their earlier lanes back and restarted. */
    long writerYields() {
        return writerYields;
    }
}
