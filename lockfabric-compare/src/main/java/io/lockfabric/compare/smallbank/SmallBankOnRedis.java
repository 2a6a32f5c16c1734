package io.lockfabric.compare.smallbank;

import io.lockfabric.compare.PeerUnavailableException;
import io.lockfabric.compare.Servers;
import io.lockfabric.txn.BankLedger;
import io.lockfabric.txn.SmallBank;
import org.HdrHistogram.Histogram;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.KeysScanOptions;
import org.redisson.client.codec.StringCodec;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.zip.DataFormatException;

/**
 * SmallBank with its data in a real Redis, on real processes (ShiftLock §4.5, Fig. 11): the
 * balances are Redis keys ({@link RedisBank}), loaded once; each run starts {@code processes} client
 * JVMs ({@link SmallBankClientMain}) that run SmallBank's transactions under two-phase locking, with
 * the locks either from LockFabric on a tcp memory node ({@code lockfabric serve} in a JVM of its own)
 * or from Redis itself ({@link RedisSetNxLocker}, {@link RedissonLocker}); the parent merges their
 * latency histograms and checks conservation.
 *
 * <p><b>The check</b>, after every run: the bank's total (every balance, read back from Redis) must be
 * the total before the run plus the ledger, the sum over every transaction every process committed of
 * what its body put in or took out (deposits, savings, checks written; a transfer or an amalgamation
 * moves money and adds nothing). And per balance: each client process writes what its bodies changed in
 * each balance ({@link BankLedger}, from what they read under their locks) to a file, the parent adds
 * them up, and every balance read back from Redis must be its value before the run (read back before
 * it) plus its changes. A transfer lost to a race (two holders of one balance, the second write over
 * the first) or applied twice fails the check even when the total comes out right, with the number of
 * balances that differ and the first few. No Redis lock key of the run is left afterwards, and a Redis lock whose
 * lease ran out while held ({@link RedisSetNxLocker#lostLeases()}) is reported.
 *
 * <p>Servers: {@code redis-server} from the PATH and the memory node are started here (loopback,
 * free ports) unless addresses are given, and stopped by {@link #close()}. Not thread-safe.
 */
public final class SmallBankOnRedis implements AutoCloseable {
    /** The bank's keys' prefix in Redis. */
    public static final String PREFIX = "smallbank:";
    /** Every balance at the start, in cents. */
    public static final long INITIAL_CENTS = 10_000;
    /** The lease of a Redis SET NX PX lock: far longer than a transaction, so leases run out only in a stall. */
    public static final long SETNX_TTL_MS = 10_000;
    /**
     * The lock kinds: LockFabric on a tcp memory node, Redis's SET NX PX recipe, Redisson's RLock, and
     * {@code none}, the check's control (no locks at all: bodies race and the check must fail).
     */
    public static final List<String> LOCK_KINDS = List.of("lockfabric", "redis-setnx", "redis-rlock", "none");

    /**
     * What to run.
     *
     * @param redis      {@code redis://HOST:PORT} of a running Redis (its {@value #PREFIX} keys are overwritten),
     *                   or null to start one here
     * @param fabric     {@code tcp://HOST:PORT} of a running memory node, or null to start one here when needed
     * @param bank       the SmallBank configuration (accounts, skew, mix)
     * @param processes  client JVMs per run
     * @param threads    client threads per process
     * @param warmupNs   each run's unmeasured start
     * @param durationNs each run's measured phase
     * @param seed       the first client's seed (each thread of each process its own)
     */
    public record Settings(String redis, String fabric, SmallBank.Config bank, int processes, int threads, long warmupNs,
                           long durationNs, long seed) {
        /** Checks the values. */
        public Settings {
            Objects.requireNonNull(bank, "bank");
            if (processes < 1 || threads < 1) {
                throw new IllegalArgumentException("--processes and --threads must be at least 1");
            }
            if (warmupNs < 0 || durationNs <= 0) {
                throw new IllegalArgumentException("the duration must be positive and the warm-up at least 0");
            }
            if (redis != null) {
                RedisBank.checkAddress(redis);
            }
        }
    }

