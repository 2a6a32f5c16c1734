package io.lockfabric.lock.lld;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.LockUnavailableException;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * LLD client: the lock-free linked list of range locks of Kogan, Dice and Issa ("Scalable range
 * locks for scalable address spaces and beyond", EuroSys'20, exclusive variant) with every CPU
 * atomic replaced by a one-sided verb, as CITRON's "LLD" baseline (FAST'23 §4.1, Table 1). Layout
 * in {@link LldLayout}.
 *
 * <p>The list holds the granted ranges, sorted by start and pairwise disjoint (released ones are
 * marked and wait to be unlinked). <b>Acquire [l, r)</b>: READ the head link, then walk: per entry
 * one READ of its link, start and end (pointer chasing: a round trip per step). A marked entry is
 * unlinked with a CAS on its predecessor's link; an entry wholly left of [l, r) is passed; the first
 * entry wholly right of it (or the end) is the insertion point: one batch WRITEs the client's entry
 * (its link pointing to that successor) and CASes the predecessor's link to it. An entry that
 * overlaps [l, r) is waited for: READ its link every {@code poll-ns} until it is marked, then unlink
 * it and go on. Any failed CAS, or an entry recycled under the walk (its gen differs from the
 * pointer's), is a retry (counted in {@link LockStats#retries()}): the walk goes on from the same
 * predecessor if the failed CAS shows it still unmarked and of the same incarnation (as in Kogan et
 * al.), else restarts from the head.
 * <b>Release</b>: one masked CAS that ORs the MARK bit into the entry's link (logical deletion);
 * later walks unlink it. A waiting request holds nothing, so there is no deadlock; there is no
 * fairness (a waiter may be overtaken).
 *
 * <p><b>Why it is safe</b>: an insertion CAS succeeds only if the predecessor is unmarked, is the
 * incarnation that was read (its own gen is in the compared word) and still points to the
 * successor incarnation that was read; an incarnation is linked once and never again after it is
 * unlinked, so the range reads behind the decision (predecessor ends at or before l, successor
 * starts at or after r) are still those of live list members, and the sorted disjoint list has no
 * other entry that can overlap [l, r).
 *
 * <p><b>Reclamation</b>: each client owns a pool of {@code pool} entries reserved at open time.
 * An entry is recycled only after it was unlinked: by its owner's own walk, or by another client,
 * which then ORs the FREE bit into its link (posted with its next batch, at the latest with the
 * insertion or release that ends its operation). The owner looks for a free entry locally, then
 * READs its pool's link words (one READ), then walks the whole list unlinking marked entries.
 * Reuse bumps the entry's own gen, so stale pointers, stale reads and stale CASes held by slow
 * walkers fail their validation (ABA-safe up to the 21-bit gen wrap).
 *
 * <p>Uncontended cycle by one client (its previous range still marked in the list): READ head,
 * READ the marked entry, CAS to unlink it, WRITE + CAS to insert, masked CAS to release: five round
 * trips. Exclusive only; the fencing token is the entry's incarnation (gen and index), not ordered.
 * No recovery: a crashed holder's range stays locked. Not thread-safe: one thread at a time.
 */
final class LldClient implements RangeLockClient {
    private static final byte SLOT_FREE = 0;
    private static final byte SLOT_HELD = 1;
    private static final byte SLOT_RELEASED = 2;

    private final QueuePair qp;
    private final Table table;
    private final Clock clock;
    private final long pollNs;
    private final long ownerOrdinal;
    private final long firstIndex;
    private final long[] gen;
    private final byte[] slotState;
    private final List<Long> pendingFree = new ArrayList<>();
    private final Set<LldGrant> held = Collections.newSetFromMap(new IdentityHashMap<>());
    private long retries;
    /** Test hook: run once just before the next insertion batch is posted (interleaves other clients). */
    private Runnable beforeLinkCas;
    /** What the last failed CAS on a predecessor's link found there. */
    private long lastCasOld;

    /** Reserves this client's pool of {@code pool} entries (one FAA). */
    LldClient(Endpoint endpoint, Table table, long maxClients, int pool, long pollNs) {
        this.qp = endpoint.queuePair(table.memoryNode());
        this.table = table;
        this.clock = endpoint.clock();
        this.pollNs = pollNs;
        this.ownerOrdinal = endpoint.ordinal();
        long cursor = qp.faa(table.at(LldLayout.POOL_CURSOR_OFFSET), pool);
        long entries = LldLayout.entries(maxClients, pool);
        if (cursor < 0 || cursor > entries - 1 - pool) {
            throw new LockUnavailableException("lld table " + table.spec().name() + " is full: its " + (entries - 1)
                    + " entries (max-clients=" + maxClients + " x pool=" + pool + ") are reserved by earlier clients");
        }
        this.firstIndex = 1 + cursor;
        this.gen = new long[pool];
        this.slotState = new byte[pool];
    }

    @Override
    public RangeGrant acquire(long start, long end, Mode mode) {
        checkRange(start, end);
        int slot = freeSlot();
        LldGrant g = insert(slot, start, end, true);
        held.add(g);
        return g;
    }

    /** Like {@link #acquire} but returns null at once if a held range overlaps [start, end). */
    RangeGrant tryAcquire(long start, long end) {
        checkRange(start, end);
        int slot = freeSlot();
        LldGrant g = insert(slot, start, end, false);
        if (g == null) {
            flushFrees();
            return null;
        }
        held.add(g);
        return g;
    }

    @Override
    public void release(RangeGrant grant) {
        if (!(grant instanceof LldGrant g) || !held.remove(g)) {
            throw new IllegalArgumentException("lld: not a grant this client holds: " + grant);
        }
        Batch b = batch();
        b.maskedCas(linkAddress(firstIndex + g.slot()), 0, 0, LldLayout.MARK, LldLayout.MARK);
        qp.execute(b);
        slotState[g.slot()] = SLOT_RELEASED;
    }

    @Override
    public LockStats stats() {
        return new LockStats(retries, 0, 0);
    }

    @Override
    public void close() {
        flushFrees();
    }

    private static void checkRange(long start, long end) {
        if (start < 0 || end <= start) {
            throw new IllegalArgumentException("lld: bad range [" + start + ", " + end + ")");
        }
    }

    /** A pool entry that is not in the list: known free, else learnt from the pool's FREE bits, else swept free. */
    private int freeSlot() {
        for (int attempt = 0; ; attempt++) {
            int s = knownFree();
            if (s >= 0) {
                return s;
            }
            if (held.size() == gen.length) {
                throw new LockUnavailableException("lld: this client already holds " + held.size()
                        + " ranges, one per entry of its pool (raise the pool option)");
            }
            Batch b = batch();
            int r = b.read(table.at(LldLayout.entryOffset(firstIndex)), gen.length * LldLayout.ENTRY_BYTES);
            qp.execute(b);
            ByteBuffer pool = ByteBuffer.wrap(b.bytesResult(r)).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < gen.length; i++) {
                long link = pool.getLong(i * LldLayout.ENTRY_BYTES + LldLayout.LINK_OFFSET);
                if (slotState[i] == SLOT_RELEASED && LldLayout.free(link) && LldLayout.ownGen(link) == gen[i]) {
                    slotState[i] = SLOT_FREE;
                }
            }
            s = knownFree();
            if (s >= 0) {
                return s;
            }
            if (attempt > 0) {
                clock.sleepNanos(pollNs); // an unlinker's FREE bit may be in flight
            }
            sweep();
        }
    }

    private int knownFree() {
        for (int i = 0; i < slotState.length; i++) {
            if (slotState[i] == SLOT_FREE) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Links pool entry {@code slot} holding [start, end) into the list; with {@code wait} false
     * returns null instead of waiting for an overlapping range.
     */
    private LldGrant insert(int slot, long start, long end, boolean wait) {
        restart:
        while (true) {
            long prevAddr = linkAddress(LldLayout.HEAD_INDEX);
            long prevLink = read8(prevAddr);
            while (true) {
                int cur = LldLayout.succIndex(prevLink);
                if (cur == LldLayout.NIL) {
                    LldGrant g = link(slot, start, end, prevAddr, prevLink);
                    if (g != null) {
                        return g;
                    }
                    retries++;
                    if (!resumable(prevLink)) {
                        continue restart;
                    }
                    prevLink = lastCasOld;
                    continue;
                }
                Node n = readNode(cur);
                if (LldLayout.ownGen(n.link) != LldLayout.succGen(prevLink)) {
                    retries++; // recycled under us: the pointer we followed is stale
                    continue restart;
                }
                long curLink = n.link;
                if (!LldLayout.marked(curLink)) {
                    if (n.end <= start) {
                        prevAddr = linkAddress(cur);
                        prevLink = curLink;
                        continue;
                    }
                    if (end <= n.start) {
                        LldGrant g = link(slot, start, end, prevAddr, prevLink);
                        if (g != null) {
                            return g;
                        }
                        retries++;
                        if (!resumable(prevLink)) {
                            continue restart;
                        }
                        prevLink = lastCasOld;
                        continue;
                    }
                    if (!wait) {
                        return null;
                    }
                    curLink = awaitMarked(cur, curLink);
                    if (curLink == Long.MIN_VALUE) {
                        retries++;
                        continue restart;
                    }
                }
                if (!unlink(prevAddr, prevLink, cur, curLink)) {
                    retries++;
                    if (!resumable(prevLink)) {
                        continue restart;
                    }
                    prevLink = lastCasOld;
                    continue;
                }
                prevLink = LldLayout.withSuccOf(prevLink, curLink);
            }
        }
    }

    /**
     * After a failed CAS on prev's link: whether the walk may go on from prev with the link the CAS
     * returned ({@link #lastCasOld}), as Kogan et al. do: yes while prev is still the same unmarked
     * incarnation (its range, read before, still holds); otherwise restart from the head.
     */
    private boolean resumable(long prevLink) {
        return !LldLayout.marked(lastCasOld) && LldLayout.ownGen(lastCasOld) == LldLayout.ownGen(prevLink);
    }

    /** One batch: WRITE the entry pointing at prev's successor, CAS prev's link to the entry. */
    private LldGrant link(int slot, long start, long end, long prevAddr, long prevLink) {
        long index = firstIndex + slot;
        long g = LldLayout.nextGen(gen[slot]);
        gen[slot] = g; // the entry is private until the CAS lands, so a failed attempt just moves on
        ByteBuffer entry = ByteBuffer.allocate(LldLayout.ENTRY_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        entry.putLong(LldLayout.LINK_OFFSET, LldLayout.withSuccOf(LldLayout.link(g, 0, 0), prevLink));
        entry.putLong(LldLayout.START_OFFSET, start);
        entry.putLong(LldLayout.END_OFFSET, end);
        entry.putLong(LldLayout.OWNER_OFFSET, ownerOrdinal);
        long swapped = LldLayout.withSuccOf(prevLink, LldLayout.link(0, g, index));
        if (beforeLinkCas != null) {
            Runnable hook = beforeLinkCas;
            beforeLinkCas = null;
            hook.run();
        }
        Batch b = batch();
        b.write(table.at(LldLayout.entryOffset(index)), entry.array());
        int c = b.cas(prevAddr, prevLink, swapped);
        qp.execute(b);
        if (b.longResult(c) != prevLink) {
            lastCasOld = b.longResult(c);
            return null;
        }
        slotState[slot] = SLOT_HELD;
        return new LldGrant(start, end, (g << LldLayout.INDEX_BITS) | index, slot);
    }

    /** CASes prev past the marked entry {@code cur}; the winner frees it (or notes its own entry free). */
    private boolean unlink(long prevAddr, long prevLink, int cur, long curLink) {
        Batch b = batch();
        int c = b.cas(prevAddr, prevLink, LldLayout.withSuccOf(prevLink, curLink));
        qp.execute(b);
        if (b.longResult(c) != prevLink) {
            lastCasOld = b.longResult(c);
            return false;
        }
        long slot = cur - firstIndex;
        if (slot >= 0 && slot < gen.length) {
            slotState[(int) slot] = SLOT_FREE;
        } else {
            pendingFree.add((long) cur); // posted with our next batch
        }
        return true;
    }

    /** READs {@code cur}'s link until it is marked; {@link Long#MIN_VALUE} if the entry was recycled. */
    private long awaitMarked(int cur, long seen) {
        while (true) {
            clock.sleepNanos(pollNs);
            long link = read8(linkAddress(cur));
            if (LldLayout.ownGen(link) != LldLayout.ownGen(seen)) {
                return Long.MIN_VALUE;
            }
            if (LldLayout.marked(link)) {
                return link;
            }
        }
    }

    /** Walks the whole list, unlinking marked entries; restarts on interference until one pass completes. */
    private void sweep() {
        restart:
        while (true) {
            long prevAddr = linkAddress(LldLayout.HEAD_INDEX);
            long prevLink = read8(prevAddr);
            while (LldLayout.succIndex(prevLink) != LldLayout.NIL) {
                int cur = LldLayout.succIndex(prevLink);
                Node n = readNode(cur);
                if (LldLayout.ownGen(n.link) != LldLayout.succGen(prevLink)) {
                    retries++;
                    continue restart;
                }
                if (LldLayout.marked(n.link)) {
                    if (!unlink(prevAddr, prevLink, cur, n.link)) {
                        retries++;
                        continue restart;
                    }
                    prevLink = LldLayout.withSuccOf(prevLink, n.link);
                } else {
                    prevAddr = linkAddress(cur);
                    prevLink = n.link;
                }
            }
            flushFrees();
            return;
        }
    }

    /** A batch that first carries the FREE bits owed to entries this client unlinked. */
    private Batch batch() {
        Batch b = new Batch();
        for (long index : pendingFree) {
            b.maskedCas(linkAddress(index), 0, 0, LldLayout.FREE, LldLayout.FREE);
        }
        pendingFree.clear();
        return b;
    }

    private void flushFrees() {
        if (!pendingFree.isEmpty()) {
            qp.execute(batch());
        }
    }

    private long read8(long address) {
        Batch b = batch();
        int r = b.read8(address);
        qp.execute(b);
        return b.longResult(r);
    }

    private Node readNode(long index) {
        Batch b = batch();
        int r = b.read(table.at(LldLayout.entryOffset(index)), LldLayout.NODE_READ_BYTES);
        qp.execute(b);
        ByteBuffer n = ByteBuffer.wrap(b.bytesResult(r)).order(ByteOrder.LITTLE_ENDIAN);
        return new Node(n.getLong(LldLayout.LINK_OFFSET), n.getLong(LldLayout.START_OFFSET),
                n.getLong(LldLayout.END_OFFSET));
    }

    private long linkAddress(long index) {
        return table.at(LldLayout.entryOffset(index) + LldLayout.LINK_OFFSET);
    }

    /** Runs {@code hook} once, just before this client's next insertion CAS is posted (tests). */
    void onceBeforeLinkCas(Runnable hook) {
        beforeLinkCas = hook;
    }

    /**
     * The list as it is now, head first: per entry {index, start, end, marked (0/1)}. For tests and
     * diagnostics: READs without unlinking; meaningful only while nobody changes the list.
     */
    static List<long[]> snapshot(QueuePair qp, Table table) {
        List<long[]> out = new ArrayList<>();
        long link = qp.read8(table.at(LldLayout.entryOffset(LldLayout.HEAD_INDEX) + LldLayout.LINK_OFFSET));
        while (LldLayout.succIndex(link) != LldLayout.NIL) {
            int index = LldLayout.succIndex(link);
            ByteBuffer n = ByteBuffer.wrap(qp.read(table.at(LldLayout.entryOffset(index)), LldLayout.NODE_READ_BYTES))
                    .order(ByteOrder.LITTLE_ENDIAN);
            link = n.getLong(LldLayout.LINK_OFFSET);
            out.add(new long[] {index, n.getLong(LldLayout.START_OFFSET), n.getLong(LldLayout.END_OFFSET),
                    LldLayout.marked(link) ? 1 : 0});
        }
        return out;
    }

    private record Node(long link, long start, long end) {
    }

    /** The fencing token is the entry's incarnation: gen above the entry index. */
    private record LldGrant(long start, long end, long fencingToken, int slot) implements RangeGrant {
        @Override
        public Mode mode() {
            return Mode.EXCLUSIVE;
        }
    }
}
