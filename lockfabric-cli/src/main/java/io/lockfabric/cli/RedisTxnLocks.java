package io.lockfabric.cli;

import io.lockfabric.compare.smallbank.RedisBank;
import io.lockfabric.compare.smallbank.RedisSetNxLocker;
import io.lockfabric.compare.smallbank.SmallBankOnRedis;
import io.lockfabric.txn.BankStore;
import io.lockfabric.txn.Locker;
import org.redisson.api.RedissonClient;

import java.time.Duration;

/**
 * {@code lockfabric txn --redis URL}: SmallBank's balances as keys of that Redis ({@link RedisBank},
 * loaded at the start of each run), locked either by Redis's own lock ({@code --locks redis}: the
 * SET NX PX + Lua release recipe, {@link RedisSetNxLocker}, exclusive only) or by another kind's
 * locker ({@code --locks lockfabric}: a lock space on {@code --fabric}, typically a
 * {@code lockfabric serve} over tcp). One Redisson client per run, shut down with it.
 */
final class RedisTxnLocks implements TxnLocks {
    private final RedissonClient client;
    private final Locker locker;
    private final TxnLocks inner;

    private RedisTxnLocks(RedissonClient client, Locker locker, TxnLocks inner) {
        this.client = client;
        this.locker = locker;
        this.inner = inner;
    }

    private static RedissonClient connect(Request request) {
        try {
            return RedisBank.connect(request.redis(), request.clients() + 4);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    /** The Redis lock at {@code request.redis()}, the balances in that Redis. */
    static TxnLocks redisLock(Request request) {
        RedissonClient client = connect(request);
        try {
            return new RedisTxnLocks(client, new RedisSetNxLocker(client, false, SmallBankOnRedis.PREFIX + "lock:",
                    Duration.ofMillis(SmallBankOnRedis.SETNX_TTL_MS)), null);
        } catch (RuntimeException e) {
            client.shutdown();
            throw e;
        }
    }

    /** {@code locks}' locker, the balances in the Redis at {@code request.redis()}. */
    static TxnLocks dataInRedis(TxnLocks locks, Request request) {
        try {
            return new RedisTxnLocks(connect(request), locks.locker(), locks);
        } catch (RuntimeException e) {
            locks.close();
            throw e;
        }
    }

    @Override
    public Locker locker() {
        return locker;
    }

    @Override
    public BankStore bank(int accounts, long cents) {
        RedisBank bank = new RedisBank(client, false, SmallBankOnRedis.PREFIX, accounts);
        bank.fill(cents);
        return bank;
    }

    @Override
    public void close() {
        try {
            if (inner != null) {
                inner.close();
            } else {
                locker.close();
            }
        } finally {
            client.shutdown();
        }
    }
}
