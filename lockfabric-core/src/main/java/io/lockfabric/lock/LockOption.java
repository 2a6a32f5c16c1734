package io.lockfabric.lock;

/**
 * One tunable of a protocol: name (as given on the command line, {@code backoff-init-ns}), its
 * default, and what it does. Values are longs; durations carry their unit in the name.
 */
public record LockOption(String name, long defaultValue, String description) {
}