    /**
     * One run's locks.
     *
     * @param kind     one of {@link #LOCK_KINDS}
     * @param protocol LockFabric's protocol (lockfabric only; null otherwise)
     */
    public record Locks(String kind, String protocol) {
        /** Checks the values. */
        public Locks {
            if (!LOCK_KINDS.contains(kind)) {
                throw new IllegalArgumentException("--locks: unknown '" + kind + "' (known: lockfabric, redis; or "
                        + String.join(", ", LOCK_KINDS) + ")");
            }
            if (kind.equals("lockfabric") == (protocol == null)) {
                throw new IllegalArgumentException("a protocol goes with lockfabric locks, and only with them");
            }
        }

        /** {@code lockfabric/shiftlock}, {@code redis-setnx}. */
        public String label() {
            return protocol == null ? kind : kind + "/" + protocol;
        }
    }

    /**
     * One run's measurements and check.
     *
     * @param locks         the locks, as {@link Locks#label()}
     * @param system        where they ran, for the report
     * @param processes     client processes
     * @param threads       client threads in all
     * @param committed     transactions committed in the measured phase, all processes
     * @param goodputPerSec committed per second
     * @param p50Ns         latency median (lock set, body, release)
     * @param p99Ns         latency 99th percentile
     * @param p999Ns        latency 99.9th percentile
     * @param lockWaitShare the share of the latency spent taking the lock set
     * @param initialTotal  the bank's total before the run
     * @param ledger        what the committed bodies put in minus what they took out, every process, whole run
     * @param finalTotal    the bank's total after the run, read from Redis
     * @param leftLocks     Redis lock keys of the run still there after it (0 expected)
     * @param lostLeases    Redis SET NX PX locks whose lease ran out while held
     * @param retries       SET NX tries refused because the key was held (the recipe's polling)
     * @param balances      balances checked one by one (0: the per-balance check did not run)
     * @param differing     balances that are not their value before the run plus their recorded changes
     * @param mismatches    the first few of them ({@link BankLedger#FIRST})
     */
    public record Result(String locks, String system, int processes, int threads, long committed, double goodputPerSec,
                         long p50Ns, long p99Ns, long p999Ns, double lockWaitShare, long initialTotal, long ledger,
                         long finalTotal, long leftLocks, long lostLeases, long retries, long balances, long differing,
                         List<BankLedger.Mismatch> mismatches) {
        /** Copies the list. */
        public Result {
            mismatches = List.copyOf(mismatches);
        }

        /** A result without the per-balance check. */
        public Result(String locks, String system, int processes, int threads, long committed, double goodputPerSec,
                      long p50Ns, long p99Ns, long p999Ns, double lockWaitShare, long initialTotal, long ledger,
                      long finalTotal, long leftLocks, long lostLeases, long retries) {
            this(locks, system, processes, threads, committed, goodputPerSec, p50Ns, p99Ns, p999Ns, lockWaitShare, initialTotal,
                    ledger, finalTotal, leftLocks, lostLeases, retries, 0, 0, List.of());
        }

        /** Whether the final total is the initial one plus the ledger. */
        public boolean totalConserved() {
            return finalTotal == initialTotal + ledger;
        }

        /** Whether every balance is its value before the run plus its recorded changes. */
        public boolean balancesConserved() {
            return differing == 0;
        }

        /** Whether money was conserved: the total and every balance as the ledgers say. */
        public boolean conserved() {
            return totalConserved() && balancesConserved();
        }

        /** Whether every check passed: conserved, no lock left, no lease lost. */
        public boolean ok() {
            return conserved() && leftLocks == 0 && lostLeases == 0;
        }

        /** {@code conserved} or what went wrong. */
        public String check() {
            List<String> wrong = new ArrayList<>();
            if (!totalConserved()) {
                wrong.add(String.format(Locale.ROOT, "NOT CONSERVED: total %d, expected %d + ledger %d = %d (off by %d cents)",
                        finalTotal, initialTotal, ledger, initialTotal + ledger, finalTotal - initialTotal - ledger));
            }
            if (!balancesConserved()) {
                wrong.add(String.format(Locale.ROOT, "NOT CONSERVED per balance: %d of %d balances differ from their value "
                        + "before the run plus their recorded changes, first: %s", differing, balances, mismatches));
            }
            if (leftLocks > 0) {
                wrong.add(leftLocks + " Redis lock key(s) left after the run");
            }
            if (lostLeases > 0) {
                wrong.add(lostLeases + " lease(s) ran out while held");
            }
            return wrong.isEmpty() ? "conserved" : String.join("; ", wrong);
        }
    }

