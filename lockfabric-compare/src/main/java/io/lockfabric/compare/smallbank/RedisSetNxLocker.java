package io.lockfabric.compare.smallbank;

import io.lockfabric.LockFabricException;
import io.lockfabric.LockInterruptedException;
import io.lockfabric.txn.Locked;
import io.lockfabric.txn.Locker;
import io.lockfabric.txn.TxnLock;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Redis's own lock as the RedLock page describes it for a single instance, the way ShiftLock §4.5
 * ran it against ShiftLock (Fig. 11): a lock is the key {@code PREFIX + key}; it is taken by
 * {@code SET key token NX PX ttl} (set only if absent, with a lease) and released by a Lua script
 * that deletes the key only if it still holds this holder's token (compare-and-delete, so a holder
 * whose lease ran out never frees a lock someone else took since).
 *
 * <p>A lock set is taken in one global order: its keys sorted (Java's {@code String} order), a key
 * named twice taken once. A key held by someone else is tried again after a randomised exponential
 * backoff ({@value #DEFAULT_MIN_BACKOFF_NS} ns doubling to {@value #DEFAULT_MAX_BACKOFF_NS} ns), as
 * the recipe's "retry after a random delay"; there is no queue and no wake-up, so waiting costs
 * round trips and is unfair. The set is released by one script call for all its keys (one round trip;
 * the recipe releases each lock by itself, which would only make this lock slower).
 *
 * <p><b>Exclusive only</b>: this recipe has no shared mode; a {@link TxnLock} asked for shared is
 * taken exclusive (readers exclude each other here, as they did in the paper's runs).
 *
 * <p>The lease ({@link #DEFAULT_TTL} unless told) is not renewed. A holder that keeps a lock longer
 * than the lease loses it silently; the release then finds another token (or none) and
 * {@link #lostLeases()} counts it: that is the recipe's known weakness, reported, never hidden.
 *
 * <p>Thread-safe; any number of threads take sets at once. A {@link Locked} belongs to one thread.
 */
public final class RedisSetNxLocker implements Locker {
    /** The lease of every lock unless told otherwise. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(10);
    /** The first wait before a held key is tried again. */
    public static final long DEFAULT_MIN_BACKOFF_NS = 20_000;
    /** The longest wait between two tries of a held key. */
    public static final long DEFAULT_MAX_BACKOFF_NS = 1_000_000;
    /** The key prefix of the locks unless told otherwise. */
    public static final String DEFAULT_PREFIX = "lock:";

    /** Deletes each of KEYS that still holds ARGV[1]; returns how many it deleted. */
    static final String RELEASE_SCRIPT = """
            local n = 0
            for _, k in ipairs(KEYS) do
              if redis.call('get', k) == ARGV[1] then
                n = n + redis.call('del', k)
              end
            end
            return n""";

    private final RedissonClient client;
    private final boolean ownsClient;
    private final String prefix;
    private final Duration ttl;
    private final long minBackoffNs;
    private final long maxBackoffNs;
    private final RScript script;
    private final String releaseSha;
    /** Unique to this locker among every process on the server; tokens add a counter. */
    private final String holderId;
    private final AtomicLong tokens = new AtomicLong();
    private final LongAdder retries = new LongAdder();
    private final LongAdder lostLeases = new LongAdder();

    /**
     * A locker on {@code client}'s server.
     *
     * @param client     the Redis client (Redisson) to send the commands with
     * @param ownsClient whether {@link #close()} shuts the client down
     * @param prefix     prepended to every lock's key
     * @param ttl        the lease of every lock (at least 1 ms)
     */
    public RedisSetNxLocker(RedissonClient client, boolean ownsClient, String prefix, Duration ttl) {
        this(client, ownsClient, prefix, ttl, DEFAULT_MIN_BACKOFF_NS, DEFAULT_MAX_BACKOFF_NS);
    }

    /** {@link #RedisSetNxLocker(RedissonClient, boolean, String, Duration)} with the backoff's bounds in ns. */
    public RedisSetNxLocker(RedissonClient client, boolean ownsClient, String prefix, Duration ttl, long minBackoffNs,
                            long maxBackoffNs) {
        this.client = Objects.requireNonNull(client, "client");
        this.ownsClient = ownsClient;
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        if (ttl.toMillis() < 1) {
            throw new IllegalArgumentException("ttl must be at least 1 ms, got " + ttl);
        }
        if (minBackoffNs < 1 || maxBackoffNs < minBackoffNs) {
            throw new IllegalArgumentException("backoff must be 1 <= min <= max ns, got " + minBackoffNs + ".." + maxBackoffNs);
        }
        this.ttl = ttl;
        this.minBackoffNs = minBackoffNs;
        this.maxBackoffNs = maxBackoffNs;
        this.script = client.getScript(StringCodec.INSTANCE);
        this.releaseSha = script.scriptLoad(RELEASE_SCRIPT);
        this.holderId = ProcessHandle.current().pid() + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    @Override
    public String name() {
        return "redis-setnx";
    }

    /** The keys a set locks, in the order they are taken: distinct, sorted, prefixed. */
    List<String> order(List<TxnLock> locks) {
        return locks.stream().map(TxnLock::key).distinct().sorted().map(k -> prefix + k).toList();
    }

    @Override
    public Locked lockAll(List<TxnLock> locks) {
        return take(locks, Long.MAX_VALUE).orElseThrow(() -> new LockFabricException("unreachable: no deadline"));
    }

    @Override
    public Optional<Locked> tryLockAll(List<TxnLock> locks, Duration wait) {
        long waitNs = wait.isNegative() ? 0 : wait.toNanos();
        long now = System.nanoTime();
        return take(locks, waitNs >= Long.MAX_VALUE - now ? Long.MAX_VALUE : now + waitNs);
    }

    private Optional<Locked> take(List<TxnLock> locks, long deadlineNs) {
        List<String> keys = order(locks);
        String token = holderId + ":" + tokens.incrementAndGet();
        List<String> taken = new ArrayList<>(keys.size());
        boolean done = false;
        try {
            for (String key : keys) {
                if (!takeOne(key, token, deadlineNs)) {
                    return Optional.empty();
                }
                taken.add(key);
            }
            done = true;
            return Optional.of(new Held(taken, token));
        } finally {
            if (!done && !taken.isEmpty()) {
                release(taken, token);
            }
        }
    }

    private boolean takeOne(String key, String token, long deadlineNs) {
        var bucket = client.<String>getBucket(key, StringCodec.INSTANCE);
        long backoff = minBackoffNs;
        while (!bucket.setIfAbsent(token, ttl)) {
            retries.increment();
            long now = System.nanoTime();
            if (deadlineNs != Long.MAX_VALUE && now - deadlineNs >= 0) {
                return false;
            }
            long pause = ThreadLocalRandom.current().nextLong(backoff / 2, backoff + 1);
            if (deadlineNs != Long.MAX_VALUE) {
                pause = Math.min(pause, Math.max(0, deadlineNs - now));
            }
            LockSupport.parkNanos(pause);
            if (Thread.currentThread().isInterrupted()) {
                throw new LockInterruptedException("the Redis lock " + key);
            }
            backoff = Math.min(maxBackoffNs, backoff * 2);
        }
        return true;
    }

    private void release(List<String> keys, String token) {
        Long freed = script.evalSha(RScript.Mode.READ_WRITE, releaseSha, RScript.ReturnType.INTEGER,
                new ArrayList<>(keys), token);
        long lost = keys.size() - (freed == null ? 0 : freed);
        if (lost > 0) {
            lostLeases.add(lost);
        }
    }

    /** How many times a held key was tried again, over this locker's life. */
    public long retries() {
        return retries.sum();
    }

    /**
     * Locks whose lease ran out while held: the release found another holder's token or no key.
     * Each is a window in which two holders may both have believed they held the lock.
     */
    public long lostLeases() {
        return lostLeases.sum();
    }

    @Override
    public void close() {
        if (ownsClient) {
            client.shutdown();
        }
    }

    @Override
    public String toString() {
        return name() + " (SET NX PX " + ttl.toMillis() + " ms, Lua compare-and-delete)";
    }

    /** A set held: released once. */
    private final class Held implements Locked {
        private final List<String> keys;
        private final String token;
        private boolean closed;

        Held(List<String> keys, String token) {
            this.keys = List.copyOf(keys);
            this.token = token;
        }

        @Override
        public int count() {
            return keys.size();
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (!keys.isEmpty()) {
                release(keys, token);
            }
        }
    }
}
