package io.lockfabric.check;

import io.lockfabric.lock.Mode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Merges the histories of several processes that shared lock tables ({@link HistoryFile}s) and
 * checks them together: what one process's own check cannot see, since each history misses the
 * other processes' holds.
 *
 * <p>The rules, per lock table (holds of different tables never conflict; every history of a
 * table must agree on its kind and protocol):
 * <ol>
 *   <li><b>On one clock</b> (processes of one {@link ClockDomain}: one host): the holds of all its
 *       processes are merged, each process's clients kept apart, and checked as one process's
 *       history is: no two conflicting holds (exclusive with anything, on one lock id; for range
 *       tables on overlapping ranges) overlap in time ({@link MutualExclusionChecker#overlaps},
 *       {@link RangeExclusionChecker#violations}); a release at the very instant of the next grant
 *       is no overlap. For point tables whose protocol's tokens are strict, also the fencing order
 *       of {@link MutualExclusionChecker#fencing}: per lock, sorted by token the exclusive grants
 *       have increasing grant times, and no grant has a token below an exclusive grant released
 *       before it.</li>
 *   <li><b>Across clocks</b> (several hosts; point tables with strict tokens only, since only
 *       tokens order grants there): (a) two exclusive grants of one lock on different clocks never
 *       carry one token; (b) for each pair of clocks A and B there is an offset {@code d}
 *       ({@code B's time = A's time + d}) under which every exclusive grant precedes, in time, every
 *       exclusive grant of the same lock with a larger token: an exclusive hold x on A with a smaller
 *       token than y on B demands {@code d <= y.granted - x.released}, one on B before one on A
 *       demands {@code d >= x.released - y.granted}, over every lock of every such table, and the
 *       largest lower bound may exceed the smallest upper bound by at most the drift allowance:
 *       {@code driftPpm} millionths of the longer of the two clocks' recorded spans (two hosts' clocks
 *       run at slightly different rates, so one offset holds only approximately). The check is
 *       pairwise: with three or more clocks the offsets are not checked for consistency with each
 *       other.</li>
 * </ol>
 * A recorded hold lies inside the real one, so every overlap and every bound is real: whatever
 * this reports is a violation of mutual exclusion or of the fencing order, never an artefact of
 * recording. Range tables are checked on one clock only (their fencing rule is quadratic, as in
 * a single process's check). Guarded counters are not part of a merged check (they live on the
 * memory node).
 */
public final class CrossProcessChecker {
    /** The default drift allowance between two hosts' monotonic clocks, in millionths. */
    public static final double DEFAULT_DRIFT_PPM = 100;

    private CrossProcessChecker() {
    }

    /**
     * One history to merge.
     *
     * @param name    what to call it in reports (its file name)
     * @param history the history
     */
    public record Input(String name, HistoryFile history) {
        public Input {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(history, "history");
        }
    }

    /**
     * What was checked for one table.
     *
     * @param processes   histories that had runs on it
     * @param clocks      distinct clock domains among them
     * @param holds       holds merged
     * @param exclusive   exclusive holds among them
     * @param acrossClocks whether the across-clock rules applied (several clocks, point, strict tokens)
     */
    public record TableSummary(String table, String kind, String protocol, boolean strictFencing, int processes,
                               int clocks, long holds, long exclusive, boolean acrossClocks) {
    }

    /**
     * A violation, described with the processes its holds came from.
     *
     * @param table       the table it was found on ({@code *} for a clock-order finding over all tables)
     * @param violation   the violation; its holds' client numbers are the merge's own
     * @param description what it is, naming each hold's process and client
     */
    public record Finding(String table, Violation violation, String description) {
    }

    /** The outcome of a merged check. */
    public record Report(List<TableSummary> tables, List<Finding> findings, List<String> notes) {
        public Report {
            tables = List.copyOf(tables);
            findings = List.copyOf(findings);
            notes = List.copyOf(notes);
        }

        public boolean clean() {
            return findings.isEmpty();
        }
    }

    /** The holds' origins: a merge-wide client number per (history, client). */
    private static final class Origins {
        private final List<Input> inputs;
        private final Map<Long, Integer> ids = new HashMap<>();
        private final List<int[]> origin = new ArrayList<>(); // merge id -> {input, client}
        private final Map<String, Long> clockBase = new HashMap<>();

        Origins(List<Input> inputs) {
            this.inputs = inputs;
        }

        int id(int input, int client) {
            return ids.computeIfAbsent(((long) input << 32) | client, k -> {
                origin.add(new int[] {input, client});
                return origin.size() - 1;
            });
        }

        ClockDomain clock(Hold h) {
            return inputs.get(origin.get(h.client())[0]).history().header().clockDomain();
        }

        void base(ClockDomain clock, long t) {
            clockBase.merge(clock.id(), t, Math::min);
        }

        long base(ClockDomain clock) {
            return clockBase.getOrDefault(clock.id(), 0L);
        }

        String at(ClockDomain clock, long t) {
            return t == Hold.NEVER ? "never" : String.format(Locale.ROOT, "%.6f ms", (t - clockBase.getOrDefault(clock.id(), 0L)) / 1e6);
        }

        String describe(Hold h) {
            int[] o = origin.get(h.client());
            Input in = inputs.get(o[0]);
            ClockDomain clock = in.history().header().clockDomain();
            String what = h.end() - h.start() == 1 ? "lock " + h.start() : "range [" + h.start() + ", " + h.end() + ")";
            return in.name() + " (" + in.history().header().who() + ") client " + o[1] + " held " + what + " " + h.mode()
                    + " token " + h.token() + " from " + at(clock, h.grantedAt()) + " to " + at(clock, h.releasedAt());
        }
    }

    /**
     * Merges {@code inputs} and checks them by the rules above.
     *
     * @throws IllegalArgumentException if the histories disagree about a table (kind, protocol,
     *                                  strictness), or one process's history is given twice
     */
    public static Report check(List<Input> inputs, double driftPpm) {
        if (!(driftPpm >= 0)) {
            throw new IllegalArgumentException("the drift allowance must be >= 0 ppm, got " + driftPpm);
        }
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < inputs.size(); i++) {
            HistoryFile.Header h = inputs.get(i).history().header();
            Integer twice = seen.put(h.clockDomain().id() + "/" + h.pid(), i);
            if (twice != null) {
                throw new IllegalArgumentException(inputs.get(i).name() + " and " + inputs.get(twice).name()
                        + " are the history of one process (" + h.who() + "): give each once");
            }
        }
        Origins origins = new Origins(inputs);
        Map<String, List<Hold>> byTable = new LinkedHashMap<>();
        Map<String, HistoryFile.Run> shape = new HashMap<>();
        Map<String, List<Integer>> processes = new HashMap<>();
        for (int i = 0; i < inputs.size(); i++) {
            Input in = inputs.get(i);
            for (HistoryFile.Run run : in.history().runs()) {
                HistoryFile.Run first = shape.putIfAbsent(run.table(), run);
                if (first != null && (!first.kind().equals(run.kind()) || !first.protocol().equals(run.protocol())
                        || first.strictFencing() != run.strictFencing())) {
                    throw new IllegalArgumentException("table " + run.table() + ": " + in.name() + " ran " + run.protocol()
                            + " (" + run.kind() + ") on it, another history " + first.protocol() + " (" + first.kind()
                            + "): not one table");
                }
                List<Hold> merged = byTable.computeIfAbsent(run.table(), t -> new ArrayList<>());
                for (Hold h : run.holds()) {
                    Hold g = new Hold(origins.id(i, h.client()), h.start(), h.end(), h.mode(), h.token(),
                            h.requestedAt(), h.grantedAt(), h.releasedAt());
                    merged.add(g);
                    origins.base(in.history().header().clockDomain(), h.grantedAt());
                }
                List<Integer> ps = processes.computeIfAbsent(run.table(), t -> new ArrayList<>());
                if (!ps.contains(i)) {
                    ps.add(i);
                }
            }
        }
        List<TableSummary> tables = new ArrayList<>();
        List<Finding> findings = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        Map<String, List<Hold>> crossClock = new LinkedHashMap<>(); // table -> holds, for rule 2(b)
        for (Map.Entry<String, List<Hold>> e : byTable.entrySet()) {
            String table = e.getKey();
            HistoryFile.Run run = shape.get(table);
            boolean point = run.kind().equals(HistoryFile.Run.POINT);
            Map<String, List<Hold>> byClock = new LinkedHashMap<>();
            for (Hold h : e.getValue()) {
                byClock.computeIfAbsent(origins.clock(h).id(), c -> new ArrayList<>()).add(h);
            }
            for (List<Hold> holds : byClock.values()) {
                List<Violation> found = new ArrayList<>(point ? MutualExclusionChecker.overlaps(holds)
                        : RangeExclusionChecker.violations(holds));
                if (point && run.strictFencing()) {
                    found.addAll(MutualExclusionChecker.fencing(holds));
                }
                found.forEach(v -> findings.add(new Finding(table, v, describe(v, origins))));
            }
            boolean across = byClock.size() > 1 && point && run.strictFencing();
            if (across) {
                duplicateTokens(table, e.getValue(), origins, findings);
                crossClock.put(table, e.getValue());
            } else if (byClock.size() > 1) {
                notes.add("table " + table + ": holds on different clocks are not compared ("
                        + (point ? run.protocol() + "'s tokens are not strict" : "a range table") + ")");
            }
            long exclusive = e.getValue().stream().filter(h -> h.mode() == Mode.EXCLUSIVE).count();
            tables.add(new TableSummary(table, run.kind(), run.protocol(), run.strictFencing(),
                    processes.get(table).size(), byClock.size(), e.getValue().size(), exclusive, across));
        }
        clockOrder(crossClock, origins, driftPpm, findings);
        return new Report(tables, findings, notes);
    }

    /** Rule 2(a): per lock, an exclusive token seen on two clocks. */
    private static void duplicateTokens(String table, List<Hold> holds, Origins origins, List<Finding> findings) {
        Map<Long, Map<Long, Hold>> byLock = new HashMap<>();
        for (Hold h : holds) {
            if (h.mode() != Mode.EXCLUSIVE) {
                continue;
            }
            Hold other = byLock.computeIfAbsent(h.start(), k -> new HashMap<>()).putIfAbsent(h.token(), h);
            if (other != null && !origins.clock(other).equals(origins.clock(h))) {
                Violation v = new Violation.Fencing(other, h);
                findings.add(new Finding(table, v, "two exclusive grants on different clocks carry one fencing token: ["
                        + origins.describe(other) + "] and [" + origins.describe(h) + "]"));
            }
        }
    }

    /** Rule 2(b), for every pair of clocks over every table given. */
    private static void clockOrder(Map<String, List<Hold>> tables, Origins origins, double driftPpm,
                                   List<Finding> findings) {
        if (tables.isEmpty()) {
            return;
        }
        List<String> clocks = new ArrayList<>();
        Map<String, long[]> span = new HashMap<>(); // clock -> {min, max}
        for (List<Hold> holds : tables.values()) {
            for (Hold h : holds) {
                String c = origins.clock(h).id();
                if (!clocks.contains(c)) {
                    clocks.add(c);
                }
                long[] s = span.computeIfAbsent(c, k -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
                s[0] = Math.min(s[0], h.grantedAt());
                s[1] = Math.max(s[1], h.releasedAt() == Hold.NEVER ? h.grantedAt() : h.releasedAt());
            }
        }
        for (int a = 0; a < clocks.size(); a++) {
            for (int b = a + 1; b < clocks.size(); b++) {
                String clockA = clocks.get(a);
                String clockB = clocks.get(b);
                Bounds bounds = new Bounds();
                for (List<Hold> holds : tables.values()) {
                    Map<Long, List<Hold>> byLock = new HashMap<>();
                    for (Hold h : holds) {
                        String c = origins.clock(h).id();
                        if (h.mode() == Mode.EXCLUSIVE && (c.equals(clockA) || c.equals(clockB))) {
                            byLock.computeIfAbsent(h.start(), k -> new ArrayList<>()).add(h);
                        }
                    }
                    for (List<Hold> lock : byLock.values()) {
                        bounds.sweep(lock, origins, clockA);
                    }
                }
                long longest = Math.max(span.get(clockA)[1] - span.get(clockA)[0], span.get(clockB)[1] - span.get(clockB)[0]);
                long allowance = (long) Math.ceil(longest * driftPpm / 1e6);
                if (bounds.upperWitness != null && bounds.lowerWitness != null
                        && bounds.lower - bounds.upper > allowance) {
                    Violation v = new Violation.ClockOrder(bounds.upperWitness[0], bounds.upperWitness[1],
                            bounds.lowerWitness[0], bounds.lowerWitness[1], bounds.upper, bounds.lower, allowance);
                    findings.add(new Finding("*", v, describe(v, origins)));
                }
            }
        }
    }

    /** The offset bounds of one pair of clocks, and the holds that set the tightest of each. */
    private static final class Bounds {
        long upper = Long.MAX_VALUE;
        long lower = Long.MIN_VALUE;
        Hold[] upperWitness;
        Hold[] lowerWitness;

        /** One lock's exclusive holds on clocks A and B, swept in token order. */
        void sweep(List<Hold> lock, Origins origins, String clockA) {
            lock.sort(Comparator.comparingLong(Hold::token));
            Hold lastA = null; // the latest-released hold on A with a smaller token so far
            Hold lastB = null;
            int i = 0;
            while (i < lock.size()) {
                int j = i;
                while (j < lock.size() && lock.get(j).token() == lock.get(i).token()) {
                    j++;
                }
                for (int k = i; k < j; k++) {
                    Hold y = lock.get(k);
                    boolean onA = origins.clock(y).id().equals(clockA);
                    if (!onA && lastA != null && y.grantedAt() - lastA.releasedAt() < upper) {
                        upper = y.grantedAt() - lastA.releasedAt();
                        upperWitness = new Hold[] {lastA, y};
                    }
                    if (onA && lastB != null && lastB.releasedAt() - y.grantedAt() > lower) {
                        lower = lastB.releasedAt() - y.grantedAt();
                        lowerWitness = new Hold[] {lastB, y};
                    }
                }
                for (int k = i; k < j; k++) {
                    Hold x = lock.get(k);
                    if (x.releasedAt() == Hold.NEVER) {
                        continue;
                    }
                    if (origins.clock(x).id().equals(clockA)) {
                        lastA = lastA == null || x.releasedAt() > lastA.releasedAt() ? x : lastA;
                    } else {
                        lastB = lastB == null || x.releasedAt() > lastB.releasedAt() ? x : lastB;
                    }
                }
                i = j;
            }
        }
    }

    private static String describe(Violation v, Origins o) {
        return switch (v) {
            case Violation.Overlap ov -> "conflicting grants overlap: [" + o.describe(ov.first()) + "] and ["
                    + o.describe(ov.second()) + "]";
            case Violation.Fencing f -> "fencing token out of order: [" + o.describe(f.earlier()) + "] then ["
                    + o.describe(f.later()) + "]";
            case Violation.ClockOrder c -> clockOrder(c, o);
            default -> v.description();
        };
    }

    /** Offsets between the clocks as the report's times show them: each clock from its first grant. */
    private static String clockOrder(Violation.ClockOrder c, Origins o) {
        long shift = o.base(o.clock(c.bAfter())) - o.base(o.clock(c.aBefore()));
        return "no offset between the clocks of " + o.clock(c.aBefore()).id() + " (A) and "
                    + o.clock(c.bAfter()).id() + " (B) orders the exclusive grants as their tokens do: ["
                    + o.describe(c.aBefore()) + "] precedes [" + o.describe(c.bAfter()) + "], so B = A + d with d <= "
                    + (c.upperNs() - shift) + " ns; [" + o.describe(c.bBefore()) + "] precedes [" + o.describe(c.aAfter())
                    + "], so d >= " + (c.lowerNs() - shift) + " ns; drift allowance " + c.allowanceNs() + " ns (times from "
                + "each clock's first grant)";
    }
}
