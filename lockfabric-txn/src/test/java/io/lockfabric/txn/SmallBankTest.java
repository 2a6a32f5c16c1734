package io.lockfabric.txn;

import io.lockfabric.LockFabric;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SmallBank's mixes, and its conservation check on the local fabric through the client API. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SmallBankTest {
    private static double[] mixOf(SmallBank.Config c, int n) {
        SmallBank w = new SmallBank(c.withAccounts(1000), new InMemoryBankStore(1000, 10_000));
        SplittableRandom r = new SplittableRandom(7);
        double[] share = new double[SmallBank.TYPES.size()];
        for (int i = 0; i < n; i++) {
            share[w.next(r).type()] += 1.0 / n;
        }
        return share;
    }

    @Test
    void theMixesAreThePapers() {
        double[] shift = mixOf(SmallBank.Config.shiftlock(), 200_000);
        assertEquals(0.15, shift[SmallBank.BALANCE], 0.01);
        assertEquals(0.25, shift[SmallBank.SEND_PAYMENT], 0.01);
        double[] dec = mixOf(SmallBank.Config.declock(), 200_000);
        assertEquals(0.26, dec[SmallBank.SEND_PAYMENT], 0.01);
        assertEquals(0.14, dec[SmallBank.WRITE_CHECK], 0.01);
        assertEquals(1_000_000, SmallBank.Config.shiftlock().accounts());
        assertEquals(100_000, SmallBank.Config.declock().accounts());
    }

    @Test
    void zipfAccountsAreSkewedAndTwoAccountTypesTakeTwoDistinctAccounts() {
        SmallBank w = new SmallBank(SmallBank.Config.declock(), new InMemoryBankStore(100_000, 0));
        SplittableRandom r = new SplittableRandom(1);
        int hot = 0;
        for (int i = 0; i < 50_000; i++) {
            Transaction t = w.next(r);
            if (t.lockIds()[0] <= 1 || t.lockIds()[0] == 2 || t.lockIds()[0] == 3) {
                hot++;
            }
            if (t.type() == SmallBank.SEND_PAYMENT) {
                assertTrue(t.lockIds()[0] != t.lockIds()[1]);
            }
        }
        assertTrue(hot > 50_000 * 0.05, "accounts 0 and 1 are hot under zipf 0.99: " + hot);
    }

    @Test
    void moneyIsConservedUnderContentionOnTheLocalFabric() throws Exception {
        int accounts = 20; // few accounts: many conflicts
        InMemoryBankStore store = new InMemoryBankStore(accounts, 10_000);
        long before = store.total();
        BankLedger.Balances initial = store.balances();
        SmallBank w = new SmallBank(SmallBank.Config.shiftlock().withAccounts(accounts), store);
        try (LockFabric lf = LockFabric.builder("local").poolSize(4).open()) {
            Locker locker = new LockFabricLocker(lf.lockSpace("bank"));
            TxnResult r = TxnRunner.realTime().run(w, locker,
                    new TxnRunner.Settings(8, 0, TimeUnit.MILLISECONDS.toNanos(500), 42), null);
            assertTrue(r.all().committed() > 100, "committed " + r.all().committed());
            assertEquals(before + r.ledger(), store.total(), "nothing lost, nothing applied twice");
            assertEquals(r.ledger(), w.ledger().sum(), "the per-balance ledger adds up to the total's");
            BankLedger.Check check = w.ledger().check(initial, store.balances());
            assertTrue(check.ok(), check.describe());
            assertEquals(2L * accounts, check.balances());
        }
    }

    /**
     * A store that, once armed, writes each of the next {@link #doubling} checking writes' change twice;
     * and that pauses after each read if {@link #pause} (so that bodies without locks interleave even on a busy machine).
     */
    private static final class DoublingStore implements BankStore {
        private final InMemoryBankStore inner;
        private int doubling;
        private volatile boolean pause;

        DoublingStore(InMemoryBankStore inner) {
            this.inner = inner;
        }

        @Override
        public long accounts() {
            return inner.accounts();
        }

        @Override
        public long checking(long account) {
            long v = inner.checking(account);
            pause();
            return v;
        }

        @Override
        public long savings(long account) {
            long v = inner.savings(account);
            pause();
            return v;
        }

        private void pause() {
            if (pause) {
                java.util.concurrent.locks.LockSupport.parkNanos(20_000);
            }
        }

        @Override
        public void setChecking(long account, long cents) {
            long old = inner.checking(account);
            inner.setChecking(account, doubling-- > 0 ? cents + (cents - old) : cents);
        }

        @Override
        public void setSavings(long account, long cents) {
            inner.setSavings(account, cents);
        }

        @Override
        public void fill(long cents) {
            inner.fill(cents);
        }
    }

    @Test
    void aTransferAppliedTwiceKeepsTheTotalButNotTheBalances() {
        InMemoryBankStore memory = new InMemoryBankStore(50, 10_000);
        DoublingStore store = new DoublingStore(memory);
        BankLedger.Balances initial = store.balances();
        long before = store.total();
        // SendPayment only: every transaction moves 500 cents from one checking balance to another
        SmallBank w = new SmallBank(new SmallBank.Config(50, 0, new int[]{0, 0, 0, 1, 0, 0}), store);
        SplittableRandom r = new SplittableRandom(3);
        for (int i = 0; i < 100; i++) {
            Transaction t = w.next(r);
            if (i == 40) {
                store.doubling = 2; // this transfer's debit and credit land twice
            }
            assertEquals(0, t.body().run());
        }
        assertEquals(before, store.total(), "a transfer applied twice keeps the total: the total check cannot see it");
        BankLedger.Check check = w.ledger().check(initial, store.balances());
        assertEquals(2, check.differing(), check.describe());
        assertEquals(2, check.first().size());
        for (BankLedger.Mismatch m : check.first()) {
            assertEquals("checking", m.balance());
            assertEquals(SmallBank.PAYMENT_CENTS, Math.abs(m.actual() - m.expected()), m.toString());
        }
        assertTrue(check.describe().startsWith("2 of 100 balances differ"), check.describe());
    }

    /** A locker that takes nothing: concurrent bodies race on the balances. */
    private static final class NoLocks implements Locker {
        @Override
        public String name() {
            return "none";
        }

        @Override
        public Locked lockAll(java.util.List<TxnLock> locks) {
            return new Locked() {
                @Override
                public int count() {
                    return 0;
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public java.util.Optional<Locked> tryLockAll(java.util.List<TxnLock> locks, java.time.Duration wait) {
            return java.util.Optional.of(lockAll(locks));
        }

        @Override
        public void close() {
        }
    }

    @Test
    void transfersRacingWithoutLocksAreCaughtPerBalance() throws Exception {
        // transfers only (Amalgamate, SendPayment) on 4 accounts, 4 threads, no locks: updates are lost
        DoublingStore store = new DoublingStore(new InMemoryBankStore(4, 10_000));
        store.pause = true;
        BankLedger.Balances initial = store.balances();
        SmallBank w = new SmallBank(new SmallBank.Config(4, 0, new int[]{1, 0, 0, 3, 0, 0}), store);
        TxnResult r = TxnRunner.realTime().run(w, new NoLocks(),
                new TxnRunner.Settings(4, 0, TimeUnit.MILLISECONDS.toNanos(300), 5), null);
        assertTrue(r.all().committed() > 20, "committed " + r.all().committed());
        assertEquals(0, r.ledger(), "transfers only: nothing comes in or goes out");
        BankLedger.Check check = w.ledger().check(initial, store.balances());
        assertTrue(!check.ok(), "4 threads raced on 4 accounts without locks and every balance is as recorded");
        assertTrue(check.differing() > 0 && !check.first().isEmpty(), check.describe());
    }
}
