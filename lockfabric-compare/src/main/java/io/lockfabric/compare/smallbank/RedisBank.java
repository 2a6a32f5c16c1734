package io.lockfabric.compare.smallbank;

import io.lockfabric.txn.BankLedger;
import io.lockfabric.txn.BankStore;
import org.redisson.Redisson;
import org.redisson.api.RBuckets;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * SmallBank's data in a real Redis ({@link BankStore}): each account's checking and savings balances
 * are two plain string keys holding whole cents in decimal ({@code PREFIX c:42}, {@code PREFIX s:42}),
 * each read with a {@code GET} and written with a {@code SET} as SmallBank's bodies ask (a
 * read-modify-write is two round trips), so {@code redis-cli} can read them and no Redis-side logic
 * (no script, no {@code INCRBY}, no {@code MULTI}) keeps them right: only the locks do. A transaction
 * that ran without its locks loses updates, and {@link #total()} against the run's ledger, or
 * {@link #balances()} against the per-balance ledger ({@link BankLedger}), shows it.
 * {@link #fill} and {@link #total} go by {@code MSET}/{@code MGET} in chunks.
 *
 * <p>The client is Redisson: it is already this module's Redis client (the {@code compare} peer),
 * maintained, thread-safe with a pool of connections under one object that every worker thread
 * shares, and it has the multi-key {@code MGET}/{@code MSET} ({@link RBuckets}) and the
 * {@code SET NX PX} and {@code EVALSHA} the Redis lock needs, so the data and the lock go through one
 * client and one connection pool. Jedis (one blocking connection per thread) would be leaner per call,
 * but a second Redis client in the module buys nothing the comparison needs.
 *
 * <p>Thread-safe.
 */
public final class RedisBank implements BankStore, AutoCloseable {
    /** Keys per {@code MSET}/{@code MGET} when loading and summing. */
    static final int CHUNK = 5_000;

    private final RedissonClient client;
    private final boolean ownsClient;
    private final String prefix;
    private final int accounts;
    private final RBuckets buckets;

    /**
     * The bank of {@code accounts} accounts under {@code prefix} on {@code client}'s server.
     *
     * @param ownsClient whether {@link #close()} shuts the client down
     */
    public RedisBank(RedissonClient client, boolean ownsClient, String prefix, int accounts) {
        if (accounts < 2) {
            throw new IllegalArgumentException("SmallBank needs at least 2 accounts, got " + accounts);
        }
        this.client = Objects.requireNonNull(client, "client");
        this.ownsClient = ownsClient;
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        this.accounts = accounts;
        this.buckets = client.getBuckets(StringCodec.INSTANCE);
    }

    /**
     * A Redisson client of {@code url} ({@code redis://HOST:PORT}) with {@code connections} pooled
     * connections (at least one per worker thread, so no thread waits for a connection).
     *
     * @throws IllegalArgumentException if the address is not {@code redis://HOST:PORT}
     */
    public static RedissonClient connect(String url, int connections) {
        checkAddress(url);
        Config config = new Config();
        config.useSingleServer().setAddress(url)
                .setConnectionPoolSize(Math.max(8, connections))
                .setConnectionMinimumIdleSize(Math.min(Math.max(8, connections), Math.max(1, connections)));
        return Redisson.create(config);
    }

    /**
     * Checks that {@code url} is {@code redis://HOST:PORT}.
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    public static void checkAddress(String url) {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--redis: not an address: '" + url + "' (want redis://HOST:PORT)");
        }
        if (!"redis".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
            throw new IllegalArgumentException("--redis: want redis://HOST:PORT, got '" + url + "'");
        }
    }

    /** The client the bank (and a Redis locker beside it) talks through. */
    public RedissonClient client() {
        return client;
    }

    @Override
    public long accounts() {
        return accounts;
    }

    /** The checking balance's key of {@code account}. */
    public String checkingKey(long account) {
        return prefix + "c:" + account;
    }

    /** The savings balance's key of {@code account}. */
    public String savingsKey(long account) {
        return prefix + "s:" + account;
    }

    @Override
    public long checking(long account) {
        return get(checkingKey(account));
    }

    @Override
    public long savings(long account) {
        return get(savingsKey(account));
    }

    @Override
    public void setChecking(long account, long cents) {
        client.<String>getBucket(checkingKey(account), StringCodec.INSTANCE).set(Long.toString(cents));
    }

    @Override
    public void setSavings(long account, long cents) {
        client.<String>getBucket(savingsKey(account), StringCodec.INSTANCE).set(Long.toString(cents));
    }

    private long get(String key) {
        return parse(key, client.<String>getBucket(key, StringCodec.INSTANCE).get());
    }

    /** Sets every balance of every account to {@code cents} ({@code MSET} in chunks), overwriting what was there. */
    @Override
    public void fill(long cents) {
        Map<String, String> chunk = new HashMap<>();
        String v = Long.toString(cents);
        for (int a = 0; a < accounts; a++) {
            chunk.put(checkingKey(a), v);
            chunk.put(savingsKey(a), v);
            if (chunk.size() >= CHUNK) {
                buckets.set(chunk);
                chunk.clear();
            }
        }
        if (!chunk.isEmpty()) {
            buckets.set(chunk);
        }
    }

    /**
     * The sum of every balance ({@code MGET} in chunks).
     *
     * @throws IllegalStateException if a balance is missing or not a number
     */
    @Override
    public long total() {
        long total = 0;
        String[] keys = new String[Math.min(CHUNK, 2 * accounts)];
        int n = 0;
        for (int a = 0; a < accounts; a++) {
            keys[n++] = checkingKey(a);
            keys[n++] = savingsKey(a);
            if (n + 2 > keys.length || a == accounts - 1) {
                Map<String, String> got = buckets.get(java.util.Arrays.copyOf(keys, n));
                for (int i = 0; i < n; i++) {
                    total += parse(keys[i], got.get(keys[i]));
                }
                n = 0;
            }
        }
        return total;
    }

    /**
     * Every balance ({@code MGET} in chunks), for the per-balance check.
     *
     * @throws IllegalStateException if a balance is missing or not a number
     */
    @Override
    public BankLedger.Balances balances() {
        long[] checking = new long[accounts];
        long[] savings = new long[accounts];
        String[] keys = new String[Math.min(CHUNK, 2 * accounts)];
        int n = 0;
        int from = 0;
        for (int a = 0; a < accounts; a++) {
            keys[n++] = checkingKey(a);
            keys[n++] = savingsKey(a);
            if (n + 2 > keys.length || a == accounts - 1) {
                Map<String, String> got = buckets.get(java.util.Arrays.copyOf(keys, n));
                for (int i = 0; i < n; i += 2) {
                    checking[from + i / 2] = parse(keys[i], got.get(keys[i]));
                    savings[from + i / 2] = parse(keys[i + 1], got.get(keys[i + 1]));
                }
                from = a + 1;
                n = 0;
            }
        }
        return new BankLedger.Balances(checking, savings);
    }

    private static long parse(String key, String value) {
        if (value == null) {
            throw new IllegalStateException("SmallBank balance " + key + " is missing in Redis (was the bank loaded?)");
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("SmallBank balance " + key + " is not a number: '" + value + "'");
        }
    }

    @Override
    public void close() {
        if (ownsClient) {
            client.shutdown();
        }
    }
}
