package io.lockfabric.txn;

import java.util.Arrays;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * TPC-C's five transaction types over DecLock's lock map (the DecLock artifact, §6.6), as ShiftLock
 * §4.4 runs them: 7 µs of simulated work each, about 86% of the lock requests exclusive (the paper:
 * 86.5%; this map and mix: about 87%).
 *
 * <p>The lock map: tables WH, DI, CU, OD, HI, NO, OL, ST one after the other; per warehouse one WH
 * lock, 10 DI, per district {@code perDistrict} locks of each of CU, OD, HI, NO, OL, and
 * {@code stock} ST. {@link #declock(int)} is DecLock's map (300 per district of CU, OD, HI, NO,
 * 3 000 OL per district, 100 000 ST per warehouse): 8 warehouses are its 8, 80, 24 000 (four times),
 * 240 000 and 800 000 locks, 1 136 088 in all. {@link #paper()} has the
 * paper's 100 warehouses with 9 locks per district and 143 stock per warehouse: 60 400 locks, the
 * paper's 60 490 within 0.15% (its generator's table sizes are not published, and 60 490 is no
 * multiple of 100 warehouses).
 *
 * <ul>
 *   <li>NewOrder 45%: WH S, DI X, CU X, OD X, NO X, 5–15 distinct ST X (sorted), OL X.</li>
 *   <li>Payment 43%: WH X, DI X, CU X, HI X.</li>
 *   <li>OrderStatus 4%: CU S, OD S, an OL S per line of the order (5–15).</li>
 *   <li>Delivery 4%: for each of the warehouse's 10 districts OD X, NO X, OL S, CU X (TPC-C's Delivery
 *       delivers one order per district).</li>
 *   <li>StockLevel 4%: DI S, OD S, ST S.</li>
 * </ul>
 */
public final class TpcC implements TxnWorkload {
    public static final List<String> TYPES = List.of("NewOrder", "Payment", "OrderStatus", "Delivery", "StockLevel");
    public static final String NEW = "NewOrder";
    public static final String DLY = "Delivery";
    private static final int[] MIX = {45, 43, 4, 4, 4};
    public static final long PAPER_LOCKS = 60_490;
    /** The paper's share of shared lock requests (86.5% exclusive). */
    public static final double PAPER_SHARED = 0.135;
    public static final long WORK_NS = 7_000;
    private static final int DISTRICTS = 10;

    private final int warehouses;
    private final int perDistrict;
    private final int olPerDistrict;
    private final int stock;
    private final long wh;
    private final long di;
    private final long cu;
    private final long od;
    private final long hi;
    private final long no;
    private final long ol;
    private final long st;
    private final long total;
    private final Mix mix = new Mix(MIX);

    /**
     * @param warehouses    warehouses
     * @param perDistrict   CU, OD, HI and NO locks per district
     * @param olPerDistrict OL locks per district
     * @param stock         ST locks per warehouse (at least 15)
     */
    public TpcC(int warehouses, int perDistrict, int olPerDistrict, int stock) {
        if (warehouses < 1 || perDistrict < 1 || olPerDistrict < 1 || stock < 15) {
            throw new IllegalArgumentException("tpcc needs at least one warehouse, one lock per district and table, "
                    + "and 15 stock per warehouse");
        }
        this.warehouses = warehouses;
        this.perDistrict = perDistrict;
        this.olPerDistrict = olPerDistrict;
        this.stock = stock;
        long districts = (long) warehouses * DISTRICTS;
        wh = 0;
        di = wh + warehouses;
        cu = di + districts;
        od = cu + districts * perDistrict;
        hi = od + districts * perDistrict;
        no = hi + districts * perDistrict;
        ol = no + districts * perDistrict;
        st = ol + districts * olPerDistrict;
        total = st + (long) warehouses * stock;
    }

    /** The paper's scale: 100 warehouses, about 60 490 locks. */
    public static TpcC paper() {
        return new TpcC(100, 9, 9, 143);
    }

    /** DecLock's lock map with {@code warehouses} warehouses. */
    public static TpcC declock(int warehouses) {
        return new TpcC(warehouses, 300, 3_000, 100_000);
    }

    public int warehouses() {
        return warehouses;
    }

    @Override
    public String name() {
        return "tpcc";
    }

    @Override
    public List<String> types() {
        return TYPES;
    }

    @Override
    public long locks() {
        return total;
    }

    @Override
    public double paperSharedShare() {
        return PAPER_SHARED;
    }

    private long district(long w, int d) {
        return w * DISTRICTS + d;
    }

    @Override
    public Transaction next(RandomGenerator random) {
        int type = mix.next(random);
        long w = random.nextInt(warehouses);
        int d = random.nextInt(DISTRICTS);
        long dist = district(w, d);
        long c = cu + dist * perDistrict + random.nextInt(perDistrict);
        int o = random.nextInt(perDistrict);
        SmallBank.LockSet set = new SmallBank.LockSet();
        switch (type) {
            case 0 -> {
                set.shared(wh + w).exclusive(di + dist).exclusive(c).exclusive(od + dist * perDistrict + o)
                        .exclusive(no + dist * perDistrict + o);
                for (long item : items(random, 5 + random.nextInt(11))) {
                    set.exclusive(st + w * stock + item);
                }
                set.exclusive(ol + dist * olPerDistrict + random.nextInt(olPerDistrict));
            }
            case 1 -> set.exclusive(wh + w).exclusive(di + dist).exclusive(c).exclusive(hi + dist * perDistrict + o);
            case 2 -> {
                set.shared(c).shared(od + dist * perDistrict + o);
                int lines = 5 + random.nextInt(11);
                int first = random.nextInt(olPerDistrict);
                for (int l = 0; l < lines; l++) {
                    set.shared(ol + dist * olPerDistrict + (first + l) % olPerDistrict);
                }
            }
            case 3 -> {
                for (int dd = 0; dd < DISTRICTS; dd++) {
                    long x = district(w, dd);
                    int oo = random.nextInt(perDistrict);
                    set.exclusive(od + x * perDistrict + oo).exclusive(no + x * perDistrict + oo)
                            .shared(ol + x * olPerDistrict + random.nextInt(olPerDistrict))
                            .exclusive(cu + x * perDistrict + random.nextInt(perDistrict));
                }
            }
            case 4 -> set.shared(di + dist).shared(od + dist * perDistrict + o).shared(st + w * stock + random.nextInt(stock));
            default -> throw new IllegalStateException("no tpcc type " + type);
        }
        return set.transaction(type, WORK_NS, TxnBody.NONE);
    }

    /** {@code n} distinct stock items of a warehouse, sorted. */
    private long[] items(RandomGenerator random, int n) {
        long[] picked = new long[n];
        int k = 0;
        while (k < n) {
            long item = random.nextInt(stock);
            boolean seen = false;
            for (int i = 0; i < k; i++) {
                seen |= picked[i] == item;
            }
            if (!seen) {
                picked[k++] = item;
            }
        }
        Arrays.sort(picked);
        return picked;
    }

    @Override
    public String toString() {
        return "tpcc[" + warehouses + " warehouses, " + total + " locks]";
    }
}
