package io.lockfabric.cli;

import io.lockfabric.bench.BenchmarkFailedException;
import io.lockfabric.bench.ProgressDisplay;
import io.lockfabric.compare.PeerUnavailableException;
import io.lockfabric.compare.smallbank.ShiftLockFig11;
import io.lockfabric.protocols.LockProtocols;

import java.io.PrintWriter;
import java.util.List;

/**
 * {@code lockfabric reproduce shiftlock-fig11}: the one reproduction measured on real processes
 * (SmallBank with its data in a redis-server, LockFabric over tcp against Redis's lock), run by
 * {@link ShiftLockFig11} in lockfabric-compare; {@link ReproduceCommand} hands it over here.
 */
final class SmallBankReproduction {
    static final String NAME = ShiftLockFig11.NAME;

    private SmallBankReproduction() {
    }

    /** Its entry in {@code reproduce --list}. */
    static void list(PrintWriter out) {
        out.printf("%s%n    %s%n    %s%n", NAME, ShiftLockFig11.REFERENCE, ShiftLockFig11.DESCRIPTION);
    }

    /**
     * Runs it and prints the table or JSON; the exit status: 0 every run conserved money, 1 a run's
     * check failed, 3 redis-server missing or a run failed.
     */
    static int run(PrintWriter out, boolean json, long seed, long warmupNs, long durationNs, List<String> protocols,
                   Integer accounts, Integer threads, Integer processes)
            throws InterruptedException {
        ShiftLockFig11.Settings s = ShiftLockFig11.Settings.defaults().withSeed(seed).withTimes(warmupNs, durationNs);
        if (accounts != null) {
            if (accounts < 2) {
                throw new BadInputException("--accounts must be at least 2, got " + accounts);
            }
            s = s.withAccounts(accounts);
        }
        if (threads != null) {
            if (threads < 1) {
                throw new BadInputException("--threads must be at least 1, got " + threads);
            }
            s = s.withThreads(threads);
        }
        if (processes != null) {
            if (processes < 1) {
                throw new BadInputException("--processes must be at least 1, got " + processes);
            }
            s = s.withProcesses(processes);
        }
        if (protocols != null && !protocols.isEmpty()) {
            List<String> ps = protocols.stream().map(String::trim).filter(p -> !p.isEmpty()).toList();
            ps.forEach(LockProtocols::byName);
            s = s.withProtocols(ps);
        }
        ShiftLockFig11.Outcome o;
        try {
            o = ShiftLockFig11.run(s, ProgressDisplay.consoleIsTerminal() ? System.err : null);
        } catch (PeerUnavailableException e) {
            throw new BenchmarkFailedException(e.getMessage(), e);
        }
        out.print(json ? ShiftLockFig11.json(o) : ShiftLockFig11.table(o));
        out.flush();
        return o.ok() ? Main.EXIT_OK : Main.EXIT_VIOLATIONS;
    }
}
