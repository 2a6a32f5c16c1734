package io.lockfabric;

import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.Mode;

/**
 * How long the API calls a hold valid: never longer than the protocol lets any other client go
 * without being granted the lock. {@link Held#isValid()} may turn false early, never late.
 *
 * <p><b>The rule.</b> A hold of a protocol with a lease {@code L} for its mode is valid until
 * {@code L × (1 − δ) / (1 + δ)} ({@link #validForNs}, δ = {@link #CLOCK_RATE_ALLOWANCE}) has passed
 * on its endpoint's clock since its lease began ({@link #leaseFrom}): the grant's
 * {@link Grant#leaseStartNs() lease start} where the protocol gives one, else the start of the
 * acquisition (the endpoint's clock read just before the protocol's first verb). Never from the
 * moment the protocol returned the grant: a grant message or a poll shows a grant late, and a
 * stalled holder later still, while the recoveries below start counting earlier.
 *
 * <p><b>Why that is safe, protocol by protocol</b> (the argument is each protocol's own; see their
 * client classes). A recovery gives a lock away only after a deadline that starts after the
 * holder's lease start:
 * <ul>
 * <li>{@code cql}: a reset sets RST by CAS, signals the members and waits at most {@code L} from
 * then for their answers (a holder answers only after it releases). A grant of the reset's epoch
 * needs its attempt's enqueueing FAA to have landed before RST was set (a later FAA sees RST and
 * waits), so the lease start, the FAA's issue, precedes the deadline's start. The grant itself, by
 * the FAA's reply or a GRANT message, may reach the holder <em>after</em> RST was set (its signal
 * still in flight): counted from there, as the API did before, a hold was called valid up to that
 * delay after the resetter stopped waiting for it.</li>
 * <li>{@code declock-tf}, {@code declock-pf}: the node's representative acquires as cql does. A
 * local grant (a handover, a reader joining the node's shared grant) is made under the node's CQL
 * grant, and may be made after a reset of it began, before its signal reached the node, even to a
 * request made after RST was set; so its lease start is the node's CQL attempt's (on the
 * representative's clock), not the request's.</li>
 * <li>{@code dslr}: a waiter skips a writer after the lock word stayed unchanged for {@code 2L}
 * since it first saw it, and a writer skips the readers of its group {@code 3L/2} after its turn
 * came; both sights come after the skipped holder's grant became true, and its lease start (the
 * last look that did not show the grant) is before that.</li>
 * <li>{@code shiftlock}: waiters ask the memory node to reset a lock after RelCnt stayed unchanged
 * for {@code 3L(1 + δ)} since they saw it; the lease start (the last look before the grant, after
 * a Reask no later than a lease after RelCnt took the grant's value) ends its lease before that,
 * by the protocol's argument.</li>
 * <li>{@code drtm}'s shared holds (its writers hold no lease and are never recovered): a reader
 * shares a read lease only while {@code tx-time-ns} and DrTM's skew margin are left of it, and a
 * writer takes the lease only once its end, plus the margin, passed on the writer's clock; so a
 * reader may hold {@code tx-time-ns} (its failure model's lease) from its grant, which comes after
 * its request.</li>
 * <li>Without a lease start (ranges: {@code citron} resets a node after it stayed unchanged for a
 * lease unit {@code L + hold-wait + T_wait}, counted from a sight after the holder's changes;
 * {@code ss} locks segments with dslr): from the request, which precedes every change the holder
 * made. A request that waited longer than the lease (for a later segment, say) is lost at once,
 * which is what {@code ss} promises: it may have lost its earlier segments.</li>
 * </ul>
 *
 * <p><b>Clocks.</b> The holder counts on its endpoint's clock and a resetter on its own; each runs
 * at {@code 1 ± δ} of true time (the simulator's {@code clockDrift}, a real host's crystal). A
 * resetter's {@code L} lasts at least {@code L / (1 + δ)}, a holder's {@code L'} at most
 * {@code L' / (1 − δ)}: so the API counts {@code L' = L (1 − δ)/(1 + δ)}. δ is
 * {@link #CLOCK_RATE_ALLOWANCE}, 1%: the simulator refuses drift of 1% or more, and a real
 * crystal is within 100 ppm; so a 1 s lease is valid for 980 ms. On the real fabrics the endpoints
 * of one process read one clock; on the simulator a node-mate's clock (a DecLock local grant's
 * lease start) is off by at most {@code 2δ} of the time since the start, which the allowance covers
 * for runs shorter than a hundred leases at the default drift.
 *
 * <p><b>What this cannot see.</b> A stall of the holder after {@code isValid()} returned true (the
 * answer is a hint), and a stall of the whole process longer than the rest of the lease (the lease
 * sweep's timer stops with it: such a loss is told at the latest when the hold is closed). The
 * fencing token is the defence for both.
 */
final class Leases {
    /** The relative clock rate error allowed for, each way: 1%. */
    static final double CLOCK_RATE_ALLOWANCE = 0.01;

    private Leases() {
    }

    /**
     * How long a hold is valid from its lease start on its endpoint's clock, for a protocol lease
     * of {@code leaseNs}: {@code leaseNs × (1 − δ) / (1 + δ)}; 0 for no lease.
     */
    static long validForNs(long leaseNs) {
        if (leaseNs <= 0 || leaseNs == Long.MAX_VALUE) {
            return 0;
        }
        return Math.max(1, (long) Math.floor(leaseNs * ((1 - CLOCK_RATE_ALLOWANCE) / (1 + CLOCK_RATE_ALLOWANCE))));
    }

    /**
     * Where a hold's lease counts from: the protocol's lease start of the grant
     * ({@link Grant#leaseStartNs()}) if it says, else {@code requestNs}, the endpoint's clock read
     * just before the protocol's first verb.
     */
    static long leaseFrom(Grant g, long requestNs) {
        long start = g.leaseStartNs();
        return start == Grant.UNKNOWN_LEASE_START ? requestNs : start;
    }

    /**
     * The protocol's lease for a hold granted in {@code mode}, 0 if such holds never expire: the
     * lease of a recovering protocol, and a time lease that others wait out without recovering
     * anything (drtm's readers: {@code tx-time-ns}, after which a writer may take the lease).
     */
    static long protocolLeaseNs(FailureModel model, Mode mode) {
        return model.leases(mode) ? model.leaseNs() : 0;
    }
}
