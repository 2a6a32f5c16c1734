package io.lockfabric.lock.rpcrange;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicMarkableReference;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The lock-free linked list of range locks of {@code llc} (after Kogan, Dice and Issa, "Scalable
 * range locks for scalable address spaces and beyond", EuroSys'20; CITRON FAST'23's "LLC"), run by
 * the memory node's CPU threads: no locks, only CAS on list links, node states and wait stacks.
 *
 * <p><b>The list</b> holds one node per request, held or waiting, sorted by (start, id), with a
 * Harris–Michael link: a node is deleted logically by marking its own link (CAS), then unlinked by
 * any traversal (CAS on the predecessor's link). Insertion is a CAS on the predecessor's unmarked
 * link, so it never lands behind a deleted node.
 *
 * <p><b>Overlap checks</b>: readers overlap readers, never writers. After insertion a node
 * validates: it walks the list from the head over every node that starts before its end, and for
 * each live (unmarked) node that overlaps it in a conflicting mode: a node <i>before</i> it in the
 * list (any state) blocks it; a node <i>after</i> it blocks it only if granted; one after it still
 * pending is reset (CAS PENDING → RETRY), which makes that node's own grant CAS fail and its
 * validation start over (it will then find this node before it and wait). With no blocker, the node
 * grants itself by CAS PENDING → GRANTED; if that fails (it was reset), it validates again.
 *
 * <p><b>Why two conflicting nodes are never both granted</b>: take such nodes A before B. The later
 * of the two validations to begin walks after both were inserted and sees the other. If B's sees A,
 * B is blocked (A is before it). If A's sees B, either B is already granted (A is blocked) or A's
 * reset CAS precedes B's grant CAS (B's grant fails and B validates again, after A's insertion, so it
 * sees A). Conflicting nodes are ordered by position, so waits form no cycle: a node waits only for
 * a node before it or for a granted node, and a granted node waits for nothing.
 *
 * <p><b>Waiting is queue/wake, not client retry</b>: a blocked node pushes itself onto the blocker's
 * wait stack (a Treiber stack by CAS) and its rpc's reply is deferred; it holds no server thread.
 * A release marks its node, closes the node's wait stack (swapping in a sentinel, so a later push
 * fails and that validation starts over: no lost wake-up) and validates every node it took from
 * the stack, on the releasing thread. The paper's server threads (18 eRPC threads for 192 clients)
 * cannot spin per waiter, and a client retry would cost the server CPU, the resource these
 * baselines are bound by, an rpc per attempt. There is no fairness (as in Kogan et al.): a reader
 * inserted before a waiting writer overtakes it.
 *
 * <p>Thread-safe and lock-free: a validation that fails to finish does so only because another
 * node was inserted, reset it or was released.
 */
public final class LlcList {
    static final int PENDING = 0;
    static final int RETRY = 1;
    static final int GRANTED = 2;

    /** A request in the list. {@code attachment} is the caller's (the server keeps its rpc there). */
    public static final class Node {
        final long start;
        final long end;
        final boolean exclusive;
        final long id;
        final Object attachment;
        final AtomicMarkableReference<Node> next = new AtomicMarkableReference<>(null, false);
        final AtomicInteger state = new AtomicInteger(PENDING);
        final AtomicReference<WaitLink> waiters = new AtomicReference<>(null);

        /** A request for [start, end), exclusive or shared, with a unique id (the order among equal starts). */
        public Node(long start, long end, boolean exclusive, long id, Object attachment) {
            if (end <= start) {
                throw new IllegalArgumentException("empty range [" + start + ", " + end + ")");
            }
            this.start = start;
            this.end = end;
            this.exclusive = exclusive;
            this.id = id;
            this.attachment = attachment;
        }

        public Object attachment() {
            return attachment;
        }

        public long start() {
            return start;
        }

        public long end() {
            return end;
        }

        public boolean exclusive() {
            return exclusive;
        }

        public long id() {
            return id;
        }

        /** Whether the node was granted (and not yet released). */
        public boolean granted() {
            return state.get() == GRANTED && !next.isMarked();
        }

        @Override
        public String toString() {
            return "[" + start + ", " + end + ") " + (exclusive ? "X" : "S") + " #" + id;
        }
    }

    private record WaitLink(Node waiter, WaitLink next) {
    }

    private static final WaitLink CLOSED = new WaitLink(null, null);

    private final Node head = new Node(Long.MIN_VALUE, Long.MIN_VALUE + 1, false, Long.MIN_VALUE, null);

