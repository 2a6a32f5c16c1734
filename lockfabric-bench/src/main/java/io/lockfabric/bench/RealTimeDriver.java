package io.lockfabric.bench;

import io.lockfabric.check.Hold;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.Mode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Runs a run's client threads on a real-time fabric (local, tcp) to their end, and no further than
 * the run's deadline: its planned end (warmup plus duration) plus a grace. A client that has not
 * returned by then has been in one operation for at least the grace: it is stuck (on tcp, most
 * often waiting for a message from a client in a process that died). The driver then ends it from
 * outside and the run ends {@link RunEnd.How#DEADLINE}, its stuck clients reported with the time of
 * their last progress. A run measured by operation count has no planned end: it is cut off once no
 * client has completed an operation for the grace.
 *
 * <p>The grace is the workload's ({@link Workload#graceNs}, with no crash: its slack plus, for a
 * protocol that recovers from crashed clients, one recovery bound) plus a real-time slack
 * ({@value #DEFAULT_SLACK_NS} ns unless set): a real machine deschedules threads, collects garbage
 * and, on tcp, waits for the network, where the simulator does none of that.
 *
 * <p>With a {@link StopRequest} (the command line's SIGTERM and Ctrl-C), a run stopped before its
 * end ends {@link RunEnd.How#INTERRUPTED}: every client is asked to stop after its current
 * operation and gets {@value #STOP_WINDOW_NS} ns for it, and the measurements cover the run up to
 * the stop (a partial result).
 *
 * <p><b>Ending a client from outside</b> is interrupting its thread: every wait and verb of a
 * real-time fabric then throws {@link io.lockfabric.fabric.WaitInterruptedException}, the client's
 * loop ends, and its measurement ends where it was cut off. A client that has not ended is
 * interrupted again every {@value #POLL_NS} ns for up to {@value #END_WAIT_NS} ns (the exception
 * clears the interrupt, so the protocol's own error handling, such as releasing the parts of a range
 * already taken, can run, and a wait in it is cut short in turn). Interrupting, not abandoning, is
 * what keeps a stuck client from spinning on in the background, disturbing the next run of the same
 * process and keeping its endpoint busy; client threads are also daemons, so one that ignored its
 * interrupt could not keep the JVM alive. A client interrupted in the middle of an acquisition
 * leaves the lock as a client crashing there would: a protocol with lease-based recovery recovers
 * it, another leaves it taken; the run's tables are its own (unless shared with other processes,
 * whose runs then meet their own deadline). In a checked run, the last exclusive hold of an
 * interrupted client may lack its guarded counter's increment, which the check allows for.
 *
 * <p>Immutable; drives one run at a time on the calling thread.
 */
public final class RealTimeDriver implements RunDriver {
    /** What a real machine adds to the workload's grace by default: 1 s. */
    public static final long DEFAULT_SLACK_NS = 1_000_000_000L;
    /** How often the driver looks at its clients, a stop request and the deadline. */
    static final long POLL_NS = 20_000_000L;
    /** How long clients asked to stop by a {@link StopRequest} get to finish their operation. */
    static final long STOP_WINDOW_NS = 250_000_000L;
    /** How long interrupted clients get to end before the driver gives up on them. */
    static final long END_WAIT_NS = 2_000_000_000L;

    private static final StopRequest NEVER = new StopRequest();

    private final Fabric fabric;
    private final long slackNs;
    private final StopRequest stop;

    /** A driver of runs on {@code fabric}, a real-time fabric, with the default slack and no stop request. */
    public RealTimeDriver(Fabric fabric) {
        this(fabric, DEFAULT_SLACK_NS, NEVER);
    }

    private RealTimeDriver(Fabric fabric, long slackNs, StopRequest stop) {
        this.fabric = Objects.requireNonNull(fabric, "fabric");
        if (slackNs < 0) {
            throw new IllegalArgumentException("slack must be >= 0, got " + slackNs + " ns");
        }
        this.slackNs = slackNs;
        this.stop = Objects.requireNonNull(stop, "stop");
    }

    /** This driver, adding {@code ns} instead of {@value #DEFAULT_SLACK_NS} ns to the workload's grace. */
    public RealTimeDriver withSlackNs(long ns) {
        return new RealTimeDriver(fabric, ns, stop);
    }

    /** This driver, ending a run early when {@code request} is requested. */
    public RealTimeDriver withStop(StopRequest request) {
        return new RealTimeDriver(fabric, slackNs, request);
    }

    @Override
    public Fabric fabric() {
        return fabric;
    }

    /** How long a client of a run of {@code workload} may take to finish its last operation. */
    public long graceNs(Workload<?> workload, FailureModel model) {
        return Workload.addTimes(workload.graceNs(model, 0), slackNs);
    }

    @Override
    public Driven drive(Run run) {
        Phases phases = run.workload().phases();
        long graceNs = graceNs(run.workload(), run.failureModel());
        long deadlineNs = phases.byOperations() ? Long.MAX_VALUE
                : Workload.addTimes(run.startNs() + phases.plannedNs(), graceNs);
        List<ClientThread> threads = run.threads();
        List<? extends Client> clients = run.clients();
        boolean[] returned = new boolean[threads.size()];
        RunEnd.How how;
        long now;
        while (true) {
            int waitingFor = firstRunning(threads, returned);
            now = fabric.observerNanoTime();
            if (waitingFor < 0) {
                return new Ended(RunEnd.COMPLETE, Set.of());
            }
            if (stop.requested()) {
                how = RunEnd.How.INTERRUPTED;
                break;
            }
            long boundNs = phases.byOperations()
                    ? Workload.addTimes(Math.max(run.startNs(), latestProgress(clients)), graceNs) : deadlineNs;
            if (now >= boundNs) {
                how = RunEnd.How.DEADLINE;
                break;
            }
            threads.get(waitingFor).join(Math.min(boundNs - now, POLL_NS));
        }
        long cutAtNs = now;
        List<Integer> cut = new ArrayList<>();
        for (int i = 0; i < threads.size(); i++) {
            if (!returned[i] && !threads.get(i).join(0)) {
                cut.add(i);
                clients.get(i).stop();
            }
        }
        if (cut.isEmpty()) {
            return new Ended(RunEnd.COMPLETE, Set.of()); // the last ones returned just now
        }
        if (how == RunEnd.How.INTERRUPTED) {
            awaitAll(threads, cut, STOP_WINDOW_NS, false);
        }
        List<Integer> interrupted = running(threads, cut);
        List<Integer> unended = awaitAll(threads, interrupted, END_WAIT_NS, true);
        List<RunEnd.StuckClient> stuck = new ArrayList<>();
        for (int i : cut) {
            long lastProgressNs = Math.max(run.startNs(), clients.get(i).lastProgressNs());
            if (cutAtNs - lastProgressNs >= graceNs || how == RunEnd.How.DEADLINE) {
                stuck.add(new RunEnd.StuckClient(i, lastProgressNs - run.startNs()));
            }
            clients.get(i).endAt(cutAtNs);
        }
        RunEnd end = new RunEnd(how, cutAtNs - run.startNs(), phases.plannedNs(), graceNs,
                how == RunEnd.How.INTERRUPTED ? stop.cause() : "", stuck, unended);
        return new Ended(end, new TreeSet<>(interrupted));
    }

    /** The first client not known to have returned, checking without waiting; -1 if all have. */
    private static int firstRunning(List<ClientThread> threads, boolean[] returned) {
        for (int i = 0; i < threads.size(); i++) {
            if (!returned[i]) {
                if (!threads.get(i).join(0)) {
                    return i;
                }
                returned[i] = true;
            }
        }
        return -1;
    }

    private static long latestProgress(List<? extends Client> clients) {
        long latest = Long.MIN_VALUE;
        for (Client c : clients) {
            latest = Math.max(latest, c.lastProgressNs());
        }
        return latest;
    }

    /** Those of {@code which} whose threads are still running. */
    private static List<Integer> running(List<ClientThread> threads, List<Integer> which) {
        return which.stream().filter(i -> !threads.get(i).join(0)).toList();
    }

    /**
     * Waits up to {@code timeoutNs} for the threads of {@code which} to end, interrupting those
     * still running every {@link #POLL_NS} if {@code interrupting}; those still running at the end.
     */
    private static List<Integer> awaitAll(List<ClientThread> threads, List<Integer> which, long timeoutNs,
                                          boolean interrupting) {
        long until = System.nanoTime() + timeoutNs;
        List<Integer> left = which;
        while (!left.isEmpty()) {
            if (interrupting) {
                left.forEach(i -> threads.get(i).interrupt());
            }
            long remaining = until - System.nanoTime();
            if (remaining <= 0) {
                break;
            }
            threads.get(left.getFirst()).join(Math.min(remaining, POLL_NS));
            left = running(threads, left);
        }
        return running(threads, left);
    }

    /** A run's end and the clients it interrupted. */
    private static final class Ended implements Driven {
        private final RunEnd end;
        private final Set<Integer> interrupted;
        private final Map<Long, Long> uncertain = new HashMap<>();

        Ended(RunEnd end, Set<Integer> interrupted) {
            this.end = end;
            this.interrupted = interrupted;
        }

        /**
         * The holds as recorded; notes, for each interrupted client, its last hold if exclusive: it
         * may have been cut inside its critical section, before its guarded increment.
         */
        @Override
        public List<Hold> adjust(List<Hold> holds) {
            if (!interrupted.isEmpty()) {
                Map<Integer, Hold> last = new HashMap<>();
                for (Hold h : holds) {
                    if (interrupted.contains(h.client())) {
                        last.merge(h.client(), h, (a, b) -> b.grantedAt() > a.grantedAt() ? b : a);
                    }
                }
                for (Hold h : last.values()) {
                    if (h.mode() == Mode.EXCLUSIVE) {
                        uncertain.merge(h.start(), 1L, Long::sum);
                    }
                }
            }
            return holds;
        }

        @Override
        public Map<Long, Long> uncertainIncrements() {
            return Map.copyOf(uncertain);
        }

        @Override
        public Outcome finish(CheckResult check, List<Hold> holds) {
            return new Outcome(check, FaultOutcome.NONE, null, end);
        }
    }

    @Override
    public String toString() {
        return "RealTimeDriver[" + fabric.name() + ", slack " + TimeUnit.NANOSECONDS.toMillis(slackNs) + " ms]";
    }
}
