package io.lockfabric.apps.objstore;

/**
 * A value as a get read it from the memory node: the key its header names, who wrote it (the
 * writer's endpoint ordinal) and the writer's sequence number of that set, its bytes, and whether
 * it is whole ({@code intact}: header and bytes passed the check word, and the header names the key
 * asked for). A value that is not intact was torn: a lock let the get in beside a set.
 *
 * @param problem what is wrong with a value that is not intact; empty otherwise
 */
public record StoredValue(long key, int writer, long sequence, byte[] bytes, boolean intact, String problem) {
}