    /** Inserts {@code n} and validates it; true if it was granted at once, false if it waits. */
    public boolean acquire(Node n) {
        insert(n);
        return validate(n);
    }

    /**
     * Releases a granted {@code n}: marks it deleted, wakes the nodes that waited for it and
     * returns those of them that are granted now (each exactly once, to exactly one releaser).
     *
     * @throws IllegalStateException if {@code n} is not granted or was released before
     */
    public List<Node> release(Node n) {
        if (n.state.get() != GRANTED) {
            throw new IllegalStateException(n + " is not granted");
        }
        while (true) {
            Node succ = n.next.getReference();
            if (n.next.isMarked()) {
                throw new IllegalStateException(n + " was released before");
            }
            if (n.next.compareAndSet(succ, succ, false, true)) {
                break;
            }
        }
        WaitLink w = n.waiters.getAndSet(CLOSED);
        List<Node> woken = new ArrayList<>();
        for (; w != null && w != CLOSED; w = w.next) {
            woken.add(w.waiter);
        }
        List<Node> granted = new ArrayList<>();
        for (int i = woken.size() - 1; i >= 0; i--) { // in the order they started waiting
            if (validate(woken.get(i))) {
                granted.add(woken.get(i));
            }
        }
        find(n.start, n.id); // unlinks n (and any other deleted node on the way)
        return granted;
    }

    /** Live (unmarked) nodes now, in list order: for tests and diagnostics (not atomic). */
    public List<Node> snapshot() {
        List<Node> out = new ArrayList<>();
        boolean[] marked = new boolean[1];
        for (Node c = head.next.getReference(); c != null; ) {
            Node succ = c.next.get(marked);
            if (!marked[0]) {
                out.add(c);
            }
            c = succ;
        }
        return out;
    }

    private void insert(Node n) {
        while (true) {
            Node[] pc = find(n.start, n.id);
            n.next.set(pc[1], false);
            if (pc[0].next.compareAndSet(pc[1], n, false, false)) {
                return;
            }
        }
    }

    /**
     * Harris–Michael search: {pred, curr} with pred's key below (start, id) and curr the first node
     * at or above it (or null), unlinking marked nodes on the way.
     */
    private Node[] find(long start, long id) {
        boolean[] marked = new boolean[1];
        retry:
        while (true) {
            Node pred = head;
            Node curr = pred.next.getReference();
            while (true) {
                if (curr == null) {
                    return new Node[] {pred, null};
                }
                Node succ = curr.next.get(marked);
                while (marked[0]) {
                    if (!pred.next.compareAndSet(curr, succ, false, false)) {
                        continue retry;
                    }
                    curr = succ;
                    if (curr == null) {
                        return new Node[] {pred, null};
                    }
                    succ = curr.next.get(marked);
                }
                if (curr.start > start || (curr.start == start && curr.id >= id)) {
                    return new Node[] {pred, curr};
                }
                pred = curr;
                curr = succ;
            }
        }
    }

    /** Validates {@code n} (in the list, not granted) until it is granted (true) or waits on a blocker (false). */
    private boolean validate(Node n) {
        boolean[] marked = new boolean[1];
        while (true) {
            n.state.compareAndSet(RETRY, PENDING);
            Node blocker = null;
            boolean before = true;
            for (Node c = head.next.getReference(); c != null && c.start < n.end; ) {
                Node succ = c.next.get(marked);
                if (c == n) {
                    before = false;
                } else if (!marked[0] && c.end > n.start && (c.exclusive || n.exclusive)) {
                    if (before) {
                        blocker = c;
                        break;
                    }
                    int st;
                    // a CAS retry on the server's own heap, against another server thread: not a wait on
                    // the fabric (a strong CAS fails only when the state moved, so one thread never loops)
                    while ((st = c.state.get()) == PENDING && !c.state.compareAndSet(PENDING, RETRY)) {
                        Thread.onSpinWait();
                    }
                    if (st == GRANTED) {
                        blocker = c;
                        break;
                    }
                }
                c = succ;
            }
            if (blocker != null) {
                if (push(blocker, n)) {
                    return false;
                }
                continue; // the blocker was released meanwhile
            }
            if (n.state.compareAndSet(PENDING, GRANTED)) {
                return true;
            }
        }
    }

    private static boolean push(Node blocker, Node waiter) {
        while (true) {
            WaitLink h = blocker.waiters.get();
            if (h == CLOSED) {
                return false;
            }
            if (blocker.waiters.compareAndSet(h, new WaitLink(waiter, h))) {
                return true;
            }
        }
    }
}
