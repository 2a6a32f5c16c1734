package io.lockfabric.apps.btree;

import io.lockfabric.apps.btree.BTreeLayout.Node;
import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.Clock;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.IdleStrategy;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.Mode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.LongUnaryOperator;
import java.util.function.UnaryOperator;

/**
 * One endpoint's client of a Sherman-style B+-tree whose nodes live on a memory node
 * ({@link BTreeLayout}): a B-link tree (Lehman and Yao) with fence keys and right-sibling pointers
 * at every level, as Sherman's.
 *
 * <ul>
 *   <li><b>Search</b> is lock-free: READ the ROOT word, then READ nodes down to the leaf, each
 *       validated by its versions and checksum and read again if torn; a node whose high fence is at
 *       or below the key has split since its parent was read, and the search moves to its sibling.</li>
 *   <li><b>Insert, update</b> ({@link #put}, {@link #update}, {@link #merge}): the leaf is found
 *       lock-free, then locked ({@link LockClient}, exclusive, lock {@code node mod locks}) and read
 *       again under its lock (moving right, lock by lock, if it split meanwhile); the change is one
 *       WRITE of the whole node with its version bumped; then the lock is released.</li>
 *   <li><b>Split</b> of a full node, under its lock: a new right node is allocated (FAA on ALLOC),
 *       and the new node and the shrunk old one (its high fence the separator, its sibling the new
 *       node) are written in one batch, right node first, so a reader always finds every key. The
 *       lock is released, and the separator is inserted one level up under that node's lock (split
 *       again if full, and so on upward). A root split makes a new root and swaps the ROOT word by
 *       CAS while still holding the old root's lock, so only one root split happens at a time. A
 *       client holds one node lock at a time, so locks may be shared between nodes without deadlock.</li>
 *   <li><b>Scan</b> ({@link #scan}): lock-free, leaf by leaf along the sibling chain.</li>
 * </ul>
 *
 * There is no delete. Belongs to its endpoint's thread, as the endpoint does.
 */
public final class BTreeClient implements AutoCloseable {
    private static final int MAX_LEVELS = 64;
    private static final long MAX_TORN_READS = 10_000_000L;
    private static final String LOCKS_SUFFIX = "-locks";

    private final BTreeLayout layout;
    private final BTreeOptions options;
    private final QueuePair qp;
    private final Clock clock;
    private final Table table;
    private final LockClient locks;
    private final long lockCount;
    /** The compute node's index cache, or null without one. */
    private final IndexCache cache;
    private long tornReads;
    private long movesRight;
    private long splits;
    private long rootSplits;
    private long lockedWrites;

    private BTreeClient(Endpoint endpoint, Table table, BTreeOptions options, LockClient locks) {
        this.layout = new BTreeLayout(options.fanout());
        this.options = options;
        this.qp = endpoint.queuePair(table.memoryNode());
        this.clock = endpoint.clock();
        this.table = table;
        this.locks = locks;
        this.lockCount = locks.locks();
        this.cache = options.indexCache() ? IndexCache.of(endpoint, table) : null;
    }

    /** {@link #open(Endpoint, String, BTreeOptions, UnaryOperator)} with the lock client as it is. */
    public static BTreeClient open(Endpoint endpoint, String name, BTreeOptions options) {
        return open(endpoint, name, options, UnaryOperator.identity());
    }

