package io.lockfabric.compare.smallbank;

import io.lockfabric.LockFabric;
import io.lockfabric.SpaceOptions;
import io.lockfabric.compare.Servers;
import io.lockfabric.txn.BankLedger;
import io.lockfabric.txn.LockFabricLocker;
import io.lockfabric.txn.Locker;
import io.lockfabric.txn.SmallBank;
import io.lockfabric.txn.Transaction;
import io.lockfabric.txn.TxnEngine;
import io.lockfabric.txn.TxnMetrics;
import io.lockfabric.txn.TxnResult;
import io.lockfabric.txn.Work;
import org.HdrHistogram.Histogram;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * One SmallBank client process of {@link SmallBankOnRedis}: its threads run SmallBank's transactions
 * through the {@link TxnEngine} (two-phase locking) with the balances in Redis ({@link RedisBank}) and
 * the locks from LockFabric on a tcp memory node or from Redis, then it prints one line
 * {@code RESULT k=v ...} (its commits, the ledger of money its bodies put in or took out, its latency
 * histogram, compressed and in Base64, for the parent to merge) and exits. Before that it writes what
 * its bodies changed in each balance ({@link BankLedger#writeTo}) to the file {@code ledgerFile}, if
 * given, for the parent's per-balance check.
 *
 * <p>Every process starts its clock together: once its locker and bank are ready it adds one to the
 * run's {@code ready} counter in Redis and waits for the run's {@code go} key, which the parent sets
 * when every process is ready. The measured phase is {@code warmup} after {@code go}, for
 * {@code duration}; the loop is {@code TxnRunner}'s (each thread its seeded generator, transactions back
 * to back, those inside the phase measured) with a histogram the parent can merge across processes.
 *
 * <p>Arguments, {@code key=value}: {@code redis}, {@code locks} ({@code lockfabric}, {@code redis-setnx},
 * {@code redis-rlock}, {@code none}), {@code fabric}, {@code protocol}, {@code space}, {@code slots} (lockfabric only),
 * {@code accounts}, {@code theta}, {@code weights} (six, comma-separated), {@code threads},
 * {@code warmupNs}, {@code durationNs}, {@code seed}, {@code prefix} (the bank's keys), {@code run} (this run's
 * keys: its barrier and its Redis locks), {@code ttlMs} (redis-setnx), {@code ledgerFile} (where the
 * per-balance ledger goes).
 * It ends by itself when its parent's pipe to it closes.
 */
public final class SmallBankClientMain {
    /** The start of the line with the result. */
    public static final String RESULT = "RESULT ";

    private SmallBankClientMain() {
    }

    /** Runs one client process; see the class's javadoc for the arguments. */
    public static void main(String[] args) {
        Servers.exitWhenParentGone();
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        try {
            System.out.println(RESULT + run(a));
            System.out.flush();
            System.exit(0);
        } catch (Throwable t) {
            System.out.println(RESULT + "failed=" + (t + "").replace('\n', ' '));
            t.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
    }

    private static String run(Map<String, String> a) throws InterruptedException {
        int threads = Integer.parseInt(a.get("threads"));
        String prefix = a.get("prefix");
        String[] w = a.get("weights").split(",");
        int[] weights = new int[w.length];
        for (int i = 0; i < w.length; i++) {
            weights[i] = Integer.parseInt(w[i]);
        }
        SmallBank.Config config = new SmallBank.Config(Integer.parseInt(a.get("accounts")), Double.parseDouble(a.get("theta")),
                weights);
        RedissonClient redis = RedisBank.connect(a.get("redis"), threads + 4);
        LockFabric lf = null;
        Locker locker;
        RedisSetNxLocker setNx = null;
        switch (a.get("locks")) {
            case "lockfabric" -> {
                lf = LockFabric.builder(a.get("fabric")).poolSize(threads).open();
                locker = new LockFabricLocker(lf.lockSpace(a.get("space"), SpaceOptions.builder().protocol(a.get("protocol"))
                        .slots(Long.parseLong(a.get("slots"))).build()));
            }
            case "redis-setnx" -> locker = setNx = new RedisSetNxLocker(redis, false, a.get("run") + "lock:",
                    Duration.ofMillis(Long.parseLong(a.get("ttlMs"))));
            case "redis-rlock" -> locker = new RedissonLocker(redis, false, a.get("run") + "rlock:");
            case "none" -> locker = new NoLocks();
            default -> throw new IllegalArgumentException("unknown locks " + a.get("locks"));
        }
        try {
            RedisBank bank = new RedisBank(redis, false, prefix, config.accounts());
            BankLedger ledger = new BankLedger(config.accounts());
            SmallBank workload = new SmallBank(config, bank, ledger);
            redis.getAtomicLong(a.get("run") + "ready").incrementAndGet();
            var go = redis.<String>getBucket(a.get("run") + "go", StringCodec.INSTANCE);
            long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!go.isExists()) {
                if (System.nanoTime() > waitUntil) {
                    throw new IllegalStateException("no go from the parent in 120 s");
                }
                Thread.sleep(2);
            }
            Result r = loop(workload, locker, threads, Long.parseLong(a.get("warmupNs")), Long.parseLong(a.get("durationNs")),
                    Long.parseLong(a.get("seed")));
            if (a.containsKey("ledgerFile")) {
                try (var out = java.nio.file.Files.newOutputStream(java.nio.file.Path.of(a.get("ledgerFile")))) {
                    ledger.writeTo(out);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException("cannot write the ledger to " + a.get("ledgerFile"), e);
                }
            }
            TxnResult.TypeResult all = r.metrics.result(workload.name(), locker.name(), threads, r.measuredNs).all();
            ByteBuffer buf = ByteBuffer.allocate(r.latency.getNeededByteBufferCapacity());
            int n = r.latency.encodeIntoCompressedByteBuffer(buf);
            return "committed=" + all.committed() + " ledger=" + r.metrics.ledger() + " measuredNs=" + r.measuredNs
                    + " waitShare=" + all.lockWaitShare() + " locksPerTxn=" + all.locksPerTxn()
                    + " lostLeases=" + (setNx == null ? 0 : setNx.lostLeases()) + " retries=" + (setNx == null ? 0 : setNx.retries())
                    + " locker=" + locker.name() + " hist=" + Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buf.array(), n));
        } finally {
            locker.close();
            if (lf != null) {
                lf.close();
            }
            redis.shutdown();
        }
    }

    /** The control: a locker that takes nothing, so concurrent bodies race on the balances. */
    private static final class NoLocks implements Locker {
        @Override
        public String name() {
            return "none";
        }

        @Override
        public io.lockfabric.txn.Locked lockAll(List<io.lockfabric.txn.TxnLock> locks) {
            return new io.lockfabric.txn.Locked() {
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
        public java.util.Optional<io.lockfabric.txn.Locked> tryLockAll(List<io.lockfabric.txn.TxnLock> locks, Duration wait) {
            return java.util.Optional.of(lockAll(locks));
        }

        @Override
        public void close() {
        }
    }

    private record Result(TxnMetrics metrics, Histogram latency, long measuredNs) {
    }

    private static Result loop(SmallBank workload, Locker locker, int threads, long warmupNs, long durationNs, long seed)
            throws InterruptedException {
        LongSupplier clock = System::nanoTime;
        TxnEngine engine = new TxnEngine(locker, Work.spinOn(clock), clock);
        long start = clock.getAsLong();
        long measureFrom = start + warmupNs;
        long end = measureFrom + durationNs;
        List<TxnMetrics> metrics = new ArrayList<>();
        List<Histogram> latencies = new ArrayList<>();
        List<Thread> running = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int c = 0; c < threads; c++) {
            TxnMetrics m = new TxnMetrics(workload.types());
            Histogram h = new Histogram(3);
            metrics.add(m);
            latencies.add(h);
            SplittableRandom random = new SplittableRandom(seed + c);
            running.add(Thread.ofPlatform().name("smallbank-client-" + c).start(() -> {
                try {
                    while (failure.get() == null) {
                        long now = clock.getAsLong();
                        if (now >= end) {
                            break;
                        }
                        Transaction tx = workload.next(random);
                        boolean measured = now >= measureFrom && clock.getAsLong() <= end;
                        engine.execute(tx, m, measured);
                        if (measured) {
                            h.recordValue(clock.getAsLong() - now);
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        for (Thread t : running) {
            t.join();
        }
        if (failure.get() != null) {
            Throwable t = failure.get();
            throw t instanceof RuntimeException re ? re : new IllegalStateException("a client failed: " + t, t);
        }
        TxnMetrics total = new TxnMetrics(workload.types());
        metrics.forEach(total::add);
        Histogram all = new Histogram(3);
        latencies.forEach(all::add);
        return new Result(total, all, durationNs);
    }
}
