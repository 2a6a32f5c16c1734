package io.lockfabric.apps.objstore;

import java.util.List;
import java.util.Objects;

/**
 * How an object store is made: its lock protocol (by registry name; null: the fabric's default,
 * {@link io.lockfabric.LockFabric#defaultProtocol()}), the protocol's options ({@code name=value}),
 * the number of objects (index slots), the largest value and the bytes of its value heap (0: the
 * default, {@link #defaultHeapBytes}). Every client of one store must open it with the same shape;
 * a second opener with another is refused.
 */
public record ObjectStoreOptions(String protocol, List<String> lockOptions, long objects, int maxValueBytes,
                                 long heapBytes) {
    public static final long DEFAULT_OBJECTS = 4096;
    public static final int DEFAULT_MAX_VALUE_BYTES = 64 * 1024;
    /** The heap a store gets per object unless told: one 4 KiB block. */
    public static final long DEFAULT_HEAP_BYTES_PER_OBJECT = 4096;
    public static final ObjectStoreOptions DEFAULTS =
            new ObjectStoreOptions(null, List.of(), DEFAULT_OBJECTS, DEFAULT_MAX_VALUE_BYTES, 0);

    public ObjectStoreOptions {
        lockOptions = List.copyOf(Objects.requireNonNull(lockOptions, "lockOptions"));
        if (heapBytes < 0) {
            throw new IllegalArgumentException("heap bytes must be >= 0 (0: the default), got " + heapBytes);
        }
        layout(objects, maxValueBytes, heapBytes); // validates the shape
    }

    private static ObjectStoreLayout layout(long objects, int maxValueBytes, long heapBytes) {
        return new ObjectStoreLayout(objects, maxValueBytes, heapBytes == 0 ? defaultHeapBytes(objects, maxValueBytes)
                : heapBytes);
    }

    /** The default heap: {@value #DEFAULT_HEAP_BYTES_PER_OBJECT} B per object, and at least one largest block. */
    public static long defaultHeapBytes(long objects, int maxValueBytes) {
        return Math.max(objects * DEFAULT_HEAP_BYTES_PER_OBJECT, ObjectStoreLayout.blockBytes(maxValueBytes));
    }

    /** The memory-node layout these options give. */
    public ObjectStoreLayout layout() {
        return layout(objects, maxValueBytes, heapBytes);
    }

    public ObjectStoreOptions withProtocol(String value) {
        return new ObjectStoreOptions(value, lockOptions, objects, maxValueBytes, heapBytes);
    }

    public ObjectStoreOptions withLockOptions(List<String> value) {
        return new ObjectStoreOptions(protocol, value, objects, maxValueBytes, heapBytes);
    }

    public ObjectStoreOptions withObjects(long value) {
        return new ObjectStoreOptions(protocol, lockOptions, value, maxValueBytes, heapBytes);
    }

    public ObjectStoreOptions withMaxValueBytes(int value) {
        return new ObjectStoreOptions(protocol, lockOptions, objects, value, heapBytes);
    }

    public ObjectStoreOptions withHeapBytes(long value) {
        return new ObjectStoreOptions(protocol, lockOptions, objects, maxValueBytes, value);
    }
}
