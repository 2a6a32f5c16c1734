package io.lockfabric.fabric;

/**
 * How long things take on a fabric, as much as protocols need to know to size their waits: a
 * profile the fabric reports ({@link Fabric#timing()}) and protocols scale their default timeouts,
 * leases and poll intervals from. The protocols' defaults were tuned for RDMA ({@link #RDMA}); on
 * a fabric with another profile a default wait becomes {@link #scaled} (as many round trips as
 * on RDMA) plus, for waits that bound a client's own steps or another client's hold, some
 * {@link #stallNs() stalls}. An option a user sets is never scaled.
 *
 * @param roundTripNs an uncontended one-sided verb's round trip, client to memory node and back
 * @param stallNs     how long a live client that is ready to run may still wait for a CPU between
 *                    two of its steps (a scheduler's time slice on a shared machine); 0 where
 *                    clients own their cores, as on the papers' RDMA testbeds
 */
public record FabricTiming(long roundTripNs, long stallNs) {
    /**
     * The RDMA testbeds of the papers (2 µs round trips, clients on dedicated cores): what every
     * protocol default is tuned for, so on this profile each default is exactly its reference
     * value. The local fabric (faster verbs than RDMA's, same defaults) and the simulator (which
     * models those testbeds) report it.
     */
    public static final FabricTiming RDMA = new FabricTiming(2_000, 0);

    public FabricTiming {
        if (roundTripNs <= 0 || stallNs < 0) {
            throw new IllegalArgumentException("a fabric timing needs a positive round trip and a stall >= 0, got "
                    + roundTripNs + " ns and " + stallNs + " ns");
        }
    }

    /**
     * A wait of {@code rdmaNs} on {@link #RDMA}, for the same number of round trips on this fabric:
     * {@code rdmaNs × roundTripNs / RDMA.roundTripNs}, exactly {@code rdmaNs} on RDMA. An infinite
     * wait ({@link Long#MAX_VALUE}) stays infinite; a product past it saturates.
     */
    public long scaled(long rdmaNs) {
        if (rdmaNs == Long.MAX_VALUE || roundTripNs == RDMA.roundTripNs) {
            return rdmaNs;
        }
        try {
            return Math.multiplyExact(rdmaNs, roundTripNs) / RDMA.roundTripNs;
        } catch (ArithmeticException huge) {
            return Long.MAX_VALUE;
        }
    }

    /** {@code scaled(rdmaNs)} plus {@code stalls} of this fabric's stalls (none on RDMA). */
    public long scaled(long rdmaNs, int stalls) {
        long scaled = scaled(rdmaNs);
        if (scaled == Long.MAX_VALUE) {
            return scaled;
        }
        try {
            return Math.addExact(scaled, Math.multiplyExact(stallNs, (long) stalls));
        } catch (ArithmeticException huge) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * A wait that bounds another client's hold, and past which that client is taken for crashed (a
     * lease, a waiter's timeout): {@code scaled(rdmaNs)}, but at least {@code stalls} of this
     * fabric's stalls. Where clients share cores (shm: RDMA's round trips, 2 ms stalls) a live
     * holder descheduled a few times must not pass for a dead one; exactly {@code rdmaNs} on RDMA.
     */
    public long scaledAtLeast(long rdmaNs, int stalls) {
        return Math.max(scaled(rdmaNs), scaled(0, stalls));
    }

    /**
     * Stalls a lease covers at least ({@link #scaledAtLeast}): 200 ms with 2 ms stalls, what tcp's
     * leases of ten RDMA milliseconds come to by its round trips alone.
     */
    public static final int LEASE_STALLS = 100;

    /** For people: {@code round trip 40us, stall 2ms}. */
    @Override
    public String toString() {
        return "round trip " + Durations.format(roundTripNs) + ", stall " + Durations.format(stallNs);
    }
}
