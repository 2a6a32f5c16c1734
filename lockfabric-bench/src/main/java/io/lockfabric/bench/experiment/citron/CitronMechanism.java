package io.lockfabric.bench.experiment.citron;

import io.lockfabric.bench.experiment.ExperimentTable;

import io.lockfabric.bench.NicProbe;
import io.lockfabric.bench.RunResult;
import io.lockfabric.lock.LockStats;
import io.lockfabric.lock.citron.CitronProfile;
import io.lockfabric.sim.NicQueueing;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The measured mechanism behind a citron run, as the range experiments print it: where an
 * acquisition's time went by phase of Algorithm 2 ({@link CitronProfile}), how often node attempts
 * aborted and why, inequation (1)'s t2 − t1 against T_wait, and the simulated memory node's RNIC
 * queueing (waits for a processing unit vs for a hot word, and the word that cost the most). All
 * per measured acquisition (measured phase only).
 */
final class CitronMechanism {
    /** Columns of {@link #timeTable}. */
    private static final String[] TIME_COLUMNS = {"case", "Mops/s", "us/acq", "(a) ticket", "(b) ancestors",
            "(c)+(d)", "leaf retry", "T_wait+desc", "backoff", "attempts/acq", "timing aborts/acq", "t2-t1 us",
            "of it (b) READs"};
    /** Columns of {@link #nicTable}. */
    private static final String[] NIC_COLUMNS = {"case", "verbs/acq", "unit wait us/verb", "word wait us/verb",
            "hottest word", "its atomics/acq", "its wait us/delayed verb", "2nd word", "its atomics/acq "};

    private CitronMechanism() {
    }

    /**
     * Where citron's acquisitions spent their time, one row per labelled run (a run that granted
     * nothing in its measured phase shows dashes: there is nothing to divide by).
     */
    static ExperimentTable timeTable(String title, Map<String, RunResult> runs) {
        var t = new ExperimentTable.Builder(title, TIME_COLUMNS);
        for (Map.Entry<String, RunResult> e : runs.entrySet()) {
            RunResult r = e.getValue();
            CitronProfile c = profile(r);
            double ops = r.measuredOps();
            if (ops == 0) {
                t.row(dashes(TIME_COLUMNS.length, e.getKey(), f2(r.goodput() / 1e6)));
                continue;
            }
            t.row(e.getKey(), f2(r.goodput() / 1e6), f1(c.totalNs() / ops / 1e3), f1(c.ticketNs() / ops / 1e3),
                    f1(c.ancestorNs() / ops / 1e3), f1(c.lockNs() / ops / 1e3), f1(c.leafRetryNs() / ops / 1e3),
                    f1((c.tWaitNs() + c.descendantNs()) / ops / 1e3), f1(c.backoffNs() / ops / 1e3),
                    f2(c.nodeAttempts() / ops), f2(r.timingAborts() / ops), f1(spanUs(c)), f1(ancestorReadUs(c)));
        }
        return t.build();
    }

    /** The per-size split of step (a)'s ticket waits: us per acquisition of each size, total / ticket. */
    static ExperimentTable sizeTable(String title, Map<String, RunResult> runs, List<Long> sizes) {
        String[] columns = new String[sizes.size() + 1];
        columns[0] = "case";
        for (int i = 0; i < sizes.size(); i++) {
            columns[i + 1] = "L=" + sizes.get(i) + ": us/acq, (a) ticket";
        }
        var t = new ExperimentTable.Builder(title, columns);
        for (Map.Entry<String, RunResult> e : runs.entrySet()) {
            RunResult r = e.getValue();
            if (r.statsByGroup().values().stream().noneMatch(CitronProfile::reportedBy)) {
                continue;
            }
            String[] row = new String[sizes.size() + 1];
            row[0] = e.getKey();
            for (int i = 0; i < sizes.size(); i++) {
                row[i + 1] = perSize(r, sizes.get(i));
            }
            t.row(row);
        }
        return t.build();
    }

    /** The memory node's RNIC queueing in each labelled run (dashes where it was not tracked or nothing was granted). */
    static ExperimentTable nicTable(String title, Map<String, RunResult> runs) {
        var t = new ExperimentTable.Builder(title, NIC_COLUMNS);
        for (Map.Entry<String, RunResult> e : runs.entrySet()) {
            RunResult r = e.getValue();
            NicQueueing q = queueing(r);
            double ops = r.measuredOps();
            if (q == null || q.verbs() == 0 || ops == 0) {
                t.row(dashes(NIC_COLUMNS.length, e.getKey()));
                continue;
            }
            String[] hot = word(r.nic(), q, 0, ops);
            String[] second = word(r.nic(), q, 1, ops);
            t.row(e.getKey(), f1(q.verbs() / ops), f2(q.unitWaitNs() / 1e3 / q.verbs()),
                    f2(q.wordWaitNs() / 1e3 / q.verbs()), hot[0], hot[1], hot[2], second[0], second[1]);
        }
        return t.build();
    }

