package io.lockfabric.cli;

import io.lockfabric.LockFabric;
import io.lockfabric.SpaceOptions;
import io.lockfabric.txn.BankStore;
import io.lockfabric.txn.InMemoryBankStore;
import io.lockfabric.txn.LockFabricLocker;
import io.lockfabric.txn.Locker;

/**
 * Where {@code lockfabric txn --locks KIND} takes its transactions' locks, and where SmallBank's
 * balances live: {@code lockfabric} (a lock space on the {@code --fabric}, balances in this JVM's
 * memory, or in the Redis at {@code --redis URL} when given) or {@code redis} (a Redis lock at
 * {@code --redis URL}, balances as Redis keys); see {@link RedisTxnLocks}. One per protocol run; closed after it.
 */
interface TxnLocks extends AutoCloseable {
    /** The kinds {@code --locks} accepts. */
    String LOCKFABRIC = "lockfabric";
    String REDIS = "redis";

    /** The locker the run's transactions take their lock sets through. */
    Locker locker();

    /**
     * SmallBank's store of at least {@code accounts} accounts, every balance {@code cents}.
     * Default: in this JVM's memory.
     */
    default BankStore bank(int accounts, long cents) {
        InMemoryBankStore store = new InMemoryBankStore(accounts, cents);
        return store;
    }

    /** Gives back the locker and whatever the run opened. */
    @Override
    void close();

    /**
     * What the run needs to open its locks.
     *
     * @param fabric   the {@code --fabric} address (lockfabric)
     * @param protocol the protocol (lockfabric; ignored by redis)
     * @param clients  the run's client threads (the pool has as many endpoints)
     * @param slots    the lock space's slots
     * @param space    the lock space's name (unique per run)
     * @param redis    the {@code --redis} URL, or null
     * @param options  the protocol's options, {@code NAME=VALUE} (lockfabric)
     */
    record Request(String fabric, String protocol, int clients, long slots, String space, String redis,
                   java.util.List<String> options) {
        public Request {
            options = java.util.List.copyOf(options);
        }
    }

    /**
     * The locks of kind {@code kind} for {@code request}.
     *
     * @throws BadInputException for an unknown kind, or a kind this build cannot open
     */
    static TxnLocks open(String kind, Request request) {
        return switch (kind) {
            case LOCKFABRIC -> request.redis() == null ? lockFabric(request) : RedisTxnLocks.dataInRedis(lockFabric(request), request);
            case REDIS -> RedisTxnLocks.redisLock(request);
            default -> throw new BadInputException("unknown --locks '" + kind + "': give " + LOCKFABRIC + " or " + REDIS);
        };
    }

    /** A lock space of {@code request.slots()} slots on the fabric, the client API's pool one endpoint per client. */
    static TxnLocks lockFabric(Request request) {
        LockFabric lf = LockFabric.builder(request.fabric()).poolSize(request.clients()).open();
        try {
            LockFabricLocker locker = new LockFabricLocker(lf.lockSpace(request.space(),
                    SpaceOptions.builder().protocol(request.protocol()).slots(request.slots())
                            .options(request.options()).build()));
            return new TxnLocks() {
                @Override
                public Locker locker() {
                    return locker;
                }

                @Override
                public void close() {
                    locker.close();
                    lf.close();
                }
            };
        } catch (RuntimeException e) {
            lf.close();
            throw e;
        }
    }
}
