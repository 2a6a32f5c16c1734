package io.lockfabric.fabric;

/**
 * A remote address on one memory node: the id of a registered memory region (like an RDMA
 * rkey) and a byte offset inside it.
 *
 * <pre>
 *  63            48 47                                              0
 * +----------------+-------------------------------------------------+
 * |  region (16)   |                 offset (48)                     |
 * +----------------+-------------------------------------------------+
 * </pre>
 *
 * Region 0 is never registered, so the address 0 is always invalid.
 */
public final class RemoteAddress {
    public static final int REGION_SHIFT = 48;
    public static final long OFFSET_MASK = (1L << REGION_SHIFT) - 1;
    public static final int MAX_REGION = (1 << (64 - REGION_SHIFT)) - 1;

    private RemoteAddress() {
    }

    public static long of(int region, long offset) {
        if (region < 0 || region > MAX_REGION) {
            throw new IllegalArgumentException("region " + region + " out of range");
        }
        if ((offset & ~OFFSET_MASK) != 0) {
            throw new IllegalArgumentException("offset " + offset + " out of range");
        }
        return ((long) region << REGION_SHIFT) | offset;
    }

    public static int region(long address) {
        return (int) (address >>> REGION_SHIFT);
    }

    public static long offset(long address) {
        return address & OFFSET_MASK;
    }

    public static String toString(long address) {
        return "r" + region(address) + "+0x" + Long.toHexString(offset(address));
    }
}