    /** A row of {@code n} cells: {@code first} cells, then dashes. */
    private static String[] dashes(int n, String... first) {
        String[] row = new String[n];
        java.util.Arrays.fill(row, "-");
        System.arraycopy(first, 0, row, 0, first.length);
        return row;
    }

    /** {name, atomics per acquisition, wait per delayed verb} of the {@code i}-th costliest word. */
    private static String[] word(NicProbe m, NicQueueing q, int i, double ops) {
        if (q.words().size() <= i) {
            return new String[] {"-", "-", "-"};
        }
        NicQueueing.Word w = q.words().get(i);
        return new String[] {m.nameOf(w.address()), f2(w.exclusiveVerbs() / ops),
                f2(w.delayedVerbs() == 0 ? 0 : w.wordWaitNs() / 1e3 / w.delayedVerbs())};
    }

    /** The memory node's queueing over the run's measured phase, or null if it was not probed. */
    private static NicQueueing queueing(RunResult r) {
        NicProbe probe = r.nic();
        return probe == null ? null : probe.queueing();
    }

    /** Citron's phase profile over the run's measured phase ({@link CitronProfile#ZERO} for another protocol). */
    static CitronProfile profile(RunResult r) {
        return CitronProfile.of(r.stats());
    }

    /** Citron's phase profile of the clients of range size {@code size}, or null if there is none. */
    private static CitronProfile profileOfSize(RunResult r, long size) {
        LockStats s = r.statsByGroup().get(size);
        return s == null || !CitronProfile.reportedBy(s) ? null : CitronProfile.of(s);
    }

    /** Mean t2 − t1 of inequation (1), us (0 if none was checked). */
    static double spanUs(CitronProfile c) {
        return c.spans() == 0 ? 0 : c.spanNs() / 1e3 / c.spans();
    }

    /** Mean round trip of the ancestor READ batch per checked notification, us. */
    static double ancestorReadUs(CitronProfile c) {
        return c.spans() == 0 ? 0 : c.ancestorReadNs() / 1e3 / c.spans();
    }

    /** "total / ticket" us per acquisition of size {@code size}. */
    static String perSize(RunResult r, long size) {
        CitronProfile c = profileOfSize(r, size);
        long ops = r.opsByGroup().getOrDefault(size, 0L);
        if (c == null || ops == 0) {
            return "-";
        }
        return f1(c.totalNs() / 1e3 / ops) + " / " + f1(c.ticketNs() / 1e3 / ops);
    }

    /** Ticket wait per acquisition of size {@code size}, us (0 if none). */
    static double ticketUs(RunResult r, long size) {
        CitronProfile c = profileOfSize(r, size);
        long ops = r.opsByGroup().getOrDefault(size, 0L);
        return c == null || ops == 0 ? 0 : c.ticketNs() / 1e3 / ops;
    }

    /** Total us per acquisition of size {@code size} (0 if none). */
    static double totalUs(RunResult r, long size) {
        CitronProfile c = profileOfSize(r, size);
        long ops = r.opsByGroup().getOrDefault(size, 0L);
        return c == null || ops == 0 ? 0 : c.totalNs() / 1e3 / ops;
    }

    /** The costliest word's name, or "-". */
    static String hottestName(RunResult r) {
        NicQueueing q = queueing(r);
        return q == null || q.words().isEmpty() ? "-" : r.nic().nameOf(q.words().get(0).address());
    }

    /** Atomics and writes per acquisition on the costliest word (0 if unknown). */
    static double hottestAtomics(RunResult r) {
        NicQueueing q = queueing(r);
        return q == null || q.words().isEmpty() || r.measuredOps() == 0 ? 0
                : q.words().get(0).exclusiveVerbs() / (double) r.measuredOps();
    }

    /** Unit wait per verb, us (0 if unknown). */
    static double unitWaitUs(RunResult r) {
        NicQueueing q = queueing(r);
        return q == null || q.verbs() == 0 ? 0 : q.unitWaitNs() / 1e3 / q.verbs();
    }

    static String f1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String f2(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
