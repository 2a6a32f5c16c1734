package io.lockfabric.txn;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * SmallBank's per-balance ledger: what every committed body changed in every balance it wrote, as it
 * wrote it (the new value minus the value it read under its lock: the amount actually moved), summed
 * per balance. After a run, every balance must be its value before the run plus its sum over every
 * client of every process ({@link #check}); a transfer applied twice or a lost update between two
 * transfers, which leaves the bank's total unchanged, shows as balances that differ. Two arrays of
 * {@code accounts} longs (1 M accounts: 16 MB). Thread-safe (atomic adds).
 */
public final class BankLedger {
    /** How many differing balances {@link Check#first()} lists. */
    public static final int FIRST = 5;

    private final AtomicLongArray checking;
    private final AtomicLongArray savings;

    /** An empty ledger of {@code accounts} accounts. */
    public BankLedger(int accounts) {
        if (accounts < 1) {
            throw new IllegalArgumentException("a ledger needs at least one account, got " + accounts);
        }
        checking = new AtomicLongArray(accounts);
        savings = new AtomicLongArray(accounts);
    }

    /** The number of accounts. */
    public int accounts() {
        return checking.length();
    }

    /** Records that {@code account}'s checking balance changed by {@code delta} cents. */
    public void checking(long account, long delta) {
        checking.addAndGet((int) account, delta);
    }

    /** Records that {@code account}'s savings balance changed by {@code delta} cents. */
    public void savings(long account, long delta) {
        savings.addAndGet((int) account, delta);
    }

    /** The sum of the changes recorded to {@code account}'s checking balance. */
    public long checkingDelta(long account) {
        return checking.get((int) account);
    }

    /** The sum of the changes recorded to {@code account}'s savings balance. */
    public long savingsDelta(long account) {
        return savings.get((int) account);
    }

    /** The sum of every change recorded (the bank's total must move by this much). */
    public long sum() {
        long s = 0;
        for (int a = 0; a < accounts(); a++) {
            s += checking.get(a) + savings.get(a);
        }
        return s;
    }

    /** Adds {@code other}'s changes (another process's) to this ledger's. */
    public void add(BankLedger other) {
        if (other.accounts() != accounts()) {
            throw new IllegalArgumentException("a ledger of " + other.accounts() + " accounts added to one of " + accounts());
        }
        for (int a = 0; a < accounts(); a++) {
            checking.addAndGet(a, other.checking.get(a));
            savings.addAndGet(a, other.savings.get(a));
        }
    }

    /**
     * Writes the ledger compactly: the account count, the number of changed balances, then each as
     * (balance index: {@code 2a} checking, {@code 2a + 1} savings; delta). Does not close {@code out}.
     */
    public void writeTo(OutputStream out) throws IOException {
        DataOutputStream d = new DataOutputStream(new java.io.BufferedOutputStream(out, 1 << 16));
        int n = 0;
        for (int a = 0; a < accounts(); a++) {
            n += (checking.get(a) != 0 ? 1 : 0) + (savings.get(a) != 0 ? 1 : 0);
        }
        d.writeInt(accounts());
        d.writeInt(n);
        for (int a = 0; a < accounts(); a++) {
            if (checking.get(a) != 0) {
                d.writeInt(2 * a);
                d.writeLong(checking.get(a));
            }
            if (savings.get(a) != 0) {
                d.writeInt(2 * a + 1);
                d.writeLong(savings.get(a));
            }
        }
        d.flush();
    }

    /**
     * Reads a ledger {@link #writeTo} wrote.
     *
     * @throws IOException if the stream ends early or does not hold a ledger
     */
    public static BankLedger readFrom(InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(new java.io.BufferedInputStream(in, 1 << 16));
        int accounts = d.readInt();
        int n = d.readInt();
        if (accounts < 1 || n < 0 || n > 2L * accounts) {
            throw new IOException("not a bank ledger: " + accounts + " accounts, " + n + " balances");
        }
        BankLedger l = new BankLedger(accounts);
        for (int i = 0; i < n; i++) {
            int balance = d.readInt();
            long delta = d.readLong();
            if (balance < 0 || balance >= 2 * accounts) {
                throw new IOException("not a bank ledger: balance " + balance + " of " + accounts + " accounts");
            }
            if (balance % 2 == 0) {
                l.checking(balance / 2, delta);
            } else {
                l.savings(balance / 2, delta);
            }
        }
        return l;
    }

    /**
     * Every balance of a bank at one moment.
     *
     * @param checking each account's checking balance
     * @param savings  each account's savings balance
     */
    public record Balances(long[] checking, long[] savings) {
        /** Checks the lengths agree. */
        public Balances {
            if (checking.length != savings.length) {
                throw new IllegalArgumentException(checking.length + " checking and " + savings.length + " savings balances");
            }
        }

        /** {@code accounts} accounts, every balance {@code cents}. */
        public static Balances filled(int accounts, long cents) {
            long[] c = new long[accounts];
            long[] s = new long[accounts];
            java.util.Arrays.fill(c, cents);
            java.util.Arrays.fill(s, cents);
            return new Balances(c, s);
        }

        /** Every balance of {@code store}, read one by one. */
        public static Balances of(BankStore store) {
            int n = Math.toIntExact(store.accounts());
            long[] c = new long[n];
            long[] s = new long[n];
            for (int a = 0; a < n; a++) {
                c[a] = store.checking(a);
                s[a] = store.savings(a);
            }
            return new Balances(c, s);
        }

        /** The number of accounts. */
        public int accounts() {
            return checking.length;
        }

        /** The sum of every balance. */
        public long total() {
            long t = 0;
            for (int a = 0; a < checking.length; a++) {
                t += checking[a] + savings[a];
            }
            return t;
        }
    }

    /**
     * A balance that is not its initial value plus its recorded changes.
     *
     * @param account  the account
     * @param balance  {@code checking} or {@code savings}
     * @param expected the initial value plus the recorded changes
     * @param actual   the value found
     */
    public record Mismatch(long account, String balance, long expected, long actual) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "account %d %s: expected %d, found %d", account, balance, expected, actual);
        }
    }

    /**
     * The per-balance check's outcome.
     *
     * @param balances  balances checked
     * @param differing balances that differ from their initial value plus their recorded changes
     * @param first     the first {@link #FIRST} of them, by account
     */
    public record Check(long balances, long differing, List<Mismatch> first) {
        /** Copies the list. */
        public Check {
            first = List.copyOf(first);
        }

        /** Whether every balance is as recorded. */
        public boolean ok() {
            return differing == 0;
        }

        /** {@code every balance as recorded (N)} or the count and the first few that differ. */
        public String describe() {
            if (ok()) {
                return "every balance as recorded (" + balances + ")";
            }
            return differing + " of " + balances + " balances differ from their recorded changes, first: " + first;
        }
    }

    /**
     * Checks every balance of {@code after} against its value in {@code before} plus its recorded changes.
     *
     * @throws IllegalArgumentException if the account counts differ
     */
    public Check check(Balances before, Balances after) {
        if (before.accounts() != accounts() || after.accounts() != accounts()) {
            throw new IllegalArgumentException("balances of " + before.accounts() + " and " + after.accounts()
                    + " accounts checked against a ledger of " + accounts());
        }
        long differing = 0;
        List<Mismatch> first = new ArrayList<>();
        for (int a = 0; a < accounts(); a++) {
            long ec = before.checking()[a] + checking.get(a);
            if (ec != after.checking()[a]) {
                differing++;
                if (first.size() < FIRST) {
                    first.add(new Mismatch(a, "checking", ec, after.checking()[a]));
                }
            }
            long es = before.savings()[a] + savings.get(a);
            if (es != after.savings()[a]) {
                differing++;
                if (first.size() < FIRST) {
                    first.add(new Mismatch(a, "savings", es, after.savings()[a]));
                }
            }
        }
        return new Check(2L * accounts(), differing, first);
    }
}
