package io.lockfabric.compare.smallbank;

import org.redisson.Redisson;
import org.redisson.api.RBuckets;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.net.URI;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * SmallBank's data in a real Redis: each account's checking and savings balances are two plain
 * string keys holding whole cents in decimal ({@code PREFIX c:42}, {@code PREFIX s:42}), read with
 * one {@code MGET} and written with one {@code MSET} per transaction, so {@code redis-cli} can read
 * them and no Redis-side logic (no script, no {@code INCRBY}) keeps them right: only the locks do.
 * A transaction that ran without its locks loses updates, and the {@link #sum()} shows it.
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
public final class RedisBank implements AutoCloseable {
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
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--redis: not an address: '" + url + "' (want redis://HOST:PORT)");
        }
        if (!"redis".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
            throw new IllegalArgumentException("--redis: want redis://HOST:PORT, got '" + url + "'");
        }
        Config config = new Config();
        config.useSingleServer().setAddress(url)
                .setConnectionPoolSize(Math.max(8, connections))
                .setConnectionMinimumIdleSize(Math.min(Math.max(8, connections), Math.max(1, connections)));
        return Redisson.create(config);
    }

    /** The client the bank (and a Redis locker beside it) talks through. */
    public RedissonClient client() {
        return client;
    }

    /** How many accounts. */
    public int accounts() {
        return accounts;
    }

    /** The checking balance's key of {@code account}. */
    public String checkingKey(int account) {
        return prefix + "c:" + account;
    }

    /** The savings balance's key of {@code account}. */
    public String savingsKey(int account) {
        return prefix + "s:" + account;
    }

    /**
     * Sets every account's balances ({@code MSET} in chunks), overwriting what was there; returns the
     * total, in cents.
     */
    public long load(long checkingCents, long savingsCents) {
        Map<String, String> chunk = new HashMap<>();
        for (int a = 0; a < accounts; a++) {
            chunk.put(checkingKey(a), Long.toString(checkingCents));
            chunk.put(savingsKey(a), Long.toString(savingsCents));
            if (chunk.size() >= CHUNK) {
                buckets.set(chunk);
                chunk.clear();
            }
        }
        if (!chunk.isEmpty()) {
            buckets.set(chunk);
        }
        return (long) accounts * (checkingCents + savingsCents);
    }

    /**
     * The sum of every balance ({@code MGET} in chunks).
     *
     * @throws IllegalStateException if a balance is missing or not a number
     */
    public long sum() {
        long total = 0;
        String[] keys = new String[Math.min(CHUNK, 2 * accounts)];
        int n = 0;
        for (int a = 0; a < accounts; a++) {
            keys[n++] = checkingKey(a);
            keys[n++] = savingsKey(a);
            if (n + 2 > keys.length || a == accounts - 1) {
                total += sumOf(java.util.Arrays.copyOf(keys, n));
                n = 0;
            }
        }
        return total;
    }

    private long sumOf(String[] keys) {
        Map<String, String> got = buckets.get(keys);
        long s = 0;
        for (String k : keys) {
            s += parse(k, got.get(k));
        }
        return s;
    }

    /** The balances of {@code keys} in their order, one {@code MGET}. */
    public long[] read(List<String> keys) {
        Map<String, String> got = buckets.get(keys.toArray(String[]::new));
        long[] v = new long[keys.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = parse(keys.get(i), got.get(keys.get(i)));
        }
        return v;
    }

    /** Writes {@code balances} (key to cents), one {@code MSET}. */
    public void write(Map<String, Long> balances) {
        Map<String, String> m = new LinkedHashMap<>();
        balances.forEach((k, v) -> m.put(k, Long.toString(v)));
        buckets.set(m);
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
