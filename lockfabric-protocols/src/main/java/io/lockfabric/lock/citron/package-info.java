/**
 * CITRON (FAST'23): the range lock of a segment tree over [0, N) and a spillover mutex for [N, inf)
 * ({@link io.lockfabric.lock.citron.CitronClient} has the protocol, piece by piece), and, beyond
 * the paper, shared (reader) ranges through reader lanes.
 *
 * <h2>Shared ranges: reader lanes (beyond the paper; option {@code shared-lanes})</h2>
 *
 * <p><b>The design.</b> With {@code shared-lanes} R ≥ 2 a citron table has R <em>lanes</em>:
 * the table itself (lane 0) and R − 1 tables of the same geometry ({@code NAME/citron-lane-j}),
 * each a complete, unmodified CITRON range lock with its own tree, maximizer, spillover mutex,
 * configuration word, scale-ups and lease recovery. A shared request locks its range in one lane
 * drawn at random (the endpoint's seeded source); an exclusive request locks it in every lane, in
 * ascending lane order ({@link io.lockfabric.lock.citron.ReaderLanes}). This is the
 * big-reader construction (Hsieh and Weihl's "scalable reader-writer locks", Linux's brlock) on
 * top of CITRON's exclusive protocol.
 *
 * <p><b>Why not reader counts in the node words.</b> An internal node's 64 bits are all taken
 * (Exp mark 3, Occ 1, four 15-bit counters) and a leaf has one bit per unit: reader counts where
 * the tree keeps occupancy bits would need more words per node (a per-unit count at least 6 bits
 * wide is 8 words a leaf), losing the paper's 8 bytes a node and the contiguous descendant READs
 * of step (d); and an occupier that reads must not wait for readers below it, so DCnt/DMax would
 * have to be kept per mode, which changes the meet-in-the-middle argument (T_wait and Inequation
 * (1)) and all four lease recoveries of §3.10. Lanes reuse that argument unchanged, lane by lane,
 * and leave the one-tree protocol exactly as published.
 *
 * <p><b>Invariants.</b>
 * <ol>
 * <li>(I1) Each lane is CITRON: two holds in one lane whose ranges overlap never overlap in time.</li>
 * <li>(I2) A shared grant holds its range in exactly one lane; an exclusive grant holds it in every
 * lane from before it is granted until its release begins.</li>
 * </ol>
 * So an exclusive grant and any grant whose range overlaps it share a lane, where (I1) keeps them
 * apart in time; two shared grants overlap in time unless they drew the same lane.
 *
 * <p><b>Steps.</b> Reader: draw lane j; run Algorithm 1 on lane j alone (its spillover mutex if the
 * range reaches past lane j's N); grant, with lane j's token. Release: Algorithm 3 on lane j. Writer:
 * for j = 0 … R − 1 run Algorithm 1 on lane j with an {@link io.lockfabric.lock.citron.OuterHold}:
 * at every wait of lane j (each wait of Algorithm 2 checks it through {@code HoldWait}, and so does
 * every poll of the spillover ticket) the lanes below j, once held {@code hold-wait-ns} since lane
 * 0 was granted, are released at once; lane j's acquisition then finishes (a bakery ticket cannot be
 * handed back before its turn), is released, and the writer restarts from lane 0 after a
 * randomized pause that doubles (at most {@code max-restarts} times). With all R lanes held it is
 * granted, with lane R − 1's token. Release: Algorithm 3 on every lane, in lane order.
 *
 * <p><b>Races considered.</b>
 * <ul>
 * <li><em>Deadlock.</em> A writer waiting in lane j holds only lanes below j (and lane j's own
 * earlier nodes, which lane j's {@code HoldWait} already bounds); a reader holds one lane and waits
 * for nothing while it holds it. A request waiting in lane j waits for holders in lane j, each of
 * which holds its whole grant (and will release it) or waits in a lane above j: along any chain the
 * lane grows, so there is no cycle across lanes. The hold-wait bound would break one anyway.</li>
 * <li><em>Lease recovery inside a lane.</em> Lane j's recoveries (ticket reset, escalation past a
 * stuck occupier, DCnt reset, clearing a dead holder's leaf bits) take a node unchanged for a lease
 * unit to be a dead client's; they rely on a live request keeping earlier nodes at most hold-wait
 * (at most lease / 4) while it waits, and on grants held less than a lease. A writer's earlier lanes
 * are its earlier nodes: the outer hold gives them back within the same bound, including while it
 * waits for a lane's spillover ticket, so a live writer is never taken for dead in lane i &lt; j
 * while it waits in lane j.</li>
 * <li><em>Crashes.</em> A crashed writer leaves holds in a prefix of the lanes, a crashed reader in
 * one; each lane recovers its own within its bound. A waiting writer may meet the same crashed
 * client in every lane, one after another: the failure model's recovery bound is R times the
 * one-tree bound.</li>
 * <li><em>Fencing</em> ({@code io.lockfabric.check.RangeExclusionChecker.fencing}: of two
 * overlapping holds, the later, granted after the earlier exclusive one was released, has a larger
 * token if exclusive, at least as large if shared). Every lane takes its tokens from lane 0's
 * counter word (the lanes' tables are on lane 0's memory node): one FAA per node acquisition in the
 * batch that completes it, as in one tree. A reader's token is its lane's; a writer's is that of
 * the node its last lane acquired last, taken while it held every lane (a writer that gave lanes
 * back restarts and takes new tokens). If G1 is released before an overlapping G2 is granted and
 * one of them is exclusive, they share a lane j: G1's token FAA precedes its release in lane j,
 * which precedes G2's acquisition there, which precedes G2's token FAA, so G2's token is strictly
 * larger. Two readers are not ordered, nor need they be.</li>
 * <li><em>Scale-up and scale-down.</em> Each lane scales on its own: a request of lane j past its N
 * ORs lane j's maximizer and lane j's poller grows lane j (Algorithm 4 on lane j's table). Lanes may
 * have different N at any moment; each lane's exclusion is CITRON's, with its own ConfigChanged
 * retry, which a writer runs inside lane j while its earlier lanes stay held under the outer hold.
 * A scale-down shrinks every lane larger than the target, one after another (each drains its tree
 * under its spillover mutex, as in one tree); the caller holds no grant.</li>
 * <li><em>Starvation.</em> Inside a lane, CITRON's own: bakery FIFO at internal nodes and a starved
 * leaf's escalation to its parent, whose Occ holds newcomers (readers included) back. A writer
 * therefore waits in each lane no longer than an exclusive request waits behind the same stream in
 * one tree. But if lane j takes longer than hold-wait the writer gives its earlier lanes back and
 * starts over from lane 0; under a heavy reader load it may do so repeatedly. Accepted and counted
 * ({@code lanes.writer-yields}); only {@code max-restarts} bounds it.</li>
 * </ul>
 *
 * <p><b>Costs.</b> A reader costs one lane, as an exclusive request costs with one lane; a writer
 * costs R lanes one after another and R release round trips.
 * Two overlapping readers exclude each other when they draw the same lane (probability 1/R). The
 * table takes R times the memory.
 *
 * <p><b>Exclusive-only use is unchanged.</b> {@code shared-lanes=1}, the default, opens a plain
 * one-tree client: no lanes, no outer hold, no random draw, the same table; shared requests are
 * granted exclusive, as the paper's protocol does. {@code supportsShared()} (the defaults) stays
 * false and {@code supportsShared(options)} is true with {@code shared-lanes} ≥ 2: making lanes the
 * default would make every exclusive request pay R lanes and change every citron experiment.
 */
package io.lockfabric.lock.citron;