    /**
     * Opens (making it if needed) the tree {@code name} on {@code endpoint}'s memory node 0: its data
     * table {@code name} and its lock table {@code name-locks}.
     *
     * @param wrap what the node lock client is wrapped in (a recorder of its grants), or identity
     * @throws IllegalArgumentException for an unknown lock variant or option, or a tree of another fan-out
     * @throws io.lockfabric.fabric.TableMismatchException if the tree exists with another capacity
     */
    public static BTreeClient open(Endpoint endpoint, String name, BTreeOptions options, UnaryOperator<LockClient> wrap) {
        BTreeLayout layout = new BTreeLayout(options.fanout());
        BTreeLocks.validate(options.lock(), options.lockOptions());
        Table table = endpoint.openTable(new TableSpec(name, BTreeLayout.TABLE_TAG, 1, layout.tableBytes(options.capacity())));
        LockClient lock = wrap.apply(BTreeLocks.open(options.lock(), endpoint, name + LOCKS_SUFFIX, options.locks(),
                options.lockOptions(), options.handoverBound()));
        BTreeClient client = new BTreeClient(endpoint, table, options, lock);
        try {
            client.init();
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
        return client;
    }

    /** The names of the tables of tree {@code name} (data, locks). */
    public static List<String> tableNames(String name) {
        return List.of(name, name + LOCKS_SUFFIX);
    }

    private long header(long offset) {
        return table.at(offset);
    }

    /** Makes the empty tree (one empty leaf as root) unless it exists; checks the fan-out. */
    private void init() {
        long fanout = qp.read8(header(BTreeLayout.FANOUT_OFFSET));
        if (fanout == 0) {
            fanout = qp.cas(header(BTreeLayout.FANOUT_OFFSET), 0, options.fanout());
            fanout = fanout == 0 ? options.fanout() : fanout;
        }
        if (fanout != options.fanout()) {
            throw new IllegalArgumentException("B+-tree '" + table.spec().name() + "' has fan-out " + fanout
                    + ", not " + options.fanout());
        }
        if (qp.read8(header(BTreeLayout.ROOT_OFFSET)) != 0) {
            return;
        }
        Node leaf = layout.newNode();
        leaf.index = allocate(1);
        write(leaf);
        qp.cas(header(BTreeLayout.ROOT_OFFSET), 0, leaf.index); // lost to another client: its root stands
    }

    /** The first of {@code n} fresh node indexes. */
    private long allocate(long n) {
        long old = qp.faa(header(BTreeLayout.ALLOC_OFFSET), n);
        if (old + n > options.capacity()) {
            throw new IllegalStateException("B+-tree '" + table.spec().name() + "' is full: " + options.capacity()
                    + " nodes (open it with a larger capacity)");
        }
        return old + 1;
    }

    private long address(long index) {
        return table.at(layout.nodeOffset(index));
    }

    private long rootIndex() {
        return qp.read8(header(BTreeLayout.ROOT_OFFSET));
    }

    /** Node {@code index} as a whole, consistent image (read again while torn). */
    private Node read(long index) {
        Node n = layout.newNode();
        IdleStrategy idle = null;
        for (long attempt = 0; ; attempt++) {
            if (layout.decode(qp.read(address(index), layout.nodeBytes()), index, n)) {
                return n;
            }
            tornReads++;
            if (attempt >= MAX_TORN_READS) {
                throw new IllegalStateException("node " + index + " of B+-tree '" + table.spec().name()
                        + "' never read whole");
            }
            if (idle == null) {
                idle = clock.idleStrategy();
            }
            idle.idle();
        }
    }

    /** Writes {@code n} whole with its version bumped (the caller holds its lock, or it is new). */
    private void write(Node n) {
        n.version++;
        qp.write(address(n.index), layout.encode(n, n.version));
    }

    private static void checkKey(long key) {
        if (key == BTreeLayout.MIN_KEY || key == BTreeLayout.MAX_KEY) {
            throw new IllegalArgumentException("keys are in (Long.MIN_VALUE, Long.MAX_VALUE), got " + key);
        }
    }

    /**
     * The node at {@code level} whose range holds {@code key}, found lock-free from the root; the
     * nodes passed above it go into {@code path} (by level) if given. Null if the root is below
     * {@code level} (a root split under way). With the index cache, internal nodes come from the
     * compute node's copies where it has them ({@link IndexCache}); the node returned is read from the
     * memory node.
     */
    private Node descend(long key, int level, long[] path) {
        long rootIndex = cache == null || cache.root() == 0 ? freshRoot() : cache.root();
        Node n = internal(rootIndex);
        if (n.level < level) {
            if (cache == null || rootIndex == freshRoot()) {
                return null;
            }
            n = internal(cache.root());
            if (n.level < level) {
                return null;
            }
        }
        long parent = 0;
        int hops = 0;
        while (true) {
            if (key >= n.high) {
                movesRight++;
                if (cache != null && parent != 0) {
                    cache.invalidate(parent); // it sent us left of the key: read it again next time
                    parent = 0;
                }
                if (cache != null && n.level > 0 && ++hops >= 2) {
                    freshRoot();
                }
                n = n.level == level ? read(n.sibling) : internal(n.sibling);
                continue;
            }
            if (n.level == level) {
                return n.level > 0 && cache != null && cache.get(n.index) == n ? read(n.index) : n;
            }
            if (path != null) {
                path[n.level] = n.index;
            }
            parent = n.index;
            long child = n.child(key);
            n = n.level - 1 == level ? read(child) : internal(child);
        }
    }

    /** The root's index, READ from the memory node (and kept in the index cache). */
    private long freshRoot() {
        long r = rootIndex();
        if (cache != null) {
            cache.root(r);
        }
        return r;
    }

    /** Node {@code index}, from the index cache if it has a copy, else READ (and cached if internal). */
    private Node internal(long index) {
        if (cache == null) {
            return read(index);
        }
        Node n = cache.get(index);
        if (n == null) {
            n = read(index);
            cache.put(n);
        }
        return n;
    }

    /** A node read under its lock. */
    private record Locked(Node node, Grant grant) {
    }

    private Grant lock(long index) {
        return locks.acquire(index % lockCount, Mode.EXCLUSIVE);
    }

    /** Locks the node at {@code start}'s level whose range holds {@code key}, moving right as needed. */
    private Locked lockFor(long key, long start) {
        long index = start;
        while (true) {
            Grant g = lock(index);
            Node n = read(index);
            if (key < n.high) {
                return new Locked(n, g);
            }
            locks.release(g);
            movesRight++;
            index = n.sibling;
        }
    }

    /** The value of {@code key}, if the tree has it. Lock-free. */
    public OptionalLong search(long key) {
        checkKey(key);
        Node leaf = descend(key, 0, null);
        int pos = leaf.find(key);
        return pos >= 0 ? OptionalLong.of(leaf.values[pos]) : OptionalLong.empty();
    }

    /** Sets {@code key} to {@code value}, inserting it if absent. */
    public void put(long key, long value) {
        merge(key, value, old -> value);
    }

    /**
     * Sets {@code key} to {@code value} if the tree has it.
     *
     * @return whether it had it
     */
    public boolean update(long key, long value) {
        checkKey(key);
        long[] path = new long[MAX_LEVELS];
        Locked l = lockFor(key, descend(key, 0, path).index);
        Node n = l.node();
        int pos = n.find(key);
        try {
            if (pos < 0) {
                return false;
            }
            n.values[pos] = value;
            write(n);
            lockedWrites++;
            return true;
        } finally {
            locks.release(l.grant());
        }
    }

    /**
     * Read-modify-write of {@code key} under its leaf's lock: {@code f} of its value if present,
     * else {@code ifAbsent} inserted.
     *
     * @return the value written
     */
    public long merge(long key, long ifAbsent, LongUnaryOperator f) {
        checkKey(key);
        long[] path = new long[MAX_LEVELS];
        Locked l = lockFor(key, descend(key, 0, path).index);
        Node n = l.node();
        int pos = n.find(key);
        long result;
        boolean released = false;
        try {
            if (pos >= 0) {
                result = f.applyAsLong(n.values[pos]);
                n.values[pos] = result;
            } else {
                result = ifAbsent;
                n.insertAt(-pos - 1, key, result);
            }
            lockedWrites++;
            if (n.count <= layout.fanout()) {
                write(n);
                return result;
            }
            released = true;
            split(n, l.grant(), path);
            return result;
        } finally {
            if (!released) {
                locks.release(l.grant());
            }
        }
    }

    /**
     * Splits {@code n} (one entry over the fan-out, its lock held as {@code g}), releases the lock and
     * inserts the separator a level up.
     */
    private void split(Node n, Grant g, long[] path) {
        long separator;
        Node right = layout.newNode();
        boolean isRoot;
        try {
            int total = n.count;
            int mid = total / 2;
            right.index = allocate(1);
            right.level = n.level;
            separator = n.keys[mid];
            int from = n.leaf() ? mid : mid + 1;
            if (!n.leaf()) {
                right.leftmost = n.values[mid];
            }
            right.count = total - from;
            System.arraycopy(n.keys, from, right.keys, 0, right.count);
            System.arraycopy(n.values, from, right.values, 0, right.count);
            right.low = separator;
            right.high = n.high;
            right.sibling = n.sibling;
            n.count = mid;
            n.high = separator;
            n.sibling = right.index;
            // the right node first, then the left one, then whether the left one is the root: one round trip
            Batch batch = new Batch();
            right.version = 1;
            batch.write(address(right.index), layout.encode(right, right.version));
            n.version++;
            batch.write(address(n.index), layout.encode(n, n.version));
            int root = batch.read8(header(BTreeLayout.ROOT_OFFSET));
            qp.execute(batch);
            splits++;
            isRoot = batch.longResult(root) == n.index;
            if (isRoot) {
                Node newRoot = layout.newNode();
                newRoot.index = allocate(1);
                newRoot.level = n.level + 1;
                newRoot.leftmost = n.index;
                newRoot.insertAt(0, separator, right.index);
                write(newRoot);
                long old = qp.cas(header(BTreeLayout.ROOT_OFFSET), n.index, newRoot.index);
                if (old != n.index) {
                    throw new IllegalStateException("root of B+-tree '" + table.spec().name() + "' changed from "
                            + n.index + " to " + old + " under its lock");
                }
                rootSplits++;
            }
        } finally {
            locks.release(g);
        }
        if (!isRoot) {
            insertSeparator(n.level + 1, separator, right.index, path);
        }
    }

    /** Inserts {@code separator -> child} at {@code level}, under the lock of the node that covers it. */
    private void insertSeparator(int level, long separator, long child, long[] path) {
        long start = level < MAX_LEVELS ? path[level] : 0;
        if (start == 0) {
            IdleStrategy idle = clock.idleStrategy();
            Node n;
            while ((n = descend(separator, level, path)) == null) {
                idle.idle(); // the root's split is under way in another client
            }
            start = n.index;
        }
        Locked l = lockFor(separator, start);
        Node p = l.node();
        boolean released = false;
        try {
            int pos = p.find(separator);
            if (pos >= 0) {
                throw new IllegalStateException("separator " + separator + " is in " + p + " already");
            }
            p.insertAt(-pos - 1, separator, child);
            if (p.count <= layout.fanout()) {
                write(p);
                return;
            }
            released = true;
            split(p, l.grant(), path);
        } finally {
            if (!released) {
                locks.release(l.grant());
            }
        }
    }

    /** A key and its value. */
    public record Entry(long key, long value) {
    }

    /** The entries with keys in [{@code from}, {@code to}), ascending. Lock-free, node by node. */
    public List<Entry> scan(long from, long to) {
        checkKey(from);
        List<Entry> out = new ArrayList<>();
        if (to <= from) {
            return out;
        }
        Node n = descend(from, 0, null);
        while (true) {
            for (int j = 0; j < n.count; j++) {
                if (n.keys[j] >= from && n.keys[j] < to) {
                    out.add(new Entry(n.keys[j], n.values[j]));
                }
            }
            if (n.high >= to || n.sibling == 0) {
                return out;
            }
            n = read(n.sibling);
        }
    }

    /** Whether a bulk load ({@link #load}) finished on this tree. */
    public boolean loaded() {
        return qp.read8(header(BTreeLayout.LOADED_OFFSET)) != 0;
    }

    /**
     * Bulk-loads an empty tree bottom-up: nodes three quarters full, each WRITE once, the ROOT word
     * swapped last, then LOADED set. No other client may write the tree meanwhile.
     *
     * @param keys   strictly ascending keys
     * @param values their values
     * @throws IllegalStateException if the tree is not empty
     */
    public void load(long[] keys, long[] values) {
        if (keys.length != values.length) {
            throw new IllegalArgumentException("keys and values differ in length");
        }
        for (int i = 0; i < keys.length; i++) {
            checkKey(keys[i]);
            if (i > 0 && keys[i] <= keys[i - 1]) {
                throw new IllegalArgumentException("keys must ascend strictly: " + keys[i - 1] + " then " + keys[i]);
            }
        }
        long oldRoot = rootIndex();
        Node root = read(oldRoot);
        if (!root.leaf() || root.count != 0) {
            throw new IllegalStateException("B+-tree '" + table.spec().name() + "' is not empty");
        }
        if (keys.length > 0) {
            int fill = Math.max(2, layout.fanout() * 3 / 4);
            List<Node> level = new ArrayList<>();
            int leaves = (keys.length + fill - 1) / fill;
            long first = allocate(leaves);
            for (int i = 0; i < leaves; i++) {
                int lo = (int) ((long) keys.length * i / leaves);
                int hi = (int) ((long) keys.length * (i + 1) / leaves);
                Node leaf = layout.newNode();
                leaf.index = first + i;
                leaf.count = hi - lo;
                System.arraycopy(keys, lo, leaf.keys, 0, hi - lo);
                System.arraycopy(values, lo, leaf.values, 0, hi - lo);
                leaf.low = i == 0 ? BTreeLayout.MIN_KEY : keys[lo];
                level.add(leaf);
            }
            List<Node> all = new ArrayList<>(level);
            for (int lvl = 1; level.size() > 1; lvl++) {
                link(level);
                int groups = (level.size() + fill) / (fill + 1);
                long firstUp = allocate(groups);
                List<Node> up = new ArrayList<>();
                for (int g = 0; g < groups; g++) {
                    int lo = (int) ((long) level.size() * g / groups);
                    int hi = (int) ((long) level.size() * (g + 1) / groups);
                    Node p = layout.newNode();
                    p.index = firstUp + g;
                    p.level = lvl;
                    p.low = level.get(lo).low;
                    p.leftmost = level.get(lo).index;
                    for (int c = lo + 1; c < hi; c++) {
                        p.insertAt(p.count, level.get(c).low, level.get(c).index);
                    }
                    up.add(p);
                }
                level = up;
                all.addAll(up);
            }
            link(level);
            Batch batch = new Batch();
            for (Node n : all) {
                n.version = 1;
                batch.write(address(n.index), layout.encode(n, 1));
                if (batch.size() == 64) {
                    qp.execute(batch);
                    batch = new Batch();
                }
            }
            if (batch.size() > 0) {
                qp.execute(batch);
            }
            long old = qp.cas(header(BTreeLayout.ROOT_OFFSET), oldRoot, level.getFirst().index);
            if (old != oldRoot) {
                throw new IllegalStateException("B+-tree '" + table.spec().name() + "' changed during its load");
            }
        }
        qp.write8(header(BTreeLayout.LOADED_OFFSET), 1);
    }

    /** Sets the high fences and siblings of one level's nodes, left to right. */
    private static void link(List<Node> level) {
        for (int i = 0; i < level.size(); i++) {
            Node n = level.get(i);
            boolean last = i == level.size() - 1;
            n.high = last ? BTreeLayout.MAX_KEY : level.get(i + 1).low;
            n.sibling = last ? 0 : level.get(i + 1).index;
        }
    }

    /**
     * Checks the structure of a quiescent tree (no writer running) and returns every entry: the root
     * spans every key; each level is a chain of siblings from minus to plus infinity whose fences
     * meet; a node's keys ascend within its fences; no node holds more than the fan-out, and no node
     * but the root less than a quarter of it (splits leave halves; a bulk load three-eighths at
     * least); the children of each level, in order, are exactly the next level's chain, each with the
     * low fence its separator says (so every leaf is reachable from the root); and the leaves' keys
     * ascend across the chain.
     */
    public BTreeCheck check() {
        List<String> problems = new ArrayList<>();
        long rootIndex = rootIndex();
        Node root = read(rootIndex);
        if (root.low != BTreeLayout.MIN_KEY || root.high != BTreeLayout.MAX_KEY || root.sibling != 0) {
            problem(problems, "root " + root + " does not span every key alone");
        }
        int minEntries = layout.fanout() / 4;
        List<Long> expected = List.of(rootIndex);
        Map<Long, Long> expectedLow = new HashMap<>(Map.of(rootIndex, BTreeLayout.MIN_KEY));
        long nodes = 0;
        List<Node> chain = List.of();
        List<Long> keys = new ArrayList<>();
        List<Long> values = new ArrayList<>();
        for (int level = root.level; level >= 0; level--) {
            chain = new ArrayList<>();
            Set<Long> seen = new HashSet<>();
            long index = expected.getFirst();
            long prevHigh = BTreeLayout.MIN_KEY;
            while (index != 0) {
                if (!seen.add(index)) {
                    problem(problems, "level " + level + ": the sibling chain loops at node " + index);
                    break;
                }
                Node n = read(index);
                chain.add(n);
                if (n.level != level) {
                    problem(problems, n + " is in the chain of level " + level);
                }
                if (n.low != prevHigh) {
                    problem(problems, n + ": low fence " + Node.fence(n.low) + " is not its left neighbour's high fence "
                            + Node.fence(prevHigh));
                }
                if (n.high <= n.low) {
                    problem(problems, n + ": empty range");
                }
                for (int j = 0; j < n.count; j++) {
                    if (!n.covers(n.keys[j]) || (j > 0 && n.keys[j] <= n.keys[j - 1])) {
                        problem(problems, n + ": key " + n.keys[j] + " out of order or outside its fences");
                        break;
                    }
                }
                int fill = n.leaf() ? n.count : n.count + 1;
                if (n.count > layout.fanout() || (index != rootIndex && fill < minEntries)) {
                    problem(problems, n + ": " + fill + (n.leaf() ? " entries" : " children") + " outside ["
                            + minEntries + ", " + layout.fanout() + "]");
                }
                prevHigh = n.high;
                index = n.sibling;
            }
            if (prevHigh != BTreeLayout.MAX_KEY) {
                problem(problems, "level " + level + " ends at " + Node.fence(prevHigh) + ", not +inf");
            }
            List<Long> indexes = chain.stream().map(Node::index).toList();
            if (!indexes.equals(expected)) {
                problem(problems, "level " + level + ": the sibling chain " + abbreviate(indexes)
                        + " is not the children of the level above " + abbreviate(expected));
            }
            for (Node n : chain) {
                Long low = expectedLow.get(n.index);
                if (low != null && low != n.low) {
                    problem(problems, n + ": its parent's separator says low fence " + Node.fence(low));
                }
            }
            nodes += chain.size();
            List<Long> next = new ArrayList<>();
            expectedLow = new HashMap<>();
            for (Node n : chain) {
                if (n.leaf()) {
                    for (int j = 0; j < n.count; j++) {
                        keys.add(n.keys[j]);
                        values.add(n.values[j]);
                    }
                } else {
                    next.add(n.leftmost);
                    expectedLow.put(n.leftmost, n.low);
                    for (int j = 0; j < n.count; j++) {
                        next.add(n.values[j]);
                        expectedLow.put(n.values[j], n.keys[j]);
                    }
                }
            }
            if (level > 0 && next.isEmpty()) {
                problem(problems, "level " + level + " has no children");
                break;
            }
            expected = next;
        }
        for (int i = 1; i < keys.size(); i++) {
            if (keys.get(i) <= keys.get(i - 1)) {
                problem(problems, "leaf keys do not ascend: " + keys.get(i - 1) + " then " + keys.get(i));
                break;
            }
        }
        return new BTreeCheck(root.level + 1, nodes, chain.size(), keys.stream().mapToLong(Long::longValue).toArray(),
                values.stream().mapToLong(Long::longValue).toArray(), problems);
    }

    private static void problem(List<String> problems, String what) {
        if (problems.size() < BTreeCheck.MAX_PROBLEMS) {
            problems.add(what);
        }
    }

    private static String abbreviate(List<Long> indexes) {
        return indexes.size() <= 8 ? indexes.toString()
                : indexes.subList(0, 8).toString().replace("]", ", ... (" + indexes.size() + " nodes)]");
    }

    /** The tree's options. */
    public BTreeOptions options() {
        return options;
    }

    /** The node lock client. */
    public LockClient lockClient() {
        return locks;
    }

    /** The node lock client's statistics. */
    public LockStats lockStats() {
        return locks.stats();
    }

    /** Node READs that came back torn (a write in flight) and were read again. */
    public long tornReads() {
        return tornReads;
    }

    /** Moves to a right sibling of a node that split after its parent was read. */
    public long movesRight() {
        return movesRight;
    }

    /** Node splits this client made (root splits included). */
    public long splits() {
        return splits;
    }

    /** Root splits this client made. */
    public long rootSplits() {
        return rootSplits;
    }

    /** Leaf writes under a lock (inserts and updates). */
    public long lockedWrites() {
        return lockedWrites;
    }

    /** What the memory word at {@code address} is: a tree node, the header, or the lock protocol's word. */
    public java.util.Optional<String> describeAddress(long address) {
        long offset = address - table.address();
        if (offset >= 0 && offset < table.spec().bytes()) {
            long node = offset / layout.nodeBytes();
            return java.util.Optional.of(node == 0 ? "B+-tree header" : "B+-tree node " + node);
        }
        return locks.describeAddress(address);
    }

    /** Closes the node lock client. */
    @Override
    public void close() {
        locks.close();
    }
}
