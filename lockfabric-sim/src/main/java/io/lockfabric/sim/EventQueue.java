package io.lockfabric.sim;

import java.util.Arrays;

/**
 * The simulation's pending events, ordered by (time, seq); {@code seq} is unique and increases
 * with every event added, and an event is never added before the current virtual time.
 *
 * <p>Two structures, both on primitive arrays: a calendar wheel for the near future (almost
 * every event: a network hop, a NIC service time) and a binary heap for the rest. The wheel has
 * {@link #BUCKETS} buckets of {@code 2^}{@link #BUCKET_SHIFT} ns each, each bucket a list sorted
 * by (time, seq), and a bitmap of the non-empty buckets; an event goes there if it falls within
 * {@link #BUCKETS} buckets of now (so a bucket never holds events of two laps) and is not to be
 * inserted deep into a crowded bucket. The earliest event is the earlier of the wheel's first (the
 * head of the first non-empty bucket from now on) and the heap's top. Adding and taking cost a few
 * array accesses instead of a heap's log n sifting.
 *
 * <p>Not thread-safe (used by the thread holding the simulation's baton).
 */
final class EventQueue {
    static final int BUCKET_SHIFT = 6;
    static final int BUCKETS = 1 << 12;
    private static final int BUCKET_MASK = BUCKETS - 1;
    private static final int NONE = -1;
    private static final int INITIAL_CAPACITY = 1024;
    /** How far into a bucket's list an event may be inserted before it goes to the heap instead. */
    private static final int MAX_BUCKET_WALK = 8;

    // ---- wheel: nodes in parallel arrays, linked per bucket
    private final int[] head = new int[BUCKETS];
    private final int[] tail = new int[BUCKETS];
    private final long[] occupied = new long[BUCKETS / 64];
    /** Bit w set iff occupied[w] != 0. */
    private long occupiedWords;
    private long[] nodeTime = new long[INITIAL_CAPACITY];
    private long[] nodeSeq = new long[INITIAL_CAPACITY];
    private int[] nodeNext = new int[INITIAL_CAPACITY];
    private Runnable[] nodeAction = new Runnable[INITIAL_CAPACITY];
    private int[] freeNodes = new int[INITIAL_CAPACITY];
    private int freeNodeCount;
    private int usedNodes;
    private int wheelSize;

    // ---- heap: (time, seq) keys two longs per entry, each with the slot of its action, so that
    // sifting moves no references
    private long[] heapKeys = new long[2 * INITIAL_CAPACITY];
    private int[] heapSlot = new int[INITIAL_CAPACITY];
    private int heapSize;
    private Runnable[] slotAction = new Runnable[INITIAL_CAPACITY];
    private int[] freeSlots = new int[INITIAL_CAPACITY];
    private int freeSlotCount;
    private int usedSlots;

    /** Where {@link #peekTime} found the earliest event: a wheel bucket, or {@link #NONE} for the heap. */
    private int peekedBucket = NONE;

    EventQueue() {
        Arrays.fill(head, NONE);
        Arrays.fill(tail, NONE);
    }

    int size() {
        return wheelSize + heapSize;
    }

    boolean isEmpty() {
        return wheelSize + heapSize == 0;
    }

    /** Adds an event at {@code time} >= {@code now}, with a {@code seq} greater than any added before. */
    void add(long now, long time, long seq, Runnable action) {
        if ((time >>> BUCKET_SHIFT) - (now >>> BUCKET_SHIFT) < BUCKETS) {
            addToWheel(time, seq, action);
        } else {
            addToHeap(time, seq, action);
        }
    }

    /**
     * The time of the earliest event (the queue must not be empty; {@code now} is at most that
     * time), which a following {@link #poll} (with no {@link #add} in between) takes.
     */
    long peekTime(long now) {
        int b = wheelSize == 0 ? NONE : firstBucket(now);
        if (b == NONE) {
            peekedBucket = NONE;
            return heapKeys[0];
        }
        int x = head[b];
        long t = nodeTime[x];
        if (heapSize > 0) {
            long ht = heapKeys[0];
            if (ht < t || (ht == t && heapKeys[1] < nodeSeq[x])) {
                peekedBucket = NONE;
                return ht;
            }
        }
        peekedBucket = b;
        return t;
    }

    /** Removes the event found by the last {@link #peekTime} and returns its action. */
    Runnable poll() {
        int b = peekedBucket;
        return b == NONE ? pollHeap() : pollBucket(b);
    }

    // ---------------------------------------------------------------- wheel

