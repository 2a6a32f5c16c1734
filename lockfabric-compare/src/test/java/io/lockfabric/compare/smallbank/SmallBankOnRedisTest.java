package io.lockfabric.compare.smallbank;

import io.lockfabric.txn.SmallBank;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SmallBank on real processes: a real redis-server for the data (started here; missing, the test
 * fails), two client JVMs of 4 threads each, 256 accounts drawn uniformly (8 clients' transactions
 * often meet on an account), and the conservation check after each run (the total, and every balance
 * against the client processes' per-balance ledgers): it passes with LockFabric's locks on a tcp
 * memory node and with Redis's SET NX PX lock, and catches the lost updates of a run with no locks on
 * 4 accounts (the check can fail).
 */
@Tag("peers")
class SmallBankOnRedisTest {
    private static final ByteArrayOutputStream PROGRESS = new ByteArrayOutputStream();
    private static SmallBankOnRedis bank;

    @BeforeAll
    static void start() {
        SmallBank.Config small = new SmallBank.Config(256, 0, new int[]{15, 15, 15, 25, 15, 15});
        bank = new SmallBankOnRedis(new SmallBankOnRedis.Settings(null, null, small, 2, 4, TimeUnit.MILLISECONDS.toNanos(300),
                TimeUnit.MILLISECONDS.toNanos(1000), 11), new PrintStream(PROGRESS, true, StandardCharsets.UTF_8));
    }

    @AfterAll
    static void stop() {
        if (bank != null) {
            bank.close();
        }
    }

    private static SmallBankOnRedis.Result run(String kind, String protocol) throws InterruptedException {
        SmallBankOnRedis.Result r = bank.run(new SmallBankOnRedis.Locks(kind, protocol));
        assertEquals(2, r.processes());
        assertTrue(r.committed() > 0, "only " + r.committed() + " transactions committed\n" + PROGRESS);
        assertTrue(r.p50Ns() > 0 && r.p99Ns() >= r.p50Ns(), r.toString());
        assertNotEquals(0, r.ledger(), "no money came in or went out: the ledger is not checked");
        assertEquals(2 * 256, r.balances(), "every balance is checked against the clients' per-balance ledgers");
        return r;
    }

    @Test
    void lockFabricOnTcpConservesMoney() throws InterruptedException {
        SmallBankOnRedis.Result r = run("lockfabric", "shiftlock");
        assertTrue(r.ok(), r.check() + "\n" + PROGRESS);
    }

    @Test
    void redisSetNxLockConservesMoney() throws InterruptedException {
        SmallBankOnRedis.Result r = run("redis-setnx", null);
        assertTrue(r.ok(), r.check() + "\n" + PROGRESS);
        assertEquals(0, r.leftLocks());
    }

    @Test
    void withoutLocksTheCheckFails() throws InterruptedException {
        // 4 accounts: every transaction meets the others, so unlocked read-modify-writes lose updates at once
        SmallBank.Config hot = new SmallBank.Config(4, 0, new int[]{15, 15, 15, 25, 15, 15});
        try (SmallBankOnRedis tiny = new SmallBankOnRedis(new SmallBankOnRedis.Settings(null, null, hot, 2, 4,
                TimeUnit.MILLISECONDS.toNanos(300), TimeUnit.MILLISECONDS.toNanos(1000), 11),
                new PrintStream(PROGRESS, true, StandardCharsets.UTF_8))) {
            SmallBankOnRedis.Result r = tiny.run(new SmallBankOnRedis.Locks("none", null));
            assertTrue(r.committed() > 0, r.toString());
            assertTrue(!r.conserved(), "8 threads in 2 processes raced on 4 accounts without locks and no update was lost: "
                    + r + "\n" + PROGRESS);
            assertTrue(r.check().startsWith("NOT CONSERVED"), r.check());
            // the per-balance check catches it too, whether or not the total came out right
            assertTrue(!r.balancesConserved() && r.differing() > 0 && !r.mismatches().isEmpty(), r.check());
            assertTrue(r.check().contains("NOT CONSERVED per balance"), r.check());
        }
    }
}
