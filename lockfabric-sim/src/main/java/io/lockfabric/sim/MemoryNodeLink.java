package io.lockfabric.sim;

import io.lockfabric.fabric.Verb;

/**
 * The memory node's port when {@link SimConfig#mnLinkGbps()} is on: one link per direction at that
 * rate, each serializing the messages it is given in the order it is given them (first come,
 * first served; a message starts when the link is free and it is ready). Times in picoseconds
 * inside, so that a small message's fraction of a nanosecond is not lost; results are rounded up
 * to nanoseconds. Counts each direction's busy time and bytes. Driver thread only.
 *
 * <p>Wire bytes per message (InfiniBand, {@link SimConfig#MN_LINK_PACKET_HEADER_BYTES} per packet
 * of at most {@link SimConfig#MN_LINK_MTU_BYTES} payload bytes, plus the transport's extension
 * headers): a READ request 1 packet + RETH (16), its response the data + AETH (4, twice when it
 * takes several packets); a WRITE the data + RETH, its acknowledgement 1 packet + AETH; an atomic
 * request 1 packet + its operands with address and key (AtomicETH: 28 for CAS and FAA; an extended
 * atomic's operands are Mellanox's and not public, so 12 + its operand bytes), its reply 1 packet
 * + AETH + the old value (8 bytes, AtomicAckETH; 16 for the 128-bit atomics); an rpc the request's
 * bytes in and the response's out, as SENDs.
 */
final class MemoryNodeLink {
    static final int RETH = 16;
    static final int AETH = 4;
    static final int ATOMIC_ETH = 28;
    /** Virtual address (8) and remote key (4) before an atomic's operands. */
    private static final int ATOMIC_ADDRESSING = 12;

    private final double psPerByte;
    private final Direction inbound = new Direction();
    private final Direction outbound = new Direction();

    MemoryNodeLink(double gbps) {
        if (!(gbps > 0)) {
            throw new IllegalArgumentException("link rate must be positive, got " + gbps);
        }
        this.psPerByte = 8_000.0 / gbps;
    }

    /** When a message of {@code bytes} wire bytes, ready at {@code readyNs}, has crossed into the memory node. */
    long receive(long readyNs, long bytes) {
        return inbound.serialize(readyNs, bytes, psPerByte);
    }

    /** When a message of {@code bytes} wire bytes, ready at {@code readyNs}, has left the memory node. */
    long transmit(long readyNs, long bytes) {
        return outbound.serialize(readyNs, bytes, psPerByte);
    }

    /** {@code {inbound busy ps, outbound busy ps, inbound bytes, outbound bytes}} so far. */
    long[] totals() {
        return new long[] {inbound.busyPs, outbound.busyPs, inbound.bytes, outbound.bytes};
    }

    /** Wire bytes of {@code verb}'s request (compute node to memory node). */
    static long requestBytes(Verb verb) {
        return switch (verb.kind()) {
            case READ -> message(0, RETH);
            case WRITE -> message(verb.payloadBytes(), RETH);
            case CAS, FAA -> message(0, ATOMIC_ETH);
            case MCAS, MFAA, MCAS128, MFAA128 -> message(0, ATOMIC_ADDRESSING + verb.payloadBytes());
            case SEND, RPC -> throw new IllegalArgumentException(verb.kind() + " does not cross the memory node's link as a verb");
        };
    }

    /** Wire bytes of {@code verb}'s reply (memory node to compute node). */
    static long replyBytes(Verb verb) {
        return switch (verb.kind()) {
            case READ -> {
                int len = verb.payloadBytes();
                yield message(len, packets(len) == 1 ? AETH : 2 * AETH);
            }
            case WRITE -> message(0, AETH);
            case CAS, FAA, MCAS, MFAA -> message(0, AETH + 8);
            case MCAS128, MFAA128 -> message(0, AETH + 16);
            case SEND, RPC -> throw new IllegalArgumentException(verb.kind() + " does not cross the memory node's link as a verb");
        };
    }

    /** Wire bytes of a two-sided message (an rpc's request or response) of {@code payload} bytes. */
    static long sendBytes(int payload) {
        return message(payload, 0);
    }

    private static long message(long payload, int extensionHeaders) {
        return payload + packets(payload) * SimConfig.MN_LINK_PACKET_HEADER_BYTES + extensionHeaders;
    }

    private static long packets(long payload) {
        return Math.max(1, (payload + SimConfig.MN_LINK_MTU_BYTES - 1) / SimConfig.MN_LINK_MTU_BYTES);
    }

    /** One direction: a FIFO server of bytes. */
    private static final class Direction {
        long freeAtPs;
        long busyPs;
        long bytes;

        long serialize(long readyNs, long messageBytes, double psPerByte) {
            long ps = Math.round(messageBytes * psPerByte);
            long end = Math.max(readyNs * 1_000, freeAtPs) + ps;
            freeAtPs = end;
            busyPs += ps;
            bytes += messageBytes;
            return Math.ceilDiv(end, 1_000L);
        }
    }
}
