package io.lockfabric.cli;

import io.lockfabric.bench.Phases;
import io.lockfabric.bench.ProgressDisplay;
import io.lockfabric.bench.ProtocolOptions;
import io.lockfabric.bench.ReportFormat;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.bench.sim.SimDriver;
import io.lockfabric.bench.txn.TransactionWorkload;
import io.lockfabric.bench.txn.TxnReport;
import io.lockfabric.fabric.Durations;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;
import io.lockfabric.txn.BankLedger;
import io.lockfabric.txn.BankStore;
import io.lockfabric.txn.SmallBank;
import io.lockfabric.txn.Tatp;
import io.lockfabric.txn.TpcC;
import io.lockfabric.txn.TxnResult;
import io.lockfabric.txn.TxnRunner;
import io.lockfabric.txn.TxnWorkload;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * {@code lockfabric txn}: two-phase-locking transactions (TATP, TPC-C, SmallBank) through the client
 * API on a real fabric ({@link TxnRunner}, {@link io.lockfabric.txn.LockFabricLocker}), one run per
 * protocol, then one report in the bench's formats ({@link TxnReport}). On the simulator the
 * client API does not run: there each protocol's clients run the bench's {@code txn} workload kind
 * ({@link TransactionWorkload}) and the report is the bench's. {@code --locks} chooses where the
 * locks come from ({@link TxnLocks}).
 */
@Command(name = "txn", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Run two-phase-locking transactions (TATP, TPC-C, SmallBank) on LockFabric, one run per protocol.",
                "Each client thread draws transactions from its seeded generator and runs them back to back: take the "
                        + "whole lock set in one global order (deadlock-free), spend the simulated work (TATP 2.8us, "
                        + "TPC-C 7us), run the body (SmallBank: reads and writes of the balances), release everything.",
                "Reports per transaction type: goodput, latency p50/p99/p99.9, locks per transaction, the lock wait's "
                        + "share of the latency, the shared share of lock requests; SmallBank also checks that money "
                        + "is conserved: the bank's total is the start's plus what the run deposited and withdrew, and every "
                        + "balance is its value before the run plus the changes the run's transactions made to it (a "
                        + "transfer lost or applied twice keeps the total, not the balances).",
                "On --fabric sim the protocols' clients run the same generators in virtual time (bench's txn "
                        + "workload, with its report; SmallBank's bodies do not run there)."},
        footer = {"", "Exit status: 0 ok; 1 money not conserved (SmallBank) or the check found violations (sim); "
                + "2 bad input; 3 a run failed."})
