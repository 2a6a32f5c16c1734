package io.lockfabric.fabric;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * State that protocols keep in a scope the fabric defines, instead of in static maps keyed by
 * fabric or mailbox: one object per class, made on first use and kept as long as the scope. The
 * fabric hands out three scopes: an endpoint ({@link Endpoint#attachments()}: the lock inbox that
 * sorts its mailbox), a compute node ({@link Endpoint#computeNode()}: DecLock's local lock table,
 * CITRON's scale-up poller) and the whole fabric ({@link Fabric#attachments()}: the juc reference's
 * locks).
 *
 * <p>A protocol asks by a class of its own, so protocols never see each other's state; what it
 * keeps per table or per lock it keeps in that object. Thread-safe: {@link #computeIfAbsent} is
 * atomic; the objects guard their own state.
 */
public final class Attachments {
    private final Map<Class<?>, Object> values = new HashMap<>();

    /** The object of class {@code type} in this scope, made by {@code create} if there is none yet. */
    public synchronized <T> T computeIfAbsent(Class<T> type, Supplier<? extends T> create) {
        Object value = values.get(type);
        if (value == null) {
            value = type.cast(create.get());
            if (value == null) {
                throw new IllegalArgumentException("no " + type.getName() + " made for the scope");
            }
            values.put(type, value);
        }
        return type.cast(value);
    }

    /** The object of class {@code type} in this scope, or null if none was made. */
    public synchronized <T> T getIfPresent(Class<T> type) {
        return type.cast(values.get(type));
    }
}
