package io.lockfabric.sim;

import io.lockfabric.fabric.Durations;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Which faults a simulated run suffers; the seed decides when and whom they hit. Written as a
 * comma-separated list ({@link #parse}):
 *
 * <pre>
 *   crash[=N]              N clients crash (default 1) at seed-chosen times, holding what they hold
 *   pause[=N][@LEN]        N stop-the-world pauses of clients (default 1), each LEN long; LEN is a
 *                          duration or a range MIN..MAX (seed-chosen, log-uniform); default 1us..20ms
 *   mn-pause[=N][@LEN]     N pauses of a memory node's NIC; default length 1us..1ms
 *   drop[=P]               every client-to-client message is lost with probability P (default 0.01)
 *   delay[=P][@LEN]        every message is delayed with probability P (default 0.1) by LEN, or by a
 *                          seed-chosen time in [0, 100us]
 *   cn-crash@T[:CN]        at T, every client of compute node CN (default: seed-chosen among the
 *                          run's compute nodes) stops forever at once, holding what it holds
 *   mn-restart@T[:LEN[:MN]] at T, memory node MN (default: seed-chosen; with one, that one) fails
 *                          for LEN (default 1ms): its memory is lost, verbs to it fail, and it comes
 *                          back empty (every table zeroed) under a new generation
 *                          ({@link SimFabric#restartMemoryNodeAt})
 *   none                   no faults
 * </pre>
 *
 * Crashes and pauses fall uniformly in the run's horizon ({@link #schedule}); the same seed gives
 * the same schedule. The timed faults ({@code cn-crash}, {@code mn-restart}, which may be listed
 * several times) happen at their {@code T} after the start of the run (the horizon's origin,
 * warmup included).
 */
public record FaultPlan(int crashes, Pauses clientPauses, Pauses mnPauses, double dropProbability,
                        double delayProbability, long delayNs, List<Timed> timed) {
    public static final Pauses DEFAULT_CLIENT_PAUSES = new Pauses(1, 1_000, 20_000_000);
    public static final Pauses DEFAULT_MN_PAUSES = new Pauses(1, 1_000, 1_000_000);
    public static final FaultPlan NONE = new FaultPlan(0, Pauses.NONE, Pauses.NONE, 0, 0, 0);
    /** The outage of an {@code mn-restart} without a length. */
    public static final long DEFAULT_MN_RESTART_NS = 1_000_000;

    /**
     * A fault at a fixed time: {@link Fault.Kind#CN_CRASH} or {@link Fault.Kind#MN_RESTART}, at
     * {@code atNs} after the run's start, {@code lengthNs} long (the restart's outage; 0 for a
     * crash), on {@code target} (a compute node or memory node), or on a seed-chosen one if -1.
     */
    public record Timed(Fault.Kind kind, long atNs, long lengthNs, int target) {
        public Timed {
            if (kind != Fault.Kind.CN_CRASH && kind != Fault.Kind.MN_RESTART) {
                throw new IllegalArgumentException("only cn-crash and mn-restart are timed faults, not " + kind.label());
            }
            if (atNs < 0 || lengthNs < 0 || target < -1) {
                throw new IllegalArgumentException(kind.label() + ": time, length and target must be >= 0");
            }
            if (kind == Fault.Kind.MN_RESTART && lengthNs <= 0) {
                throw new IllegalArgumentException("mn-restart: the outage must be positive");
            }
        }

        String spec() {
            String at = kind.label() + "@" + Durations.format(atNs);
            return kind == Fault.Kind.CN_CRASH ? at + (target >= 0 ? ":" + target : "")
                    : at + ":" + Durations.format(lengthNs) + (target >= 0 ? ":" + target : "");
        }
    }
    public static final long MAX_DELAY_NS = 100_000;
    public static final double DEFAULT_DROP = 0.01;
    public static final double DEFAULT_DELAY = 0.1;
    private static final long SCHEDULE_SALT = 0x5DEECE66DL;

    /** {@code count} pauses, each of a length in [{@code minNs}, {@code maxNs}] (log-uniform). */
    public record Pauses(int count, long minNs, long maxNs) {
        public static final Pauses NONE = new Pauses(0, 0, 0);

        public Pauses {
            if (count < 0) {
                throw new IllegalArgumentException("pause count must be >= 0");
            }
            if (count > 0 && (minNs <= 0 || maxNs < minNs)) {
                throw new IllegalArgumentException("pause lengths must be positive, min <= max");
            }
        }

        long length(SplittableRandom random) {
            if (minNs == maxNs) {
                return minNs;
            }
            double u = random.nextDouble();
            return Math.round(Math.exp(Math.log(minNs) + u * (Math.log(maxNs) - Math.log(minNs))));
        }

        String spec(String name, Pauses defaults) {
            if (count == 0) {
                return null;
            }
            String length = minNs == defaults.minNs && maxNs == defaults.maxNs ? ""
                    : "@" + Durations.format(minNs) + (minNs == maxNs ? "" : ".." + Durations.format(maxNs));
            return name + "=" + count + length;
        }
    }

    /** A plan without timed faults. */
    public FaultPlan(int crashes, Pauses clientPauses, Pauses mnPauses, double dropProbability,
                     double delayProbability, long delayNs) {
        this(crashes, clientPauses, mnPauses, dropProbability, delayProbability, delayNs, List.of());
    }

    public FaultPlan {
        timed = List.copyOf(timed);
        if (crashes < 0 || delayNs < 0) {
            throw new IllegalArgumentException("crash count and delay must be >= 0");
        }
        probability("drop", dropProbability);
        probability("delay", delayProbability);
    }

    /** Parses a fault list such as {@code crash,pause=2@5ms,drop=0.05}; see the class comment. */
    public static FaultPlan parse(String spec) {
        FaultPlan plan = NONE;
        if (spec == null || spec.isBlank()) {
            return plan;
        }
        for (String raw : spec.split(",")) {
            String item = raw.trim().toLowerCase(Locale.ROOT);
            if (item.isEmpty()) {
                continue;
            }
            if (item.startsWith("cn-crash") || item.startsWith("mn-restart")) {
                List<Timed> more = new ArrayList<>(plan.timed);
                more.add(timed(item));
                plan = new FaultPlan(plan.crashes, plan.clientPauses, plan.mnPauses, plan.dropProbability,
                        plan.delayProbability, plan.delayNs, more);
                continue;
            }
            int eq = item.indexOf('=');
            int lengthMark = item.indexOf('@');
            int nameEnd = eq >= 0 ? eq : lengthMark >= 0 ? lengthMark : item.length();
            String name = item.substring(0, nameEnd).trim();
            String value = eq >= 0 ? item.substring(eq + 1) : item.substring(nameEnd);
            int at = value.indexOf('@');
            String amount = at < 0 ? value : value.substring(0, at);
            String length = at < 0 ? null : value.substring(at + 1);
            if (length != null && !(name.equals("pause") || name.equals("mn-pause") || name.equals("delay"))) {
                throw new IllegalArgumentException("fault '" + name + "' takes no length (@...)");
            }
            plan = switch (name) {
                case "none" -> plan;
                case "crash" -> new FaultPlan(count(name, amount), plan.clientPauses, plan.mnPauses,
                        plan.dropProbability, plan.delayProbability, plan.delayNs, plan.timed);
                case "pause" -> new FaultPlan(plan.crashes, pauses(name, amount, length, DEFAULT_CLIENT_PAUSES),
                        plan.mnPauses, plan.dropProbability, plan.delayProbability, plan.delayNs, plan.timed);
                case "mn-pause" -> new FaultPlan(plan.crashes, plan.clientPauses,
                        pauses(name, amount, length, DEFAULT_MN_PAUSES), plan.dropProbability,
                        plan.delayProbability, plan.delayNs, plan.timed);
                case "drop" -> new FaultPlan(plan.crashes, plan.clientPauses, plan.mnPauses,
                        chance(name, amount, DEFAULT_DROP), plan.delayProbability, plan.delayNs, plan.timed);
                case "delay" -> new FaultPlan(plan.crashes, plan.clientPauses, plan.mnPauses, plan.dropProbability,
                        chance(name, amount, DEFAULT_DELAY), length == null ? 0 : positive(name, length), plan.timed);
                default -> throw new IllegalArgumentException("unknown fault '" + name
                        + "'; known: crash, pause, mn-pause, drop, delay, cn-crash, mn-restart, none");
            };
        }
        return plan;
    }

    public boolean isNone() {
        return equals(NONE);
    }

    /** The longest extra delay of a message. */
    public long maxDelayNs() {
        return delayProbability == 0 ? 0 : delayNs > 0 ? delayNs : MAX_DELAY_NS;
    }

    /**
     * The crashes and pauses of one run, in time order: each at a uniform time in
     * [{@code startNs}, {@code startNs + horizonNs}), on a uniform client of {@code clients} (or
     * memory node of {@code memoryNodes}); a function of {@code seed} alone.
     */
    public List<Fault> schedule(long seed, int clients, int memoryNodes, long startNs, long horizonNs) {
        return schedule(seed, clients, 1, memoryNodes, startNs, horizonNs);
    }

    /**
     * As {@link #schedule(long, int, int, long, long)}, with the timed faults at their times after
     * {@code startNs}; a {@code cn-crash} without a compute node hits a uniform one of
     * {@code computeNodes} (the compute nodes the run's clients are on). The timed faults draw from
     * the seed after the others, so adding one moves none of them.
     */
    public List<Fault> schedule(long seed, int clients, int computeNodes, int memoryNodes, long startNs,
                                long horizonNs) {
        if (clients < 1 || computeNodes < 1 || memoryNodes < 1 || horizonNs < 1) {
            throw new IllegalArgumentException("a fault schedule needs clients, memory nodes and a horizon");
        }
        SplittableRandom random = new SplittableRandom(seed ^ SCHEDULE_SALT);
        List<Fault> faults = new ArrayList<>();
        for (int i = 0; i < crashes; i++) {
            faults.add(new Fault(Fault.Kind.CRASH, random.nextInt(clients), startNs + random.nextLong(horizonNs), 0));
        }
        for (int i = 0; i < clientPauses.count(); i++) {
            long length = clientPauses.length(random);
            faults.add(new Fault(Fault.Kind.PAUSE, random.nextInt(clients), startNs + random.nextLong(horizonNs),
                    length));
        }
        for (int i = 0; i < mnPauses.count(); i++) {
            long length = mnPauses.length(random);
            faults.add(new Fault(Fault.Kind.MN_PAUSE, random.nextInt(memoryNodes),
                    startNs + random.nextLong(horizonNs), length));
        }
        for (Timed t : timed) {
            int target = t.target() >= 0 ? t.target()
                    : random.nextInt(t.kind() == Fault.Kind.CN_CRASH ? computeNodes : memoryNodes);
            faults.add(new Fault(t.kind(), target, startNs + t.atNs(), t.lengthNs()));
        }
        faults.sort(Comparator.comparingLong(Fault::atNs));
        return faults;
    }

    /** The canonical text of this plan, which {@link #parse} reads back to an equal plan. */
    public String spec() {
        List<String> items = new ArrayList<>();
        if (crashes > 0) {
            items.add("crash=" + crashes);
        }
        String p = clientPauses.spec("pause", DEFAULT_CLIENT_PAUSES);
        if (p != null) {
            items.add(p);
        }
        String m = mnPauses.spec("mn-pause", DEFAULT_MN_PAUSES);
        if (m != null) {
            items.add(m);
        }
        if (dropProbability > 0) {
            items.add("drop=" + dropProbability);
        }
        if (delayProbability > 0) {
            items.add("delay=" + delayProbability + (delayNs > 0 ? "@" + Durations.format(delayNs) : ""));
        }
        timed.forEach(t -> items.add(t.spec()));
        return items.isEmpty() ? "none" : String.join(",", items);
    }

    @Override
    public String toString() {
        return spec();
    }

    /** The compute-node crashes among the timed faults. */
    public int computeNodeCrashes() {
        return (int) timed.stream().filter(t -> t.kind() == Fault.Kind.CN_CRASH).count();
    }

    /** The memory-node restarts among the timed faults. */
    public int memoryNodeRestarts() {
        return (int) timed.stream().filter(t -> t.kind() == Fault.Kind.MN_RESTART).count();
    }

    /** {@code cn-crash@T[:CN]} or {@code mn-restart@T[:LEN[:MN]]}. */
    private static Timed timed(String item) {
        boolean crash = item.startsWith("cn-crash");
        String name = crash ? "cn-crash" : "mn-restart";
        String rest = item.substring(name.length()).trim();
        if (!rest.startsWith("@") || rest.length() == 1) {
            throw new IllegalArgumentException("fault '" + name + "' needs a time: " + name
                    + (crash ? "@T[:CN], e.g. cn-crash@20ms" : "@T[:LEN[:MN]], e.g. mn-restart@40ms:5ms"));
        }
        String[] parts = rest.substring(1).split(":", -1);
        if (parts.length > (crash ? 2 : 3)) {
            throw new IllegalArgumentException("fault '" + name + "': '" + rest.substring(1) + "' is not T[:"
                    + (crash ? "CN" : "LEN[:MN]") + "]");
        }
        long at = Durations.parseNanos(parts[0].trim());
        if (at < 0) {
            throw new IllegalArgumentException("fault '" + name + "': the time must be >= 0");
        }
        if (crash) {
            int cn = parts.length == 1 ? -1 : count(name, parts[1].trim());
            return new Timed(Fault.Kind.CN_CRASH, at, 0, cn);
        }
        long length = parts.length == 1 || parts[1].isBlank() ? DEFAULT_MN_RESTART_NS : positive(name, parts[1].trim());
        int mn = parts.length < 3 ? -1 : count(name, parts[2].trim());
        return new Timed(Fault.Kind.MN_RESTART, at, length, mn);
    }

    private static Pauses pauses(String name, String amount, String length, Pauses defaults) {
        int count = count(name, amount);
        if (length == null) {
            return new Pauses(count, defaults.minNs(), defaults.maxNs());
        }
        int range = length.indexOf("..");
        if (range < 0) {
            long ns = positive(name, length);
            return new Pauses(count, ns, ns);
        }
        long min = positive(name, length.substring(0, range));
        long max = positive(name, length.substring(range + 2));
        if (max < min) {
            throw new IllegalArgumentException("fault '" + name + "': length range " + length + " has min > max");
        }
        return new Pauses(count, min, max);
    }

    private static long positive(String name, String text) {
        long ns = Durations.parseNanos(text);
        if (ns <= 0) {
            throw new IllegalArgumentException("fault '" + name + "': the length must be positive");
        }
        return ns;
    }

    private static int count(String name, String text) {
        if (text.isEmpty()) {
            return 1;
        }
        try {
            int n = Integer.parseInt(text);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("fault '" + name + "': '" + text + "' is not a count >= 0");
        }
    }

    private static double chance(String name, String text, double defaultValue) {
        if (text.isEmpty()) {
            return defaultValue;
        }
        try {
            double p = Double.parseDouble(text);
            probability(name, p);
            return p;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("fault '" + name + "': '" + text + "' is not a probability in [0, 1]");
        }
    }

    private static void probability(String name, double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException("fault '" + name + "': probability must be in [0, 1], got " + p);
        }
    }
}