    /**
     * Adds to the wheel, keeping the bucket sorted; an event that would go deep into a crowded
     * bucket (many events within one bucket's span, out of order) goes to the heap instead.
     */
    private void addToWheel(long time, long seq, Runnable action) {
        int b = (int) (time >>> BUCKET_SHIFT) & BUCKET_MASK;
        int last = tail[b];
        int prev = NONE;
        int next = NONE;
        if (last != NONE && nodeTime[last] > time) {
            // events at one time arrive in seq order: the new one goes after every event <= time
            next = head[b];
            for (int steps = 0; nodeTime[next] <= time; steps++) {
                if (steps == MAX_BUCKET_WALK) {
                    addToHeap(time, seq, action);
                    return;
                }
                prev = next;
                next = nodeNext[next];
            }
        }
        int x = newNode();
        nodeTime[x] = time;
        nodeSeq[x] = seq;
        nodeAction[x] = action;
        wheelSize++;
        if (last == NONE) {
            nodeNext[x] = NONE;
            head[b] = x;
            tail[b] = x;
            int w = b >>> 6;
            occupied[w] |= 1L << b;
            occupiedWords |= 1L << w;
        } else if (next == NONE) {
            nodeNext[x] = NONE;
            nodeNext[last] = x;
            tail[b] = x;
        } else {
            nodeNext[x] = next;
            if (prev == NONE) {
                head[b] = x;
            } else {
                nodeNext[prev] = x;
            }
        }
    }

    private int newNode() {
        if (freeNodeCount > 0) {
            return freeNodes[--freeNodeCount];
        }
        if (usedNodes == nodeTime.length) {
            int n = usedNodes * 2;
            nodeTime = Arrays.copyOf(nodeTime, n);
            nodeSeq = Arrays.copyOf(nodeSeq, n);
            nodeNext = Arrays.copyOf(nodeNext, n);
            nodeAction = Arrays.copyOf(nodeAction, n);
            freeNodes = Arrays.copyOf(freeNodes, n);
        }
        return usedNodes++;
    }

    /**
     * The first non-empty bucket from now on, wrapping around: every event in the wheel is
     * within {@link #BUCKETS} buckets from now, so that is the earliest one's.
     */
    private int firstBucket(long now) {
        int c = (int) (now >>> BUCKET_SHIFT) & BUCKET_MASK;
        int w = c >>> 6;
        long m = occupied[w] & (-1L << c);
        if (m != 0) {
            return (w << 6) | Long.numberOfTrailingZeros(m);
        }
        long later = occupiedWords & (-2L << w);
        int w2 = Long.numberOfTrailingZeros(later != 0 ? later : occupiedWords);
        return (w2 << 6) | Long.numberOfTrailingZeros(occupied[w2]);
    }

    private Runnable pollBucket(int b) {
        int x = head[b];
        Runnable action = nodeAction[x];
        nodeAction[x] = null;
        int next = nodeNext[x];
        head[b] = next;
        if (next == NONE) {
            tail[b] = NONE;
            int w = b >>> 6;
            long bits = occupied[w] & ~(1L << b);
            occupied[w] = bits;
            if (bits == 0) {
                occupiedWords &= ~(1L << w);
            }
        }
        freeNodes[freeNodeCount++] = x;
        wheelSize--;
        return action;
    }

    // ---------------------------------------------------------------- heap

    private void addToHeap(long time, long seq, Runnable action) {
        int slot;
        if (freeSlotCount > 0) {
            slot = freeSlots[--freeSlotCount];
        } else {
            if (usedSlots == slotAction.length) {
                int n = usedSlots * 2;
                slotAction = Arrays.copyOf(slotAction, n);
                freeSlots = Arrays.copyOf(freeSlots, n);
                heapKeys = Arrays.copyOf(heapKeys, 2 * n);
                heapSlot = Arrays.copyOf(heapSlot, n);
            }
            slot = usedSlots++;
        }
        slotAction[slot] = action;
        long[] k = heapKeys;
        int[] hs = heapSlot;
        int i = heapSize++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            long pt = k[2 * parent];
            if (pt < time || (pt == time && k[2 * parent + 1] < seq)) {
                break;
            }
            k[2 * i] = pt;
            k[2 * i + 1] = k[2 * parent + 1];
            hs[i] = hs[parent];
            i = parent;
        }
        k[2 * i] = time;
        k[2 * i + 1] = seq;
        hs[i] = slot;
    }

    private Runnable pollHeap() {
        long[] k = heapKeys;
        int[] hs = heapSlot;
        int topSlot = hs[0];
        Runnable top = slotAction[topSlot];
        slotAction[topSlot] = null;
        freeSlots[freeSlotCount++] = topSlot;
        int n = --heapSize;
        if (n > 0) {
            long time = k[2 * n];
            long seq = k[2 * n + 1];
            int slot = hs[n];
            int i = 0;
            int half = n >>> 1;
            while (i < half) {
                int child = 2 * i + 1;
                long ct = k[2 * child];
                long cs = k[2 * child + 1];
                int right = child + 1;
                if (right < n) {
                    long rt = k[2 * right];
                    long rs = k[2 * right + 1];
                    if (rt < ct || (rt == ct && rs < cs)) {
                        child = right;
                        ct = rt;
                        cs = rs;
                    }
                }
                if (time < ct || (time == ct && seq < cs)) {
                    break;
                }
                k[2 * i] = ct;
                k[2 * i + 1] = cs;
                hs[i] = hs[child];
                i = child;
            }
            k[2 * i] = time;
            k[2 * i + 1] = seq;
            hs[i] = slot;
        }
        return top;
    }
}
