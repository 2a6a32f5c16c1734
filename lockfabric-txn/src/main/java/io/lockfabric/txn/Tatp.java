package io.lockfabric.txn;

import java.util.List;
import java.util.random.RandomGenerator;

/**
 * TATP (the Telecom Application Transaction Processing benchmark), as ShiftLock §4.4 runs it: seven
 * transaction types in the standard mix, 2.8 µs of simulated work each, about 80% of the lock
 * requests shared (the paper: 80.6%; this map and mix: 81.4%).
 *
 * <p>The lock map: one lock per row, tables laid out one after the other: SUBSCRIBER ({@code n}
 * locks), ACCESS_INFO (4 per subscriber: ai_type 1–4), SPECIAL_FACILITY (4 per subscriber: sf_type
 * 1–4), CALL_FORWARDING (3 per special facility: start_time 0, 8, 16): 21 locks per subscriber.
 * {@link #paper()} has 32 392 subscribers: 680 232 locks, in a table of the paper's 680 236 (its
 * generator's exact population is not published; the last 4 locks are never taken).
 *
 * <ul>
 *   <li>GetSubscriberData 35%: S subscriber.</li>
 *   <li>GetNewDestination 10%: S special facility, S call forwarding.</li>
 *   <li>GetAccessData 35%: S access info.</li>
 *   <li>UpdateSubscriberData 2%: X subscriber, X special facility.</li>
 *   <li>UpdateLocation 14%: X subscriber.</li>
 *   <li>InsertCallForwarding 2%: S subscriber, S special facility, X call forwarding.</li>
 *   <li>DeleteCallForwarding 2%: S subscriber, X call forwarding.</li>
 * </ul>
 * Subscribers are drawn uniform, as are the types and start times within a subscriber.
 */
public final class Tatp implements TxnWorkload {
    public static final List<String> TYPES = List.of("GetSubscriberData", "GetNewDestination", "GetAccessData",
            "UpdateSubscriberData", "UpdateLocation", "InsertCallForwarding", "DeleteCallForwarding");
    /** The short names Fig. 10 uses for the types it plots. */
    public static final String GSD = "GetSubscriberData";
    public static final String UL = "UpdateLocation";
    private static final int[] MIX = {35, 10, 35, 2, 14, 2, 2};
    /** The paper's lock count (ShiftLock §4.4). */
    public static final long PAPER_LOCKS = 680_236;
    /** The paper's share of shared lock requests. */
    public static final double PAPER_SHARED = 0.806;
    public static final long WORK_NS = 2_800;
    private static final int LOCKS_PER_SUBSCRIBER = 21;

    private final long subscribers;
    private final long tableLocks;
    private final Mix mix = new Mix(MIX);

    /** {@code subscribers} subscribers in a table of {@code tableLocks} locks (at least 21 per subscriber). */
    public Tatp(long subscribers, long tableLocks) {
        if (subscribers < 1 || tableLocks < LOCKS_PER_SUBSCRIBER * subscribers) {
            throw new IllegalArgumentException("tatp needs at least one subscriber and 21 locks per subscriber, got "
                    + subscribers + " subscribers in " + tableLocks + " locks");
        }
        this.subscribers = subscribers;
        this.tableLocks = tableLocks;
    }

    /** The paper's scale: 680 236 locks. */
    public static Tatp paper() {
        return new Tatp(PAPER_LOCKS / LOCKS_PER_SUBSCRIBER, PAPER_LOCKS);
    }

    public long subscribers() {
        return subscribers;
    }

    private long subscriber(long s) {
        return s;
    }

    private long accessInfo(long s, int type) {
        return subscribers + 4 * s + type;
    }

    private long specialFacility(long s, int type) {
        return 5 * subscribers + 4 * s + type;
    }

    private long callForwarding(long s, int type, int start) {
        return 9 * subscribers + 12 * s + 3L * type + start;
    }

    @Override
    public String name() {
        return "tatp";
    }

    @Override
    public List<String> types() {
        return TYPES;
    }

    @Override
    public long locks() {
        return tableLocks;
    }

    @Override
    public double paperSharedShare() {
        return PAPER_SHARED;
    }

    @Override
    public Transaction next(RandomGenerator random) {
        int type = mix.next(random);
        long s = random.nextLong(subscribers);
        int sf = random.nextInt(4);
        int start = random.nextInt(3);
        SmallBank.LockSet set = new SmallBank.LockSet();
        switch (type) {
            case 0 -> set.shared(subscriber(s));
            case 1 -> set.shared(specialFacility(s, sf)).shared(callForwarding(s, sf, start));
            case 2 -> set.shared(accessInfo(s, random.nextInt(4)));
            case 3 -> set.exclusive(subscriber(s)).exclusive(specialFacility(s, sf));
            case 4 -> set.exclusive(subscriber(s));
            case 5 -> set.shared(subscriber(s)).shared(specialFacility(s, sf)).exclusive(callForwarding(s, sf, start));
            case 6 -> set.shared(subscriber(s)).exclusive(callForwarding(s, sf, start));
            default -> throw new IllegalStateException("no tatp type " + type);
        }
        return set.transaction(type, WORK_NS, TxnBody.NONE);
    }

    @Override
    public String toString() {
        return "tatp[" + subscribers + " subscribers, " + tableLocks + " locks]";
    }
}
