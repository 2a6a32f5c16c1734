package io.lockfabric.txn;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * SmallBank (Alomari et al., "The cost of serializability on platforms that use snapshot
 * isolation", ICDE 2008), as ShiftLock §4.5 and the DecLock artifact run it: accounts with a
 * checking and a savings balance, one lock each (lock {@code 2a} is account {@code a}'s checking,
 * {@code 2a + 1} its savings), six transaction types over one or two accounts (two distinct ones,
 * drawn uniform or Zipf).
 *
 * <ul>
 *   <li>Amalgamate(a, b): X sav a, X chk a, X chk b; moves all of a's money into b's checking.</li>
 *   <li>Balance(a): S sav a, S chk a; reads both (the read-only type).</li>
 *   <li>DepositChecking(a): X chk a; adds {@link #DEPOSIT_CENTS}.</li>
 *   <li>SendPayment(a, b): X chk a, X chk b; moves {@link #PAYMENT_CENTS} if a has them.</li>
 *   <li>TransactSavings(a): X sav a; adds {@link #SAVINGS_CENTS}.</li>
 *   <li>WriteCheck(a): S sav a, X chk a; takes {@link #CHECK_CENTS} from checking, a dollar more
 *       if checking and savings together do not cover it.</li>
 * </ul>
 *
 * Each body returns what it changed in the bank's total ({@link TxnBody#run}): a run that adds these
 * up can check the store's total afterwards. Each body also records, in the workload's
 * {@link BankLedger}, what it changed in every balance it wrote (the new value minus the value it read
 * under its locks), so a run can check every balance afterwards ({@link BankLedger#check}): a transfer
 * lost or applied twice keeps the total but not the balances.
 */
public final class SmallBank implements TxnWorkload {
    /** The types, in {@link Transaction#type()} order. */
    public static final List<String> TYPES = List.of("Amalgamate", "Balance", "DepositChecking", "SendPayment",
            "TransactSavings", "WriteCheck");
    public static final int AMALGAMATE = 0;
    public static final int BALANCE = 1;
    public static final int DEPOSIT_CHECKING = 2;
    public static final int SEND_PAYMENT = 3;
    public static final int TRANSACT_SAVINGS = 4;
    public static final int WRITE_CHECK = 5;
    public static final long DEPOSIT_CENTS = 130;
    public static final long PAYMENT_CENTS = 500;
    public static final long SAVINGS_CENTS = 2020;
    public static final long CHECK_CENTS = 500;
    public static final long OVERDRAFT_CENTS = 100;

    /**
     * A SmallBank configuration.
     *
     * @param accounts the number of accounts
     * @param theta    the Zipf skew of the accounts drawn (0: uniform)
     * @param weights  the mix: a weight per type, in {@link #TYPES} order
     */
    public record Config(int accounts, double theta, int[] weights) {
        public Config {
            if (accounts < 2) {
                throw new IllegalArgumentException("smallbank needs at least 2 accounts, got " + accounts);
            }
            if (weights.length != TYPES.size()) {
                throw new IllegalArgumentException("smallbank needs " + TYPES.size() + " weights, got " + weights.length);
            }
            weights = weights.clone();
        }

        /** ShiftLock §4.5: 1 M accounts, uniform, 15% Balance, SendPayment 25%, the others 15% each. */
        public static Config shiftlock() {
            return new Config(1_000_000, 0, new int[]{15, 15, 15, 25, 15, 15});
        }

        /** The DecLock artifact's: 100 000 accounts, Zipf 0.99, SendPayment 26%, WriteCheck 14%, the others 15%. */
        public static Config declock() {
            return new Config(100_000, 0.99, new int[]{15, 15, 15, 26, 15, 14});
        }

        /** This configuration with {@code n} accounts. */
        public Config withAccounts(int n) {
            return new Config(n, theta, weights);
        }
    }

    private final Config config;
    private final BankStore store;
    private final Zipf accounts;
    private final Mix mix;
    private final BankLedger ledger;

    /**
     * With a ledger of its own ({@link #ledger()}).
     *
     * @param store the bank's data, with at least {@code config.accounts()} accounts
     */
    public SmallBank(Config config, BankStore store) {
        this(config, store, new BankLedger(Objects.requireNonNull(config, "config").accounts()));
    }

    /**
     * @param store  the bank's data, with at least {@code config.accounts()} accounts
     * @param ledger where the bodies record their changes to each balance, of {@code config.accounts()} accounts
     */
    public SmallBank(Config config, BankStore store, BankLedger ledger) {
        this.config = Objects.requireNonNull(config, "config");
        this.store = Objects.requireNonNull(store, "store");
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        if (ledger.accounts() != config.accounts()) {
            throw new IllegalArgumentException("the ledger has " + ledger.accounts() + " accounts, the workload "
                    + config.accounts());
        }
        if (store.accounts() < config.accounts()) {
            throw new IllegalArgumentException("the store has " + store.accounts() + " accounts, the workload "
                    + config.accounts());
        }
        this.accounts = new Zipf(config.accounts(), config.theta());
        this.mix = new Mix(config.weights());
    }

    public Config config() {
        return config;
    }

    public BankStore store() {
        return store;
    }

    /** What the bodies changed in each balance so far (every client of this workload). */
    public BankLedger ledger() {
        return ledger;
    }

    /** Account {@code a}'s checking lock. */
    public static long checkingLock(long a) {
        return 2 * a;
    }

    /** Account {@code a}'s savings lock. */
    public static long savingsLock(long a) {
        return 2 * a + 1;
    }

    @Override
    public String name() {
        return "smallbank";
    }

    @Override
    public List<String> types() {
        return TYPES;
    }

    @Override
    public long locks() {
        return 2L * config.accounts();
    }

    /** Not given by the papers; what this mix asks for (Balance's two and WriteCheck's one shared lock). */
    @Override
    public double paperSharedShare() {
        return Double.NaN;
    }

    @Override
    public Transaction next(RandomGenerator random) {
        int type = mix.next(random);
        long a = accounts.next(random);
        long b = a;
        if (type == AMALGAMATE || type == SEND_PAYMENT) {
            while (b == a) {
                b = accounts.next(random);
            }
        }
        LockSet set = new LockSet();
        BankStore s = store;
        BankLedger l = ledger;
        long x = a;
        long y = b;
        TxnBody body = switch (type) {
            case AMALGAMATE -> {
                set.exclusive(savingsLock(a)).exclusive(checkingLock(a)).exclusive(checkingLock(b));
                yield () -> {
                    long sav = s.savings(x);
                    long chk = s.checking(x);
                    long all = sav + chk;
                    s.setSavings(x, 0);
                    l.savings(x, -sav);
                    s.setChecking(x, 0);
                    l.checking(x, -chk);
                    s.setChecking(y, s.checking(y) + all);
                    l.checking(y, all);
                    return 0;
                };
            }
            case BALANCE -> {
                set.shared(savingsLock(a)).shared(checkingLock(a));
                yield () -> {
                    long ignored = s.savings(x) + s.checking(x);
                    return 0;
                };
            }
            case DEPOSIT_CHECKING -> {
                set.exclusive(checkingLock(a));
                yield () -> {
                    s.setChecking(x, s.checking(x) + DEPOSIT_CENTS);
                    l.checking(x, DEPOSIT_CENTS);
                    return DEPOSIT_CENTS;
                };
            }
            case SEND_PAYMENT -> {
                set.exclusive(checkingLock(a)).exclusive(checkingLock(b));
                yield () -> {
                    long from = s.checking(x);
                    if (from >= PAYMENT_CENTS) {
                        s.setChecking(x, from - PAYMENT_CENTS);
                        l.checking(x, -PAYMENT_CENTS);
                        s.setChecking(y, s.checking(y) + PAYMENT_CENTS);
                        l.checking(y, PAYMENT_CENTS);
                    }
                    return 0;
                };
            }
            case TRANSACT_SAVINGS -> {
                set.exclusive(savingsLock(a));
                yield () -> {
                    s.setSavings(x, s.savings(x) + SAVINGS_CENTS);
                    l.savings(x, SAVINGS_CENTS);
                    return SAVINGS_CENTS;
                };
            }
            case WRITE_CHECK -> {
                set.shared(savingsLock(a)).exclusive(checkingLock(a));
                yield () -> {
                    long chk = s.checking(x);
                    long take = s.savings(x) + chk < CHECK_CENTS ? CHECK_CENTS + OVERDRAFT_CENTS : CHECK_CENTS;
                    s.setChecking(x, chk - take);
                    l.checking(x, -take);
                    return -take;
                };
            }
            default -> throw new IllegalStateException("no smallbank type " + type);
        };
        return set.transaction(type, 0, body);
    }

    @Override
    public String toString() {
        return "smallbank[" + config.accounts() + " accounts, zipf " + config.theta() + "]";
    }

    /** A transaction's lock set as it is built. */
    static final class LockSet {
        private final List<TxnLock> locks = new ArrayList<>();
        private long[] ids = new long[8];

        LockSet shared(long id) {
            return add(id, TxnLock.shared(Long.toString(id)));
        }

        LockSet exclusive(long id) {
            return add(id, TxnLock.exclusive(Long.toString(id)));
        }

        LockSet lock(long id, boolean exclusive) {
            return exclusive ? exclusive(id) : shared(id);
        }

        private LockSet add(long id, TxnLock l) {
            if (locks.size() == ids.length) {
                ids = java.util.Arrays.copyOf(ids, ids.length * 2);
            }
            ids[locks.size()] = id;
            locks.add(l);
            return this;
        }

        Transaction transaction(int type, long workNs, TxnBody body) {
            return new Transaction(type, locks, java.util.Arrays.copyOf(ids, locks.size()), workNs, body);
        }
    }
}
