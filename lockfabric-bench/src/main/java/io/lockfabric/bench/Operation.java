package io.lockfabric.bench;

/**
 * What a {@link Session} reports about the operation it just did, for the runner to measure:
 * when it was granted (for a multi-lock operation, when it held everything) and when it began
 * releasing, in observer nanoseconds; whether it was on the workload's hottest lock; and the reads
 * and writes the session issued itself (critical section, guarded counter), which the runner
 * reports apart from the protocol's. One per client, reused from operation to operation. Not
 * thread-safe.
 */
public final class Operation {
    private long grantedNs;
    private long releasingNs;
    private boolean hottest;
    private long issuedReads;
    private long issuedWrites;
    private int kind = -1;
    private int locks;
    private long startedNs = NOT_STARTED;
    private static final long NOT_STARTED = Long.MIN_VALUE;

    /** Clears what the previous operation reported. */
    void reset() {
        grantedNs = 0;
        releasingNs = 0;
        hottest = false;
        issuedReads = 0;
        issuedWrites = 0;
        kind = -1;
        locks = 0;
        startedNs = NOT_STARTED;
    }

    /**
     * The operation proper began at observer time {@code ns}, after a wait that the workload's pacing
     * imposes (a rate-limited writer waiting for its turn): its latencies are measured from there, not
     * from the call. Operations that never say so are measured from the call.
     */
    public void started(long ns) {
        startedNs = ns;
    }

    /** When the operation proper began, or {@code callNs} if it did not say. */
    long startedOr(long callNs) {
        return startedNs == NOT_STARTED ? callNs : startedNs;
    }

    /**
     * The operation is of kind {@code kind} (a transaction's type, numbered from 0) and took
     * {@code locks} locks: the runner also measures it apart with the operations of its kind
     * ({@link RunResult#byKind()}). Operations that never say so are measured only together.
     */
    public void kind(int kind, int locks) {
        if (kind < 0) {
            throw new IllegalArgumentException("an operation kind is >= 0, got " + kind);
        }
        this.kind = kind;
        this.locks = locks;
    }

    int kind() {
        return kind;
    }

    int locks() {
        return locks;
    }

    /** The operation was granted at observer time {@code ns}. */
    public void granted(long ns) {
        grantedNs = ns;
    }

    /** The operation began releasing at observer time {@code ns}. */
    public void releasing(long ns) {
        releasingNs = ns;
    }

    /** The operation was on the workload's hottest lock (where a protocol's fairness shows). */
    public void hottest() {
        hottest = true;
    }

    /** The session itself issued {@code reads} READs and {@code writes} WRITEs in this operation. */
    public void issued(long reads, long writes) {
        issuedReads += reads;
        issuedWrites += writes;
    }

    long grantedNs() {
        return grantedNs;
    }

    long releasingNs() {
        return releasingNs;
    }

    boolean isHottest() {
        return hottest;
    }

    long issuedReads() {
        return issuedReads;
    }

    long issuedWrites() {
        return issuedWrites;
    }
}
