package io.lockfabric.fabric;

/**
 * A small two-sided message between clients (at most 64 bytes on any wire). The fabric stamps
 * {@code from}. {@code channel} separates the users of one mailbox (a lock table's service id);
 * {@code type}, {@code lock}, {@code a} and {@code b} are the protocol's to define.
 */
public record Message(EndpointId from, int channel, int type, long lock, long a, long b) {
    /** Encoded size on a wire: from (8) + channel (4) + type (4) + three words. */
    public static final int WIRE_BYTES = 40;
}
