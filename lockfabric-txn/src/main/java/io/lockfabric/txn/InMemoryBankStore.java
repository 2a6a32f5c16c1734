package io.lockfabric.txn;

import java.util.Arrays;

/** A {@link BankStore} in two arrays of this JVM. */
public final class InMemoryBankStore implements BankStore {
    private final long[] checking;
    private final long[] savings;

    /** {@code accounts} accounts, every balance {@code initialCents}. */
    public InMemoryBankStore(int accounts, long initialCents) {
        if (accounts < 2) {
            throw new IllegalArgumentException("a bank needs at least 2 accounts, got " + accounts);
        }
        checking = new long[accounts];
        savings = new long[accounts];
        fill(initialCents);
    }

    @Override
    public long accounts() {
        return checking.length;
    }

    @Override
    public long checking(long account) {
        return checking[(int) account];
    }

    @Override
    public long savings(long account) {
        return savings[(int) account];
    }

    @Override
    public void setChecking(long account, long cents) {
        checking[(int) account] = cents;
    }

    @Override
    public void setSavings(long account, long cents) {
        savings[(int) account] = cents;
    }

    /** A copy of every balance. */
    @Override
    public BankLedger.Balances balances() {
        return new BankLedger.Balances(checking.clone(), savings.clone());
    }

    @Override
    public void fill(long cents) {
        Arrays.fill(checking, cents);
        Arrays.fill(savings, cents);
    }
}
