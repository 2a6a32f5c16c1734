package io.lockfabric.apps.btree;

import io.lockfabric.LockFabric;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.LongUnaryOperator;

/**
 * A Sherman-style B+-tree index on a {@link LockFabric}'s memory node, for applications: long keys
 * to long values, lock-free searches and scans, inserts and updates under node locks of the chosen
 * variant ({@link BTreeLocks}). Each call runs a {@link BTreeClient} on an endpoint of the
 * {@code LockFabric}'s pool ({@link LockFabric#withEndpoint}), so its data verbs and its locks go
 * over one endpoint as a Sherman client's do over one queue pair; any number of threads may call it.
 * Every process that opens the same name with the same options on the same memory node (a
 * {@code lockfabric serve}) shares the tree.
 *
 * <pre>{@code
 * try (LockFabric lf = LockFabric.open("tcp://127.0.0.1:7420")) {
 *     BTreeIndex index = BTreeIndex.open(lf, "orders", BTreeOptions.DEFAULTS.withLock("declock").forKeys(1_000_000));
 *     index.put(42, 7);
 *     index.merge(42, 1, v -> v + 1);          // read-modify-write under the leaf's lock
 *     OptionalLong v = index.search(42);       // lock-free
 *     List<BTreeClient.Entry> range = index.scan(0, 100);
 * }
 * }</pre>
 */
public final class BTreeIndex {
    private final LockFabric lf;
    private final String name;
    private final BTreeOptions options;

    private BTreeIndex(LockFabric lf, String name, BTreeOptions options) {
        this.lf = lf;
        this.name = name;
        this.options = options;
    }

    /** {@link #open(LockFabric, String, BTreeOptions)} with {@link BTreeOptions#DEFAULTS}. */
    public static BTreeIndex open(LockFabric lf, String name) {
        return open(lf, name, BTreeOptions.DEFAULTS);
    }

    /**
     * The tree {@code name} on {@code lf}'s memory node, made (empty) if it does not exist.
     *
     * @throws IllegalArgumentException for an unknown lock variant or option, a bad name, or a tree
     *                                  of another fan-out
     */
    public static BTreeIndex open(LockFabric lf, String name, BTreeOptions options) {
        Objects.requireNonNull(lf, "lf");
        Objects.requireNonNull(options, "options");
        if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("a B+-tree name is 1 to 64 letters, digits, '.', '_' or '-', got '"
                    + name + "'");
        }
        BTreeLocks.validate(options.lock(), options.lockOptions());
        BTreeIndex index = new BTreeIndex(lf, name, options);
        index.call(c -> null); // makes the tree now, so a bad option or a mismatch shows here
        return index;
    }

    private <T> T call(java.util.function.Function<BTreeClient, T> body) {
        return lf.withEndpoint(this, BTreeClient.class, e -> BTreeClient.open(e, name, options), body);
    }

    /** The tree's name. */
    public String name() {
        return name;
    }

    /** The options it was opened with. */
    public BTreeOptions options() {
        return options;
    }

    /** The value of {@code key}, if present; lock-free. */
    public OptionalLong search(long key) {
        return call(c -> c.search(key));
    }

    /** Sets {@code key} to {@code value}, inserting it if absent. */
    public void put(long key, long value) {
        call(c -> {
            c.put(key, value);
            return null;
        });
    }

    /** Sets {@code key} to {@code value} if present; whether it was. */
    public boolean update(long key, long value) {
        return call(c -> c.update(key, value));
    }

    /** {@code f} of {@code key}'s value under its leaf's lock, or {@code ifAbsent} inserted; the value written. */
    public long merge(long key, long ifAbsent, LongUnaryOperator f) {
        return call(c -> c.merge(key, ifAbsent, f));
    }

    /** Entries with keys in [{@code from}, {@code to}), ascending; lock-free. */
    public List<BTreeClient.Entry> scan(long from, long to) {
        return call(c -> c.scan(from, to));
    }

    /** Bulk-loads the empty tree ({@link BTreeClient#load}). */
    public void load(long[] keys, long[] values) {
        call(c -> {
            c.load(keys, values);
            return null;
        });
    }

    /** The structure check of the quiescent tree, with every entry ({@link BTreeClient#check}). */
    public BTreeCheck check() {
        return call(BTreeClient::check);
    }
}
