package io.lockfabric.sim;

import io.lockfabric.lock.Durations;

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
 *   crash[=N]           N clients crash (default 1), at seed-chosen times, holding what they hold
 *   pause[=N[@LEN]]     N stop-the-world pauses of clients (default 1); LEN each, or seed-chosen
 *                       log-uniformly in [1us, 20ms]
 *   mn-pause[=N[@LEN]]  N pauses of a memory node's NIC; LEN or seed-chosen in [1us, 1ms]
 *   drop[=P]            every client-to-client message is lost with probability P (default 0.01)
 *   delay[=P[@LEN]]     every message is delayed with probability P (default 0.1) by LEN, or by a
 *                       seed-chosen time in [0, 100us]
 *   none                no faults
 * </pre>
 *
 * Crashes and pauses fall uniformly in the run's horizon ({@link #schedule}); the same seed gives
 * the same schedule.
 */
public record FaultPlan(int crashes, int pauses, long pauseLengthNs, int mnPauses, long mnPauseLengthNs,
                        double dropProbability, double delayProbability, long delayNs) {
    public static final FaultPlan NONE = new FaultPlan(0, 0, 0, 0, 0, 0, 0, 0);
    /** Range of seed-chosen client pause lengths (log-uniform). */
    public static final long MIN_PAUSE_NS = 1_000;
    public static final long MAX_PAUSE_NS = 20_000_000;
    public static final long MAX_MN_PAUSE_NS = 1_000_000;
    public static final long MAX_DELAY_NS = 100_000;
    public static final double DEFAULT_DROP = 0.01;
    public static final double DEFAULT_DELAY = 0.1;
    private static final long SCHEDULE_SALT = 0x5DEECE66DL;

    public FaultPlan {
        if (crashes < 0 || pauses < 0 || mnPauses < 0) {
            throw new IllegalArgumentException("fault counts must be >= 0");
        }
        if (pauseLengthNs < 0 || mnPauseLengthNs < 0 || delayNs < 0) {
            throw new IllegalArgumentException("fault lengths must be >= 0");
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
            int eq = item.indexOf('=');
            String name = eq < 0 ? item : item.substring(0, eq);
            String value = eq < 0 ? null : item.substring(eq + 1);
            String count = value == null ? null : before(value);
            long length = value == null ? 0 : lengthAfter(name, value);
            plan = switch (name) {
                case "none" -> plan;
                case "crash" -> {
                    if (length != 0) {
                        throw new IllegalArgumentException("fault 'crash' takes a count only: crash=N");
                    }
                    yield plan.with(count(name, count), plan.pauses, plan.pauseLengthNs, plan.mnPauses,
                            plan.mnPauseLengthNs, plan.dropProbability, plan.delayProbability, plan.delayNs);
                }
                case "pause" -> plan.with(plan.crashes, count(name, count), length, plan.mnPauses,
                        plan.mnPauseLengthNs, plan.dropProbability, plan.delayProbability, plan.delayNs);
                case "mn-pause" -> plan.with(plan.crashes, plan.pauses, plan.pauseLengthNs, count(name, count), length,
                        plan.dropProbability, plan.delayProbability, plan.delayNs);
                case "drop" -> {
                    if (length != 0) {
                        throw new IllegalArgumentException("fault 'drop' takes a probability only: drop=P");
                    }
                    yield plan.with(plan.crashes, plan.pauses, plan.pauseLengthNs, plan.mnPauses,
                            plan.mnPauseLengthNs, chance(name, count, DEFAULT_DROP), plan.delayProbability,
                            plan.delayNs);
                }
                case "delay" -> plan.with(plan.crashes, plan.pauses, plan.pauseLengthNs, plan.mnPauses,
                        plan.mnPauseLengthNs, plan.dropProbability, chance(name, count, DEFAULT_DELAY), length);
                default -> throw new IllegalArgumentException("unknown fault '" + name
                        + "'; known: crash, pause, mn-pause, drop, delay, none");
            };
        }
        return plan;
    }

    private FaultPlan with(int crashes, int pauses, long pauseLengthNs, int mnPauses, long mnPauseLengthNs,
                           double drop, double delay, long delayNs) {
        return new FaultPlan(crashes, pauses, pauseLengthNs, mnPauses, mnPauseLengthNs, drop, delay, delayNs);
    }

    public boolean isNone() {
        return equals(NONE);
    }

    /** Whether any client may crash. */
    public boolean crashesClients() {
        return crashes > 0;
    }

    /** The longest client pause this plan can produce. */
    public long maxPauseNs() {
        return pauses == 0 ? 0 : pauseLengthNs > 0 ? pauseLengthNs : MAX_PAUSE_NS;
    }

    /** The longest memory-node pause this plan can produce. */
    public long maxMnPauseNs() {
        return mnPauses == 0 ? 0 : mnPauseLengthNs > 0 ? mnPauseLengthNs : MAX_MN_PAUSE_NS;
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
        if (clients < 1 || memoryNodes < 1 || horizonNs < 1) {
            throw new IllegalArgumentException("a fault schedule needs clients, memory nodes and a horizon");
        }
        SplittableRandom random = new SplittableRandom(seed ^ SCHEDULE_SALT);
        List<Fault> faults = new ArrayList<>();
        for (int i = 0; i < crashes; i++) {
            faults.add(new Fault(Fault.Kind.CRASH, random.nextInt(clients), startNs + random.nextLong(horizonNs), 0));
        }
        for (int i = 0; i < pauses; i++) {
            long length = pauseLengthNs > 0 ? pauseLengthNs : logUniform(random, MIN_PAUSE_NS, MAX_PAUSE_NS);
            faults.add(new Fault(Fault.Kind.PAUSE, random.nextInt(clients), startNs + random.nextLong(horizonNs),
                    length));
        }
        for (int i = 0; i < mnPauses; i++) {
            long length = mnPauseLengthNs > 0 ? mnPauseLengthNs : logUniform(random, MIN_PAUSE_NS, MAX_MN_PAUSE_NS);
            faults.add(new Fault(Fault.Kind.MN_PAUSE, random.nextInt(memoryNodes),
                    startNs + random.nextLong(horizonNs), length));
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
        if (pauses > 0) {
            items.add("pause=" + pauses + (pauseLengthNs > 0 ? "@" + Durations.format(pauseLengthNs) : ""));
        }
        if (mnPauses > 0) {
            items.add("mn-pause=" + mnPauses + (mnPauseLengthNs > 0 ? "@" + Durations.format(mnPauseLengthNs) : ""));
        }
        if (dropProbability > 0) {
            items.add("drop=" + dropProbability);
        }
        if (delayProbability > 0) {
            items.add("delay=" + delayProbability + (delayNs > 0 ? "@" + Durations.format(delayNs) : ""));
        }
        return items.isEmpty() ? "none" : String.join(",", items);
    }

    @Override
    public String toString() {
        return spec();
    }

    private static long logUniform(SplittableRandom random, long min, long max) {
        double u = random.nextDouble();
        return Math.round(Math.exp(Math.log(min) + u * (Math.log(max) - Math.log(min))));
    }

    private static String before(String value) {
        int at = value.indexOf('@');
        return at < 0 ? value : value.substring(0, at);
    }

    private static long lengthAfter(String name, String value) {
        int at = value.indexOf('@');
        if (at < 0) {
            return 0;
        }
        long length = Durations.parseNanos(value.substring(at + 1));
        if (length <= 0) {
            throw new IllegalArgumentException("fault '" + name + "': the length must be positive");
        }
        return length;
    }

    private static int count(String name, String text) {
        if (text == null || text.isEmpty()) {
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
        if (text == null || text.isEmpty()) {
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