    private final Settings settings;
    private final PrintStream progress;
    private final List<Servers.Running> servers = new ArrayList<>();
    private String redisAddress;
    private String redisVersion;
    private RedissonClient client;
    private RedisBank bank;
    private final String runId = Long.toString(ProcessHandle.current().pid(), 36) + "-"
            + Long.toString(System.currentTimeMillis(), 36);
    private String fabric;
    private long total;
    private BankLedger.Balances balances;
    private int runs;

    /**
     * Starts what is not given (redis-server; the memory node later, when a LockFabric run needs it)
     * and loads the bank: every balance {@link #INITIAL_CENTS}.
     *
     * @throws PeerUnavailableException if redis-server is missing or does not start
     */
    public SmallBankOnRedis(Settings settings, PrintStream progress) {
        this.settings = settings;
        this.progress = progress;
        this.fabric = settings.fabric();
        // Redisson logs through SLF4J (slf4j-simple here): its warnings only, as the comparison does
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        try {
            if (settings.redis() == null) {
                Servers.Running redis = Servers.redis();
                servers.add(redis);
                redisAddress = redis.address();
                redisVersion = redis.version();
                say("started %s at %s (no persistence)", redisVersion, redisAddress);
            } else {
                redisAddress = settings.redis();
                redisVersion = "Redis at " + redisAddress;
            }
            client = RedisBank.connect(redisAddress, 4);
            bank = new RedisBank(client, false, PREFIX, settings.bank().accounts());
            long t0 = System.nanoTime();
            bank.fill(INITIAL_CENTS);
            balances = bank.balances();
            total = balances.total();
            say("loaded %d accounts (%d balances of %d cents) into Redis in %.1f s", settings.bank().accounts(),
                    2L * settings.bank().accounts(), INITIAL_CENTS, (System.nanoTime() - t0) / 1e9);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Where the data lives: {@code redis-server 7.0.15}. */
    public String redisVersion() {
        return redisVersion;
    }

    /** Runs SmallBank once with {@code locks}; the result, checked. */
    public Result run(Locks locks) throws InterruptedException {
        String run = PREFIX + "run:" + runId + ":" + (runs++) + ":";
        long slots = slotsFor(2L * settings.bank().accounts());
        String address = null;
        if (locks.kind().equals("lockfabric")) {
            address = memoryNode();
        }
        String weights = Arrays.stream(settings.bank().weights()).mapToObj(Integer::toString).reduce((a, b) -> a + "," + b)
                .orElseThrow();
        List<Servers.Running> clients = new ArrayList<>();
        long initial = total;
        BankLedger.Balances before = balances;
        List<Path> ledgerFiles = new ArrayList<>();
        try {
            for (int p = 0; p < settings.processes(); p++) {
                Path ledgerFile;
                try {
                    ledgerFile = Files.createTempFile("smallbank-ledger-", ".bin");
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot create a client's ledger file", e);
                }
                ledgerFiles.add(ledgerFile);
                List<String> args = new ArrayList<>(List.of("redis=" + redisAddress, "locks=" + locks.kind(),
                        "accounts=" + settings.bank().accounts(), "theta=" + settings.bank().theta(), "weights=" + weights,
                        "threads=" + settings.threads(), "warmupNs=" + settings.warmupNs(),
                        "durationNs=" + settings.durationNs(), "seed=" + (settings.seed() + 1000L * p), "prefix=" + PREFIX,
                        "run=" + run, "ttlMs=" + SETNX_TTL_MS, "ledgerFile=" + ledgerFile));
                if (address != null) {
                    args.addAll(List.of("fabric=" + address, "protocol=" + locks.protocol(),
                            "space=smallbank-" + runId + "-" + runs, "slots=" + slots));
                }
                clients.add(Servers.java("smallbank client " + (p + 1), List.of("-Xmx512m", "-XX:+UseParallelGC",
                                "--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED"),
                        SmallBankClientMain.class.getName(), args, SmallBankClientMain.RESULT));
            }
            say("%s: %d client processes x %d threads starting", locks.label(), settings.processes(), settings.threads());
            var ready = client.getAtomicLong(run + "ready");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (ready.get() < settings.processes()) {
                for (Servers.Running c : clients) {
                    if (!c.isAlive()) {
                        throw new IllegalStateException(c + " ended before it was ready; its output:\n" + c.output());
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the client processes were not ready in 120 s");
                }
                Thread.sleep(20);
            }
            client.<String>getBucket(run + "go", StringCodec.INSTANCE).set("1");
            say("%s: go (%.1f s warm-up, %.1f s measured)", locks.label(), settings.warmupNs() / 1e9, settings.durationNs() / 1e9);
            long wait = TimeUnit.NANOSECONDS.toSeconds(settings.warmupNs() + settings.durationNs()) + 60;
            Histogram latency = new Histogram(3);
            long committed = 0;
            long ledger = 0;
            double waitWeighted = 0;
            long lostLeases = 0;
            long retries = 0;
            for (Servers.Running c : clients) {
                Map<String, String> r = parse(c.awaitMark(wait));
                if (r.containsKey("failed")) {
                    throw new IllegalStateException(c + " failed: " + r.get("failed") + "\n" + c.output());
                }
                long n = Long.parseLong(r.get("committed"));
                committed += n;
                ledger += Long.parseLong(r.get("ledger"));
                waitWeighted += n * Double.parseDouble(r.get("waitShare"));
                lostLeases += Long.parseLong(r.get("lostLeases"));
                retries += Long.parseLong(r.get("retries"));
                latency.add(decode(r.get("hist")));
            }
            for (Servers.Running c : clients) {
                c.awaitExit(30);
            }
            long left = 0;
            for (String k : client.getKeys().getKeys(KeysScanOptions.defaults().pattern(run + "*lock:*"))) {
                left++;
                say("left behind: %s", k);
            }
            client.getKeys().delete(run + "ready", run + "go");
            BankLedger perBalance = new BankLedger(settings.bank().accounts());
            for (Path f : ledgerFiles) {
                try (var in = Files.newInputStream(f)) {
                    perBalance.add(BankLedger.readFrom(in));
                } catch (IOException e) {
                    throw new UncheckedIOException("a client's ledger " + f + " does not read: " + e.getMessage(), e);
                }
            }
            balances = bank.balances();
            long after = balances.total();
            total = after;
            BankLedger.Check check = perBalance.check(before, balances);
            boolean any = committed > 0;
            String system = locks.kind().equals("lockfabric") ? "LockFabric " + locks.protocol() + ", memory node " + address
                    : (locks.kind().equals("redis-setnx") ? "SET NX PX + Lua release" : "Redisson RLock") + " on " + redisVersion;
            Result result = new Result(locks.label(), system, settings.processes(), settings.processes() * settings.threads(),
                    committed, committed * 1e9 / settings.durationNs(), any ? latency.getValueAtPercentile(50) : 0,
                    any ? latency.getValueAtPercentile(99) : 0, any ? latency.getValueAtPercentile(99.9) : 0,
                    any ? waitWeighted / committed : 0, initial, ledger, after, left, lostLeases, retries, check.balances(),
                    check.differing(), check.first());
            say("%s: %.0f txn/s, p50 %.0f us, p99 %.0f us; %s", result.locks(), result.goodputPerSec(), result.p50Ns() / 1e3,
                    result.p99Ns() / 1e3, result.check());
            return result;
        } finally {
            clients.forEach(Servers.Running::close);
            for (Path f : ledgerFiles) {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException ignored) {
                    // a temporary file left behind
                }
            }
        }
    }

    /** Slots for {@code locks} locks: twice as many, a power of two, so few locks share a slot. */
    static long slotsFor(long locks) {
        return Long.highestOneBit(Math.max(4096, 2 * locks) - 1) << 1;
    }

    private String memoryNode() {
        if (fabric == null) {
            Servers.Running node = Servers.memoryNode(1L << 30);
            servers.add(node);
            fabric = node.address();
            say("started a memory node (lockfabric serve) in its own JVM at %s", fabric);
        }
        return fabric;
    }

    private static Map<String, String> parse(String line) {
        Map<String, String> m = new HashMap<>();
        if (line.startsWith("failed=")) {
            m.put("failed", line.substring("failed=".length()));
            return m;
        }
        for (String kv : line.split(" ")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                m.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        return m;
    }

    private static Histogram decode(String base64) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 0);
        } catch (DataFormatException e) {
            throw new IllegalStateException("a client's histogram does not decode: " + e.getMessage(), e);
        }
    }

    private void say(String format, Object... args) {
        if (progress != null) {
            progress.printf(Locale.ROOT, "smallbank: " + format + "%n", args);
            progress.flush();
        }
    }

    /** Stops every server it started. */
    @Override
    public void close() {
        if (client != null) {
            client.shutdown();
        }
        for (int i = servers.size() - 1; i >= 0; i--) {
            servers.get(i).close();
        }
        servers.clear();
    }
}
