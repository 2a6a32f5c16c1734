package io.lockfabric.txn;

/**
 * SmallBank's data: each account has a checking and a savings balance, in cents. In memory
 * ({@link InMemoryBankStore}) for local and simulated runs, in Redis in lockfabric-compare.
 *
 * <p>Not synchronized: a transaction touches a balance only under its lock, whose grant orders it
 * after the previous holder's writes.
 */
public interface BankStore {
    /** The number of accounts (numbered from 0). */
    long accounts();

    long checking(long account);

    long savings(long account);

    void setChecking(long account, long cents);

    void setSavings(long account, long cents);

    /** Every account's checking and savings balance set to {@code cents}. */
    void fill(long cents);

    /** Every balance, for the per-balance check ({@link BankLedger#check}); one by one unless the store has a faster way. */
    default BankLedger.Balances balances() {
        return BankLedger.Balances.of(this);
    }

    /** The sum of every balance (checking and savings of every account). */
    default long total() {
        long sum = 0;
        for (long a = 0; a < accounts(); a++) {
            sum += checking(a) + savings(a);
        }
        return sum;
    }
}
