package io.lockfabric.apps.objstore;

import io.lockfabric.LockFabric;

import java.util.Objects;

/**
 * An object store whose objects live on a memory node (DecLock §6): {@link #get} takes the
 * object's reader-writer lock shared and READs the value's bytes, {@link #set} takes it exclusive
 * and WRITEs them, with one-sided verbs on the same endpoint as the lock. Values are byte arrays of
 * 0 to {@link ObjectStoreOptions#maxValueBytes()} bytes; keys are longs in [0, 2^63 - 2] or strings.
 *
 * <pre>{@code
 * try (LockFabric lf = LockFabric.open("tcp://127.0.0.1:7420")) {
 *     ObjectStore store = ObjectStore.open(lf, "profiles");
 *     store.set("user:42", bytes);
 *     byte[] back = store.get("user:42");                  // null if never set
 * }
 * }</pre>
 *
 * <p>Every process that opens a store of the same name and shape on the same memory node shares its
 * objects. A call runs an {@link ObjectStoreClient} on an endpoint of the {@code LockFabric}'s pool
 * ({@link LockFabric#withEndpoint}), one client per endpoint. A string key is stored as its 63-bit
 * hash (FNV-1a, finalised): two strings whose hashes agree name one object (for a million keys,
 * about one chance in 10^7). Every value read is checked whole against its check word; a torn one
 * (a lock that failed) is a {@link TornValueException}. A protocol with a lease gets the client API's
 * (1 s) unless the options give one. Thread-safe.
 */
public final class ObjectStore {
    private static final String LEASE_OPTION = "lease-ns";
    private final LockFabric lockFabric;
    private final String name;
    private final String protocol;
    private final ObjectStoreOptions options;

    private ObjectStore(LockFabric lockFabric, String name, String protocol, ObjectStoreOptions options) {
        this.lockFabric = lockFabric;
        this.name = name;
        this.protocol = protocol;
        this.options = options;
    }

    /** Opens (creating if needed) the store {@code name} with {@link ObjectStoreOptions#DEFAULTS}. */
    public static ObjectStore open(LockFabric lockFabric, String name) {
        return open(lockFabric, name, ObjectStoreOptions.DEFAULTS);
    }

    /**
     * Opens (creating if needed) the store {@code name}: its data table {@code name} and its lock
     * table {@code name-locks} on the fabric's memory node 0.
     *
     * @throws IllegalArgumentException if the name is blank, the protocol unknown or its options invalid
     * @throws IllegalStateException    if the store exists with another shape
     */
    public static ObjectStore open(LockFabric lockFabric, String name, ObjectStoreOptions options) {
        Objects.requireNonNull(lockFabric, "lockFabric");
        Objects.requireNonNull(options, "options");
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("an object store needs a name");
        }
        String protocol = options.protocol() != null ? options.protocol() : lockFabric.defaultProtocol();
        options = withDefaultLease(protocol, options);
        ObjectStore store = new ObjectStore(lockFabric, name, protocol, options);
        store.run(c -> c.layout()); // opens the tables now: a bad shape or protocol fails here
        return store;
    }

    /**
     * The options with the client API's lease ({@link io.lockfabric.SpaceOptions#DEFAULT_LEASE}, 1 s)
     * for a protocol with a {@code lease-ns} option they do not set: the protocols' own defaults are
     * sized for benchmark critical sections of microseconds, not for a descheduled application thread.
     */
    static ObjectStoreOptions withDefaultLease(String protocol, ObjectStoreOptions options) {
        boolean leased = io.lockfabric.protocols.LockProtocols.byName(protocol).options().stream()
                .anyMatch(o -> o.name().equals(LEASE_OPTION));
        if (!leased || options.lockOptions().stream().anyMatch(p -> p.startsWith(LEASE_OPTION + "="))) {
            return options;
        }
        java.util.List<String> pairs = new java.util.ArrayList<>();
        pairs.add(LEASE_OPTION + "=" + io.lockfabric.SpaceOptions.DEFAULT_LEASE.toNanos() + "ns");
        pairs.addAll(options.lockOptions());
        return options.withLockOptions(pairs);
    }

    private <T> T run(java.util.function.Function<ObjectStoreClient, T> body) {
        return lockFabric.withEndpoint(this, ObjectStoreClient.class,
                ep -> {
                    try {
                        return ObjectStoreClient.open(ep, name, protocol, options);
                    } catch (io.lockfabric.fabric.TableMismatchException e) {
                        // a shape conflict, not a lost memory node (withEndpoint reports fabric failures as that)
                        throw new IllegalStateException("object store " + name + ": " + e.getMessage(), e);
                    }
                }, body);
    }

    /**
     * The value of {@code key}, or null if it was never set.
     *
     * @throws TornValueException if the value read was not one set's whole bytes
     */
    public byte[] get(long key) {
        return run(c -> c.get(key));
    }

    /** Sets the value of {@code key}. */
    public void set(long key, byte[] value) {
        Objects.requireNonNull(value, "value");
        byte[] copy = value.clone();
        run(c -> {
            c.set(key, copy);
            return null;
        });
    }

    /** The value of {@code key} (stored as {@link #keyOf(String)}), or null if it was never set. */
    public byte[] get(String key) {
        return get(keyOf(key));
    }

    /** Sets the value of {@code key} (stored as {@link #keyOf(String)}). */
    public void set(String key, byte[] value) {
        set(keyOf(key), value);
    }

    /** The long key a string key is stored as: its 64-bit hash, finalised, in [0, 2^63 - 2]. */
    public static long keyOf(String key) {
        Objects.requireNonNull(key, "key");
        long h = 0xcbf29ce484222325L;
        for (byte b : key.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h = ObjectStoreLayout.mix(h) & Long.MAX_VALUE;
        return h > ObjectStoreLayout.MAX_KEY ? 0 : h;
    }

    public String name() {
        return name;
    }

    /** The lock protocol's registry name. */
    public String protocol() {
        return protocol;
    }

    public ObjectStoreOptions options() {
        return options;
    }

    @Override
    public String toString() {
        return "object store '" + name + "' (" + protocol + ", " + options.layout() + ")";
    }
}
