package io.lockfabric.bench.experiment.declock;

import io.lockfabric.check.Hold;
import io.lockfabric.lock.Mode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How one lock was passed on, measured from a run's recorded holds (protocol-agnostic: it sees
 * only request, grant and release-start times of each hold, in observer time). The holds are cut
 * into <em>phases</em>: a writer's hold is a phase; readers whose holds overlap form one read
 * phase (a reader granted after every reader before it released starts a new one). Between two
 * phases is a <em>handover</em>; it is <em>contended</em> if the next phase's first holder had
 * asked before the last holder of the phase before began to release, and its <em>gap</em> is the
 * time from that release's start to the next grant: the time the lock is held by nobody while
 * someone waits for it. Handovers are also told apart by whether the two holders are clients of
 * one compute node (client index / clients per node, as the runner places them).
 *
 * <p>Only phases that begin in [{@code fromNs}, {@code toNs}) are counted; a hold never released
 * ends its phase at {@code toNs}.
 *
 * @param grants          holds granted in the window
 * @param windowNs        the window's length
 * @param busyNs          time in the window during which someone held the lock
 * @param readPhases      read phases
 * @param writePhases     write phases
 * @param readers         readers' holds (in read phases)
 * @param transitions     contended handovers by kind: index {@link #kind} (W→W, W→R, R→W, R→R)
 * @param gapNs           their summed gaps, same index
 * @param sameNode        contended handovers between clients of one compute node
 * @param sameNodeGapNs   their summed gaps
 * @param phaseNs         summed phase durations (first grant to last release start)
 * @param sharedWaitNs    summed waits (request to grant) of the window's readers
 * @param exclusiveWaitNs summed waits of the window's writers
 */
record HotLockTrace(long grants, long windowNs, long busyNs, long readPhases, long writePhases, long readers,
                    long[] transitions, long[] gapNs, long sameNode, long sameNodeGapNs, long phaseNs,
                    long sharedWaitNs, long exclusiveWaitNs) {
    static final String[] KINDS = {"W>W", "W>R", "R>W", "R>R"};

    static int kind(Mode from, Mode to) {
        return (from == Mode.SHARED ? 2 : 0) + (to == Mode.SHARED ? 1 : 0);
    }

    /** The trace of lock {@code lockId} among {@code holds}, clients placed {@code clientsPerNode} to a node. */
    static HotLockTrace of(List<Hold> holds, long lockId, int clientsPerNode, long fromNs, long toNs) {
        List<Hold> mine = new ArrayList<>();
        for (Hold h : holds) {
            if (h.start() == lockId && h.end() == lockId + 1) {
                mine.add(h);
            }
        }
        mine.sort(Comparator.comparingLong(Hold::grantedAt));
        long grants = 0;
        long readPhases = 0;
        long writePhases = 0;
        long readers = 0;
        long[] transitions = new long[KINDS.length];
        long[] gapNs = new long[KINDS.length];
        long sameNode = 0;
        long sameNodeGapNs = 0;
        long phaseNs = 0;
        long sharedWait = 0;
        long exclusiveWait = 0;
        long busy = 0;
        // the phase being built: its mode, start, latest release start, and the hold that ends it
        Mode mode = null;
        long phaseStart = 0;
        long phaseEnd = 0;
        Hold last = null;
        boolean counted = false;
        for (Hold h : mine) {
            long released = Math.min(h.releasedAt(), toNs);
            boolean joins = mode == Mode.SHARED && h.mode() == Mode.SHARED && h.grantedAt() < phaseEnd;
            if (!joins) {
                if (mode != null && counted) {
                    phaseNs += phaseEnd - phaseStart;
                    busy += Math.max(0, Math.min(phaseEnd, toNs) - Math.max(phaseStart, fromNs));
                }
                boolean inWindow = h.grantedAt() >= fromNs && h.grantedAt() < toNs;
                if (mode != null && inWindow && h.requestedAt() < phaseEnd) {
                    int k = kind(mode, h.mode());
                    long gap = Math.max(0, h.grantedAt() - phaseEnd);
                    transitions[k]++;
                    gapNs[k] += gap;
                    if (last.client() / clientsPerNode == h.client() / clientsPerNode) {
                        sameNode++;
                        sameNodeGapNs += gap;
                    }
                }
                mode = h.mode();
                phaseStart = h.grantedAt();
                phaseEnd = released;
                last = h;
                counted = inWindow;
                if (counted) {
                    if (mode == Mode.SHARED) {
                        readPhases++;
                    } else {
                        writePhases++;
                    }
                }
            } else if (released > phaseEnd) {
                phaseEnd = released;
                last = h;
            }
            if (counted) {
                grants++;
                if (h.mode() == Mode.SHARED) {
                    readers++;
                    sharedWait += h.grantedAt() - h.requestedAt();
                } else {
                    exclusiveWait += h.grantedAt() - h.requestedAt();
                }
            }
        }
        if (mode != null && counted) {
            phaseNs += phaseEnd - phaseStart;
            busy += Math.max(0, Math.min(phaseEnd, toNs) - Math.max(phaseStart, fromNs));
        }
        return new HotLockTrace(grants, toNs - fromNs, busy, readPhases, writePhases, readers, transitions, gapNs,
                sameNode, sameNodeGapNs, phaseNs, sharedWait, exclusiveWait);
    }

    /** The traces of locks 0 to {@code locks - 1} (the hottest under the runner's Zipf) added up. */
    static HotLockTrace ofHottest(List<Hold> holds, int locks, int clientsPerNode, long fromNs, long toNs) {
        HotLockTrace sum = null;
        for (long lock = 0; lock < locks; lock++) {
            HotLockTrace t = of(holds, lock, clientsPerNode, fromNs, toNs);
            sum = sum == null ? t : sum.plus(t);
        }
        return sum;
    }

    /** This trace and {@code o}'s (another lock's, same window) added up; the busy time is summed too. */
    HotLockTrace plus(HotLockTrace o) {
        long[] t = transitions.clone();
        long[] g = gapNs.clone();
        for (int k = 0; k < t.length; k++) {
            t[k] += o.transitions[k];
            g[k] += o.gapNs[k];
        }
        return new HotLockTrace(grants + o.grants, windowNs + o.windowNs, busyNs + o.busyNs, readPhases + o.readPhases,
                writePhases + o.writePhases, readers + o.readers, t, g, sameNode + o.sameNode,
                sameNodeGapNs + o.sameNodeGapNs, phaseNs + o.phaseNs, sharedWaitNs + o.sharedWaitNs,
                exclusiveWaitNs + o.exclusiveWaitNs);
    }

    long contended() {
        long n = 0;
        for (long t : transitions) {
            n += t;
        }
        return n;
    }

    /** Grants per millisecond of the window (per lock, for added-up traces). */
    double grantsPerMs() {
        return windowNs == 0 ? 0 : grants * 1e6 / windowNs;
    }

    /** Share of the window during which the lock was held. */
    double busyShare() {
        return windowNs == 0 ? 0 : (double) busyNs / windowNs;
    }

    double readersPerReadPhase() {
        return readPhases == 0 ? 0 : (double) readers / readPhases;
    }

    /** Mean grants per phase. */
    double grantsPerPhase() {
        long phases = readPhases + writePhases;
        return phases == 0 ? 0 : (double) grants / phases;
    }

    /** Mean phase duration, us. */
    double phaseUs() {
        long phases = readPhases + writePhases;
        return phases == 0 ? 0 : phaseNs / 1e3 / phases;
    }

    /** Mean gap of contended handovers, us. */
    double gapUs() {
        long n = contended();
        long sum = 0;
        for (long g : gapNs) {
            sum += g;
        }
        return n == 0 ? 0 : sum / 1e3 / n;
    }

    /** Mean gap of contended handovers of kind {@code k}, us (NaN if none). */
    double gapUs(int k) {
        return transitions[k] == 0 ? Double.NaN : gapNs[k] / 1e3 / transitions[k];
    }

    /** Share of contended handovers of kind {@code k}. */
    double share(int k) {
        long n = contended();
        return n == 0 ? 0 : (double) transitions[k] / n;
    }

    /** Share of contended handovers between clients of one compute node. */
    double sameNodeShare() {
        long n = contended();
        return n == 0 ? 0 : (double) sameNode / n;
    }

    double sameNodeGapUs() {
        return sameNode == 0 ? Double.NaN : sameNodeGapNs / 1e3 / sameNode;
    }

    double crossNodeGapUs() {
        long n = contended() - sameNode;
        long sum = -sameNodeGapNs;
        for (long g : gapNs) {
            sum += g;
        }
        return n == 0 ? Double.NaN : sum / 1e3 / n;
    }

    double sharedWaitUs() {
        return readers == 0 ? 0 : sharedWaitNs / 1e3 / readers;
    }

    double exclusiveWaitUs() {
        long writers = grants - readers;
        return writers == 0 ? 0 : exclusiveWaitNs / 1e3 / writers;
    }
}
