package io.lockfabric.lock.citron;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.protocols.RangeLockProtocols;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CitronProfile#of} a client's statistics: every nanosecond of an acquire lands in one
 * phase, a leaf spends none in step (a), a request queued behind a holder of its internal node
 * spends the wait there; and {@link CitronClient#describeAddress} names tree nodes and header words
 * (tree N = 16 384).
 */
class CitronProfileSimTest {
    private static final long US = 1_000;
    private static final LockOptions OPTIONS = LockOptions.parse(List.of("units=16384", "fencing=1"));

    @Test
    void phasesAddUpToTheAcquireAndAQueuedRequestWaitsInStepA() {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().computeNodes(2).clientsPerComputeNode(2).seed(4).build())) {
            var citron = RangeLockProtocols.byName("citron");
            Endpoint ea = fabric.newEndpoint();
            Endpoint eb = fabric.newEndpoint();
            RangeLockClient a = citron.open(ea, "profile", OPTIONS);
            RangeLockClient b = citron.open(eb, "profile", OPTIONS);
            long[] elapsed = new long[3];
            CitronProfile[] seen = new CitronProfile[3];
            ClientThread holder = fabric.spawn("a", () -> {
                long t = ea.clock().nanoTime();
                RangeGrant leaf = a.acquire(5, 6, Mode.EXCLUSIVE); // a leaf, nobody else around
                elapsed[0] = ea.clock().nanoTime() - t;
                seen[0] = CitronProfile.of(a.stats());
                a.release(leaf);
                t = ea.clock().nanoTime();
                RangeGrant g = a.acquire(0, 256, Mode.EXCLUSIVE); // the level-3 node over [0, 256)
                elapsed[1] = ea.clock().nanoTime() - t;
                ea.clock().sleepNanos(200 * US);
                a.release(g);
            });
            ClientThread waiter = fabric.spawn("b", () -> {
                eb.clock().sleepNanos(60 * US);
                long t = eb.clock().nanoTime();
                RangeGrant g = b.acquire(0, 256, Mode.EXCLUSIVE);
                elapsed[2] = eb.clock().nanoTime() - t;
                seen[2] = CitronProfile.of(b.stats());
                b.release(g);
            });
            holder.join();
            waiter.join();
            CitronProfile leaf = seen[0];
            assertEquals(1, leaf.acquisitions());
            assertEquals(1, leaf.nodeAttempts());
            assertEquals(1, leaf.nodesAcquired());
            assertEquals(elapsed[0], leaf.totalNs(), "every ns of the acquire is in one phase: " + leaf);
            assertEquals(0, leaf.ticketNs(), "a leaf takes no ticket");
            assertTrue(leaf.ancestorNs() > 0 && leaf.lockNs() > 0, leaf.toString());
            assertEquals(1, leaf.spans());
            assertTrue(leaf.spanNs() > 0 && leaf.spanNs() < CitronProtocol.T_WAIT_NS.defaultValue(), leaf.toString());
            CitronProfile both = CitronProfile.of(a.stats());
            assertEquals(elapsed[0] + elapsed[1], both.totalNs());
            CitronProfile queued = seen[2];
            assertEquals(elapsed[2], queued.totalNs(), queued.toString());
            assertTrue(queued.ticketNs() > 100 * US, "B waited for A's turn in step (a): " + queued);
            assertTrue(queued.ticketNs() < elapsed[2], queued.toString());
        }
    }

    @Test
    void wordsAreNamedByTreeNodeOrHeaderWord() {
        try (SimFabric fabric = new SimFabric(SimConfig.builder().build())) {
            var citron = RangeLockProtocols.byName("citron");
            Endpoint e = fabric.newEndpoint();
            RangeLockClient c = citron.open(e, "names", OPTIONS);
            Table t = e.openTable(citron.tableSpec("names", OPTIONS));
            assertEquals(Optional.of("node 1 (level 0, units [0, 16384))"),
                    c.describeAddress(t.at(CitronLayout.TREE_OFFSET)));
            long firstLeaf = CitronLayout.levelStart(4);
            assertEquals(Optional.of("node " + firstLeaf + " (level 4, leaf, units [0, 64))"),
                    c.describeAddress(t.at(CitronLayout.TREE_OFFSET + (firstLeaf - 1) * CitronLayout.WORD_BYTES)));
            assertEquals(Optional.of("fencing counter"), c.describeAddress(t.at(CitronLayout.FENCE_OFFSET)));
            assertEquals(Optional.of("spillover mutex"), c.describeAddress(t.at(CitronLayout.SPILLOVER_OFFSET)));
            assertEquals(Optional.empty(), c.describeAddress(t.address() + t.spec().bytes()));
            RangeLockClient other = RangeLockProtocols.byName("ss-exact").open(e, "other", LockOptions.DEFAULTS);
            assertEquals(Optional.empty(), other.describeAddress(t.at(CitronLayout.TREE_OFFSET)),
                    "a protocol that names no words says nothing");
        }
    }
}
