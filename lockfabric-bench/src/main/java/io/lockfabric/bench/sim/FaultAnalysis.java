package io.lockfabric.bench.sim;

import io.lockfabric.bench.FaultOutcome;
import io.lockfabric.bench.Workload;
import io.lockfabric.check.Hold;
import io.lockfabric.check.Violation;
import io.lockfabric.fabric.Durations;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.Mode;
import io.lockfabric.sim.Fault;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a faulty run's history in the light of its faults and of the protocol's
 * {@link FailureModel}:
 * <ul>
 *   <li>a crashed client's open holds end at its crash (a dead client touches nothing after), and
 *       those of a client that gave up on a lock its protocol declared broken where it gave up (it
 *       was releasing);</li>
 *   <li>a crashed exclusive holder's guarded-counter increment may or may not have landed;</li>
 *   <li>each lock held at a crash is timed until it is granted again, against the recovery bound
 *       as the run's other faults widen it ({@link #allowanceNs});</li>
 *   <li>a finding (overlap, fencing, counter) involving a hold whose client was paused longer than
 *       the lease between asking for it and releasing it is the double-holder hazard the protocol's
 *       own assumption excludes, reported apart; any other finding is a violation. Only holds in a
 *       mode the model leases count ({@link FailureModel#leases}: DrTM leases its readers only, so
 *       a paused DrTM writer in an overlap is a violation).</li>
 * </ul>
 */
final class FaultAnalysis {
    private final FailureModel model;
    private final List<Fault> faults;
    private final long[] crashedAtNs;
    private final long[] gaveUpAtNs;
    private final long maxDelayNs;
    private final Set<Hold> openAtCrash = new HashSet<>();

    /**
     * @param crashedAtNs per client, the virtual time it crashed, or -1
     * @param gaveUpAtNs  per client, the virtual time it gave up on a broken lock, or -1
     * @param maxDelayNs  the longest delay the run's faults add to a message ({@link io.lockfabric.sim.FaultPlan#maxDelayNs})
     */
    FaultAnalysis(FailureModel model, List<Fault> faults, long[] crashedAtNs, long[] gaveUpAtNs, long maxDelayNs) {
        this.model = model;
        this.faults = List.copyOf(faults);
        this.crashedAtNs = crashedAtNs.clone();
        this.gaveUpAtNs = gaveUpAtNs.clone();
        this.maxDelayNs = maxDelayNs;
    }

    /** The holds, with a crashed client's unreleased holds ending at its crash. */
    List<Hold> adjust(List<Hold> holds) {
        List<Hold> out = new ArrayList<>(holds.size());
        for (Hold h : holds) {
            long crash = crashedAt(h.client());
            if (h.releasedAt() == Hold.NEVER && crash >= 0) {
                Hold ended = h.releasedAt(Math.max(crash, h.grantedAt()));
                openAtCrash.add(ended);
                out.add(ended);
            } else if (h.releasedAt() == Hold.NEVER && gaveUpAt(h.client()) >= 0) {
                out.add(h.releasedAt(Math.max(gaveUpAt(h.client()), h.grantedAt())));
            } else {
                out.add(h);
            }
        }
        return out;
    }

    /** Per lock, the exclusive holds cut by a crash (call after {@link #adjust}). */
    Map<Long, Long> uncertainIncrements() {
        Map<Long, Long> counts = new HashMap<>();
        for (Hold h : openAtCrash) {
            if (h.mode() == Mode.EXCLUSIVE) {
                counts.merge(h.start(), 1L, Long::sum);
            }
        }
        return counts;
    }

    /** For each hold cut by a crash, when a conflicting grant of its lock next came. */
    List<FaultOutcome.Recovery> recoveries(List<Hold> adjusted) {
        List<FaultOutcome.Recovery> out = new ArrayList<>();
        for (Hold dead : openAtCrash) {
            long next = -1;
            for (Hold h : adjusted) {
                if (h.client() != dead.client() && h.overlapsInSpace(dead) && h.mode().conflictsWith(dead.mode())
                        && h.grantedAt() >= dead.releasedAt() && (next < 0 || h.grantedAt() < next)) {
                    next = h.grantedAt();
                }
            }
            out.add(new FaultOutcome.Recovery(dead.start(), dead.client(), dead.releasedAt(), next));
        }
        out.sort(Comparator.comparingLong(FaultOutcome.Recovery::crashedAtNs)
                .thenComparingLong(FaultOutcome.Recovery::lock));
        return out;
    }

    /**
     * Recoveries slower than the protocol's bound (only for protocols that claim one), widened by
     * the run's other faults as far as each can hold a recovery up ({@link #allowanceNs}).
     */
    List<Violation> slowRecoveries(List<FaultOutcome.Recovery> recoveries) {
        List<Violation> out = new ArrayList<>();
        if (!model.recoversFromCrash()) {
            return out;
        }
        for (FaultOutcome.Recovery r : recoveries) {
            if (r.recovered() && r.recoveryNs() > allowanceNs(r)) {
                out.add(new Violation.SlowRecovery(r.lock(), r.client(), r.crashedAtNs(), r.recoveredAtNs(),
                        model.recoveryBoundNs()));
            }
        }
        return out;
    }

    /**
     * How long recovery {@code r} may take, by fault kind:
     * <ul>
     *   <li><b>crash</b>: one bound ({@code B}) per client that crashed before the lock was granted
     *       again: each may sit in the lock's queue (a dead ticket, a dead queue member) and is
     *       skipped in turn;</li>
     *   <li><b>client pause</b>: the part of the pause inside the recovery, at most {@code B}. A
     *       paused client on the recovery's path (the waiter due to reset the lock, the client the
     *       reset makes the next holder, a member whose answer a reset awaits) holds it up while it
     *       is paused, and once paused longer than a lease the protocol treats it as crashed (one
     *       more {@code B}). Seen in dslr (seed 1287, crash,pause,drop,delay): the lease reset came
     *       20.1 ms after the crash, within {@code B} = 23.5 ms, and made client 7 the holder, which
     *       was paused for 12.2 ms, saw its grant only past its lease and gave it back: the next grant
     *       came 29.6 ms after the crash;</li>
     *   <li><b>memory-node pause</b>: the part inside the recovery (nothing is served meanwhile);</li>
     *   <li><b>memory-node restart</b>: the part of the outage inside the recovery, plus one bound
     *       (the recovery from the restart, e.g. DecLock's wait of a lease for the holders of the
     *       lost generation);</li>
     *   <li><b>delay</b>: the plan's longest message delay, once. No registered protocol has more
     *       than one client-to-client message in sequence between a holder's crash and the next
     *       grant (dslr none; shiftlock none: the reset is an rpc and the first writer to enqueue
     *       after it is granted by its own atomic; cql and declock one, the reset's DONE, whose loss
     *       or delay the waiters also cover by READing the header);</li>
     *   <li><b>drop</b>: nothing. A lost message on a crash recovery's path costs those protocols no
     *       more than their bound already allows (a lost DONE: a quarter lease until the waiters
     *       READ the header; a lost reset signal or answer: the member is taken for dead after a
     *       lease, which {@code B} contains), so a recovery that drops make slower is a finding.</li>
     * </ul>
     */
    long allowanceNs(FaultOutcome.Recovery r) {
        long bound = model.recoveryBoundNs();
        long crashesBefore = 0;
        for (long at : crashedAtNs) {
            if (at >= 0 && at < r.recoveredAtNs()) {
                crashesBefore++;
            }
        }
        long allowance = Workload.addTimes(Workload.multiplyTime(bound, Math.max(1, crashesBefore)), maxDelayNs);
        for (Fault f : faults) {
            long inside = Math.min(f.endNs(), r.recoveredAtNs()) - Math.max(f.atNs(), r.crashedAtNs());
            if (inside <= 0) {
                continue;
            }
            allowance = switch (f.kind()) {
                case CRASH -> allowance;
                case PAUSE -> Workload.addTimes(allowance, Math.min(inside, bound));
                case MN_PAUSE -> Workload.addTimes(allowance, inside);
                case CN_CRASH -> allowance; // its clients' crashes are counted above
                case MN_RESTART -> Workload.addTimes(allowance, Workload.addTimes(inside, bound));
            };
        }
        return allowance;
    }

    /** Findings of the checkers, split into violations and hazards. */
    record Split(List<Violation> violations, List<FaultOutcome.Hazard> hazards) {
    }

    Split classify(List<Violation> findings) {
        List<Violation> violations = new ArrayList<>();
        List<FaultOutcome.Hazard> hazards = new ArrayList<>();
        Map<Long, String> hazardLocks = new HashMap<>();
        List<Violation> counters = new ArrayList<>();
        for (Violation v : findings) {
            String reason = switch (v) {
                case Violation.Overlap o -> leaseBreak(o.first(), o.second());
                case Violation.Fencing f -> leaseBreak(f.earlier(), f.later());
                default -> null;
            };
            if (v instanceof Violation.Counter || v instanceof Violation.TornValue) {
                counters.add(v);
            } else if (reason == null) {
                violations.add(v);
            } else {
                hazards.add(new FaultOutcome.Hazard(v, reason));
                Hold first = v instanceof Violation.Overlap o ? o.first() : ((Violation.Fencing) v).earlier();
                hazardLocks.putIfAbsent(first.start(), reason);
            }
        }
        for (Violation v : counters) {
            long lock = v instanceof Violation.Counter c ? c.lock() : ((Violation.TornValue) v).lock();
            String reason = hazardLocks.get(lock);
            if (reason == null) {
                violations.add(v);
            } else {
                hazards.add(new FaultOutcome.Hazard(v, reason));
            }
        }
        return new Split(violations, hazards);
    }

    /** Why either hold broke the lease assumption, or null if neither did. */
    private String leaseBreak(Hold a, Hold b) {
        String r = leaseBreak(a);
        return r != null ? r : leaseBreak(b);
    }

    private String leaseBreak(Hold h) {
        long lease = model.leaseNs();
        if (!model.leases(h.mode())) {
            return null; // no lease for this mode: the protocol assumes nothing about how long such a holder takes
        }
        for (Fault f : faults) {
            if (f.kind() == Fault.Kind.PAUSE && f.target() == h.client() && f.lengthNs() > lease
                    && f.atNs() < h.releasedAt() && f.endNs() > h.requestedAt()) {
                return "client " + h.client() + " was paused " + Durations.format(f.lengthNs()) + " > lease "
                        + Durations.format(lease) + " from " + Durations.format(f.atNs()) + " while asking for or "
                        + "holding lock " + h.start() + " token " + h.token();
            }
        }
        return null;
    }

    private long crashedAt(int client) {
        return client >= 0 && client < crashedAtNs.length ? crashedAtNs[client] : -1;
    }

    private long gaveUpAt(int client) {
        return client >= 0 && client < gaveUpAtNs.length ? gaveUpAtNs[client] : -1;
    }
}
