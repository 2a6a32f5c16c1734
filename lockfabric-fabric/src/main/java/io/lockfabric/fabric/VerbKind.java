package io.lockfabric.fabric;

/**
 * The kinds of remote operation a fabric counts. 16-byte reads are {@link #READ}s; the 128-bit
 * atomics have kinds of their own because an RNIC serves them more slowly.
 */
public enum VerbKind {
    READ("read"),
    WRITE("write"),
    CAS("cas"),
    FAA("faa"),
    MCAS("mcas"),
    MFAA("mfaa"),
    MCAS128("mcas128"),
    MFAA128("mfaa128"),
    SEND("send"),
    RPC("rpc");

    private static final VerbKind[] VALUES = values();

    private final String label;

    VerbKind(String label) {
        this.label = label;
    }

    /** Lower-case name used in reports and JSON ({@code ops_per_cycle.mcas}). */
    public String label() {
        return label;
    }

    /** True for the verbs served by the memory node's NIC (not SEND, not RPC). */
    public boolean isOneSided() {
        return this != SEND && this != RPC;
    }

    /** True for the atomic verbs. */
    public boolean isAtomic() {
        return this == CAS || this == FAA || this == MCAS || this == MFAA || this == MCAS128 || this == MFAA128;
    }

    public static VerbKind of(int ordinal) {
        return VALUES[ordinal];
    }

    public static int count() {
        return VALUES.length;
    }
}
