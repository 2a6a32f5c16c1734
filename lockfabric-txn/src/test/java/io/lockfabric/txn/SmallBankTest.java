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
        SmallBank w = new SmallBank(SmallBank.Config.shiftlock().withAccounts(accounts), store);
        try (LockFabric lf = LockFabric.builder("local").poolSize(4).open()) {
            Locker locker = new LockFabricLocker(lf.lockSpace("bank"));
            TxnResult r = TxnRunner.realTime().run(w, locker,
                    new TxnRunner.Settings(8, 0, TimeUnit.MILLISECONDS.toNanos(500), 42), null);
            assertTrue(r.all().committed() > 100, "committed " + r.all().committed());
            assertEquals(before + r.ledger(), store.total(), "nothing lost, nothing applied twice");
        }
    }
}
