package io.lockfabric.apps.objstore;

/**
 * A get read a value that no single set wrote whole (its check word does not match its bytes, or
 * its header names another key): the lock did not keep the get apart from a set. Never thrown by a
 * correct protocol; the bench and the tests count it as a violation.
 */
public final class TornValueException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long key;

    public TornValueException(long key, String problem) {
        super("torn value of key " + key + ": " + problem);
        this.key = key;
    }

    /** The key whose value was torn. */
    public long key() {
        return key;
    }
}
