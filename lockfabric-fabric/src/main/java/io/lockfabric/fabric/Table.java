package io.lockfabric.fabric;

/**
 * An opened table: its spec and where it lives. {@code address} is the remote address of byte 0
 * of the table's memory region; {@code service} is the rpc service id for the table's handler
 * (meaningful only if the spec has one).
 */
public record Table(TableSpec spec, int memoryNode, long address, int service) {
    /** The remote address of byte {@code offset} of the table. */
    public long at(long offset) {
        if (offset < 0 || offset >= spec.bytes()) {
            throw new IndexOutOfBoundsException("offset " + offset + " outside " + spec);
        }
        return address + offset;
    }
}