final class TxnCommand implements Callable<Integer> {
    static final String TATP = "tatp";
    static final String TPCC = "tpcc";
    static final String SMALLBANK = "smallbank";
    static final long START_CENTS = 10_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--workload", paramLabel = "KIND", defaultValue = TATP,
            description = "tatp, tpcc or smallbank. Default: ${DEFAULT-VALUE}.")
    String workload;

    @Option(names = "--fabric", paramLabel = "ADDRESS", defaultValue = FabricChoice.LOCAL,
            description = "local, tcp://HOST:PORT (a 'lockfabric serve'), shm:/PATH, or sim (bench's txn workload in "
                    + "virtual time). Default: ${DEFAULT-VALUE}.")
    String fabric;

    @Option(names = {"--protocol", "--protocols"}, paramLabel = "NAME", split = ",", defaultValue = "shiftlock",
            description = "Protocols, comma-separated, one run each. Default: ${DEFAULT-VALUE}.")
    List<String> protocols;

    @Option(names = "--locks", paramLabel = "KIND", defaultValue = TxnLocks.LOCKFABRIC,
            description = "Where the locks come from: lockfabric (a lock space on --fabric) or redis (a Redis lock at "
                    + "--redis, SmallBank's balances in that Redis). Default: ${DEFAULT-VALUE}.")
    String locks;

    @Option(names = "--redis", paramLabel = "URL",
            description = "A Redis (redis://HOST:PORT) for SmallBank's balances: with --locks redis its lock is "
                    + "the SET NX PX + Lua release recipe (exclusive only); with --locks lockfabric the locks stay on "
                    + "--fabric (e.g. a 'lockfabric serve' at tcp://HOST:PORT) and the data goes to Redis. Its "
                    + "smallbank:* keys are overwritten.")
    String redis;

    @Option(names = {"--clients", "--threads"}, paramLabel = "N", defaultValue = "8",
            description = "Client threads (and the client API's pool endpoints). Default: ${DEFAULT-VALUE}.")
    int clients;

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class, defaultValue = "2s",
            description = "Measured phase (on sim: virtual time). Default: ${DEFAULT-VALUE}.")
    long durationNs;

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class, defaultValue = "500ms",
            description = "Unmeasured start (on sim: virtual time). Default: ${DEFAULT-VALUE}.")
    long warmupNs;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42",
            description = "Seed of the first client's generator (client i: seed + i). Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--smallbank", paramLabel = "CONFIG", defaultValue = "paper",
            description = "SmallBank's configuration: paper (ShiftLock §4.5: 1 M accounts, uniform, 15%% Balance) or "
                    + "declock (the DecLock artifact's: 100 000 accounts, Zipf 0.99). Default: ${DEFAULT-VALUE}.")
    String smallbank;

    @Option(names = "--accounts", paramLabel = "N",
            description = "SmallBank: this many accounts instead of the configuration's.")
    Integer accounts;

    @Option(names = "--warehouses", paramLabel = "N", defaultValue = "100",
            description = "TPC-C: warehouses (the paper's lock map has 100: 60 400 locks). Default: ${DEFAULT-VALUE}.")
    int warehouses;

    @Option(names = "--work", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Simulated work per transaction instead of the workload's (TATP 2.8us, TPC-C 7us, SmallBank 0).")
    Long workNs;

    @Option(names = "--slots", paramLabel = "N",
            description = "Slots of the lock space (lockfabric locks): keys hash to them. Default: twice the workload's "
                    + "locks, at least 4096.")
    Long slots;

    @Option(names = "--option", paramLabel = "NAME=VALUE",
            description = "A protocol option, repeatable (see 'lockfabric protocols'; -ns options take units). Under 2PL "
                    + "a holder keeps its locks while it waits for its others: on a loaded machine give leases no hold "
                    + "outlasts (lease-ns=1s), or a protocol that recovers from crashed holders resets a lock held "
                    + "past its lease.")
    List<String> options = new ArrayList<>();

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table, csv or json (JSON Lines: one object per run). Default: ${DEFAULT-VALUE}.")
    String format;

    @Option(names = "--output", paramLabel = "FILE", description = "Write the report to FILE instead of standard output.")
    Path output;

    @Override
    public Integer call() throws InterruptedException {
        if (clients < 1) {
            throw new BadInputException("--clients must be at least 1, got " + clients);
        }
        if (durationNs <= 0 || warmupNs < 0) {
            throw new BadInputException("--duration must be positive and --warmup not negative");
        }
        if (workNs != null && workNs < 0) {
            throw new BadInputException("--work must not be negative");
        }
        if (warehouses < 1) {
            throw new BadInputException("--warehouses must be at least 1, got " + warehouses);
        }
        ReportFormat reportFormat = ReportFormat.byName(format);
        List<LockProtocol> selected = new ArrayList<>();
        boolean redisLocks = TxnLocks.REDIS.equals(locks);
        if (!redisLocks) {
            for (String p : protocols) {
                try {
                    selected.add(LockProtocols.byName(p.trim()));
                } catch (IllegalArgumentException e) {
                    throw new BadInputException(e.getMessage());
                }
            }
            protocolOptions(selected); // every --option names an option of a selected protocol
        } else if (redis == null) {
            throw new BadInputException("--locks redis needs --redis redis://HOST:PORT");
        }
        FabricChoice choice = FabricChoice.parse(fabric, " for txn");
        if (choice.isSim()) {
            if (redisLocks || redis != null) {
                throw new BadInputException("--locks redis and --redis run on real processes, not on --fabric sim");
            }
            return simulated(selected, reportFormat);
        }
        PrintWriter err = spec.commandLine().getErr();
        List<TxnReport.Run> runs = new ArrayList<>();
        List<String> names = redisLocks ? List.of(TxnLocks.REDIS) : selected.stream().map(LockProtocol::name).toList();
        String runId = Long.toString(ProcessHandle.current().pid(), 36) + "-" + Long.toString(System.currentTimeMillis(), 36);
        for (String protocol : names) {
            TxnLocks.Request request = new TxnLocks.Request(fabric, protocol, clients, 0, "txn-" + workload + "-"
                    + protocol + "-" + runId, redis, redisLocks ? options : optionsOf(protocol));
            runs.add(runOne(protocol, request));
        }
        write(TxnReport.render(reportFormat, runs));
        int status = Main.EXIT_OK;
        for (TxnReport.Run r : runs) {
            if (!r.conservation().ok()) {
                err.println(r.result().locker() + ": money not conserved: " + r.conservation().summary());
                status = Main.EXIT_VIOLATIONS;
            }
        }
        err.flush();
        return status;
    }

    /** One protocol's run on the client API (or the Redis lock). */
    private TxnReport.Run runOne(String protocol, TxnLocks.Request request) throws InterruptedException {
        long workloadLocks = locksOf(workload);
        long spaceSlots = slots != null ? slots : Math.max(4096, 2 * workloadLocks);
        if (spaceSlots < 1) {
            throw new BadInputException("--slots must be at least 1");
        }
        TxnLocks.Request sized = new TxnLocks.Request(request.fabric(), request.protocol(), request.clients(),
                spaceSlots, request.space(), request.redis(), request.options());
        try (TxnLocks lockSource = TxnLocks.open(locks, sized)) {
            BankStore bank = null;
            TxnWorkload generator;
            SmallBank smallBank = null;
            if (SMALLBANK.equals(workload)) {
                SmallBank.Config config = bankConfig();
                bank = lockSource.bank(config.accounts(), START_CENTS);
                generator = smallBank = new SmallBank(config, bank);
            } else {
                generator = generator();
            }
            BankLedger.Balances balancesBefore = bank == null ? null : bank.balances();
            long before = bank == null ? 0 : balancesBefore.total();
            TxnWorkload w = workNs == null ? generator : withWork(generator, workNs);
            AtomicLong committed = new AtomicLong();
            long start = System.nanoTime();
            PrintStream progressOut = System.err;
            ProgressDisplay display = ProgressDisplay.consoleIsTerminal()
                    ? ProgressDisplay.start(workload + " " + protocol, () -> System.nanoTime() - start,
                            warmupNs + durationNs, committed::get, progressOut)
                    : ProgressDisplay.none();
            TxnResult result;
            try {
                result = TxnRunner.realTime().run(w, lockSource.locker(),
                        new TxnRunner.Settings(clients, warmupNs, durationNs, seed), committed::set);
            } finally {
                display.close();
            }
            TxnReport.Conservation conservation = TxnReport.Conservation.NONE;
            if (bank != null) {
                BankLedger.Balances after = bank.balances();
                BankLedger.Check each = smallBank.ledger().check(balancesBefore, after);
                conservation = new TxnReport.Conservation(true, before + result.ledger(), after.total(), each.balances(),
                        each.differing(), each.first().stream().map(Object::toString).collect(Collectors.joining(", ")));
            }
            return new TxnReport.Run(TxnLocks.REDIS.equals(locks) ? redis : fabric, result, conservation);
        }
    }

    /** The simulator: bench's txn workload kind per protocol, bench's report and exit status. */
    private int simulated(List<LockProtocol> selected, ReportFormat reportFormat) {
        if (SMALLBANK.equals(workload)) {
            throw new BadInputException("--workload smallbank runs its bodies on real fabrics only; on --fabric sim "
                    + "give tatp or tpcc");
        }
        TransactionWorkload w = TransactionWorkload.of(generator(), new Phases(clients, durationNs, 0, warmupNs, seed))
                .withWorkNs(workNs == null ? TransactionWorkload.GENERATORS_WORK : workNs)
                .withOptions(protocolOptions(selected));
        List<RunResult> results = new ArrayList<>();
        for (LockProtocol p : selected) {
            SimConfig cluster = SimConfig.defaults().toBuilder().computeNodes(1).clientsPerComputeNode(clients)
                    .seed(seed).build();
            try (SimFabric sim = new SimFabric(cluster)) {
                results.add(new Runner(new SimDriver(sim), ProgressDisplay.consoleIsTerminal(), System.err).run(p, w));
            }
        }
        write(reportFormat.report().render(results));
        return BenchExecution.exitStatus(spec.commandLine().getErr(), results, null);
    }

    /**
     * The {@code --option}s of {@code protocol} as {@code NAME=VALUE}: {@code PROTO.NAME=VALUE} for it,
     * and {@code NAME=VALUE} if it has that option (as bench applies them).
     */
    private List<String> optionsOf(String protocol) {
        java.util.Set<String> names = new java.util.HashSet<>();
        LockProtocols.byName(protocol).options().forEach(o -> names.add(o.name()));
        List<String> out = new ArrayList<>();
        for (String pair : options) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq);
            int dot = name.indexOf('.');
            if (dot >= 0) {
                if (name.substring(0, dot).equals(protocol)) {
                    out.add(name.substring(dot + 1) + value);
                }
            } else if (names.contains(name)) {
                out.add(pair);
            }
        }
        return out;
    }

    /** {@code --option} for the bench's runs, validated against the protocols. */
    private ProtocolOptions protocolOptions(List<LockProtocol> selected) {
        try {
            ProtocolOptions parsed = ProtocolOptions.parse(options);
            parsed.validate(selected);
            return parsed;
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    private void write(String report) {
        if (output != null) {
            try {
                Files.writeString(output, report, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new BadInputException("cannot write " + output + ": " + e.getMessage());
            }
        } else {
            PrintWriter out = spec.commandLine().getOut();
            out.print(report);
            out.flush();
        }
    }

    private long locksOf(String kind) {
        return switch (kind) {
            case SMALLBANK -> 2L * bankConfig().accounts();
            default -> generator().locks();
        };
    }

    /** TATP's or TPC-C's generator. */
    private TxnWorkload generator() {
        return switch (workload) {
            case TATP -> Tatp.paper();
            case TPCC -> new TpcC(warehouses, 9, 9, 143);
            case SMALLBANK -> throw new IllegalStateException("smallbank has a store");
            default -> throw new BadInputException("unknown --workload '" + workload + "': give tatp, tpcc or smallbank");
        };
    }

    private SmallBank.Config bankConfig() {
        SmallBank.Config c = switch (smallbank) {
            case "paper", "shiftlock" -> SmallBank.Config.shiftlock();
            case "declock" -> SmallBank.Config.declock();
            default -> throw new BadInputException("unknown --smallbank '" + smallbank + "': give paper or declock");
        };
        if (accounts != null) {
            if (accounts < 2) {
                throw new BadInputException("--accounts must be at least 2, got " + accounts);
            }
            c = c.withAccounts(accounts);
        }
        return c;
    }

    /** {@code w} with every transaction's work replaced by {@code ns}. */
    private static TxnWorkload withWork(TxnWorkload w, long ns) {
        return new TxnWorkload() {
            @Override
            public String name() {
                return w.name();
            }

            @Override
            public List<String> types() {
                return w.types();
            }

            @Override
            public long locks() {
                return w.locks();
            }

            @Override
            public double paperSharedShare() {
                return w.paperSharedShare();
            }

            @Override
            public io.lockfabric.txn.Transaction next(java.util.random.RandomGenerator random) {
                io.lockfabric.txn.Transaction t = w.next(random);
                return new io.lockfabric.txn.Transaction(t.type(), t.locks(), t.lockIds(), ns, t.body());
            }

            @Override
            public String toString() {
                return w + " with " + Durations.format(ns) + " of work";
            }
        };
    }
}
