package io.lockfabric.apps.objstore;

/** A set found no free slot in the index for a new key, or no room in the heap for its value. */
public final class ObjectStoreFullException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public ObjectStoreFullException(String message) {
        super(message);
    }
}
