package io.lockfabric.lock.rpcrange;

import io.lockfabric.fabric.RegionAccess;
import io.lockfabric.lock.Mode;

/**
 * The server of {@code mt} (CITRON FAST'23 Table 1, baseline "MT": a Maple tree of disjoint ranges
 * on the lock server's CPU, behind an RPC): the rpc service of one range lock table, run by its
 * memory node's CPU.
 *
 * <p><b>State</b>: the held ranges as disjoint segments in a {@link RangeBTree}, each with its
 * count of readers and writers (a writer's segment has one writer and no reader; a shared range
 * held by several readers is split at every holder's borders, each piece counting the readers on
 * it: readers overlap readers, never writers). The waiting requests are in a FIFO and, counted the
 * same way, in a second tree. A request is granted at once if it conflicts neither with a held
 * segment nor with a waiting request (an earlier overlapping waiter goes first: no starvation);
 * otherwise its reply is deferred and it joins the FIFO.
 *
 * <p><b>Waiting is queue/wake, not client retry</b>: a release removes its range and walks the FIFO
 * in order, granting every waiter that conflicts neither with the held segments nor with a waiter
 * still blocked ahead of it, and replies to each. A client thus costs the server exactly two rpcs
 * per hold under any contention, as the paper's type-I baselines do ("server-side CPUs are fully
 * responsible for acquiring and releasing locks"); client retries would spend the server's CPU,
 * the resource these baselines are bound by, on requests that cannot succeed.
 *
 * <p><b>Concurrency</b>: one monitor guards the tree and the FIFO, as the Maple tree's writers
 * take the tree's lock (its lock-free side is for readers of the tree, and every range lock
 * operation here writes). No reply is sent under the monitor.
 *
 * <p><b>Fencing</b> and <b>errors</b> as in {@code rpc-range}: word 0 of the table region counts
 * exclusive grants (an exclusive grant's token is the new count, a shared one's the current count);
 * a release must name a grant its caller holds (id, range, mode, token), and a malformed frame or
 * an empty range is failed with a reason and changes nothing. <b>Failures</b>: a crashed holder
 * blocks its range forever (the server cannot tell that a client crashed).
 *
 * <p>Thread-safe.
 */
public final class MtServer extends FifoRangeServer {
    public static final int FENCE_OFFSET = FifoRangeServer.FENCE_OFFSET;
    public static final int TABLE_BYTES = ServerCpuRangeProtocol.TABLE_BYTES;

    private final RangeBTree heldTree;

    /** The service of the table whose region is {@code region} (at least {@link #TABLE_BYTES}). */
    public MtServer(RegionAccess region) {
        this(region, new RangeBTree());
    }

    private MtServer(RegionAccess region, RangeBTree heldTree) {
        super(region, "mt server", counted(heldTree), counted(new RangeBTree()), () -> counted(new RangeBTree()));
        this.heldTree = heldTree;
    }

    /** A tree of segments counting the readers and writers on each, as a set of ranges. */
    private static Ranges counted(RangeBTree tree) {
        return new Ranges() {
            @Override
            public boolean conflicts(long start, long end, Mode mode) {
                return tree.conflicts(start, end, mode == Mode.EXCLUSIVE);
            }

            @Override
            public void add(long start, long end, Mode mode, long id) {
                count(start, end, mode, 1);
            }

            @Override
            public void remove(long start, long end, Mode mode, long id) {
                count(start, end, mode, -1);
            }

            private void count(long start, long end, Mode mode, int delta) {
                if (mode == Mode.EXCLUSIVE) {
                    tree.adjust(start, end, 0, delta);
                } else {
                    tree.adjust(start, end, delta, 0);
                }
            }
        };
    }

    /** Grants, waiters and held segments now: for tests and diagnostics. */
    synchronized int[] counts() {
        return new int[] {grantCount(), waitingCount(), heldTree.size()};
    }
}
