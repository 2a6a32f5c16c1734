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
 *   none                   no faults
 * </pre>
 *
 * Crashes and pauses fall uniformly in the run's horizon ({@link #schedule}); the same seed gives
 * the same schedule.
 */
public record FaultPlan(int crashes, Pauses clientPauses, Pauses mnPauses, double dropProbability,
                        double delayProbability, long delayNs) {
    public static final Pauses DEFAULT_CLIENT_PAUSES = new Pauses(1, 1_000, 20_000_000);
    public static final Pauses DEFAULT_MN_PAUSES = new Pauses(1, 1_000, 1_000_000);
    public static final FaultPlan NONE = new FaultPlan(0, Pauses.NONE, Pauses.NONE, 0, 0, 0);
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

    public FaultPlan {
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
                        plan.dropProbability, plan.delayProbability, plan.delayNs);
                case "pause" -> new FaultPlan(plan.crashes, pauses(name, amount, length, DEFAULT_CLIENT_PAUSES),
                        plan.mnPauses, plan.dropProbability, plan.delayProbability, plan.delayNs);
                case "mn-pause" -> new FaultPlan(plan.crashes, plan.clientPauses,
                        pauses(name, amount, length, DEFAULT_MN_PAUSES), plan.dropProbability,
                        plan.delayProbability, plan.delayNs);
                case "drop" -> new FaultPlan(plan.crashes, plan.clientPauses, plan.mnPauses,
                        chance(name, amount, DEFAULT_DROP), plan.delayProbability, plan.delayNs);
                case "delay" -> new FaultPlan(plan.crashes, plan.clientPauses, plan.mnPauses, plan.dropProbability,
                        chance(name, amount, DEFAULT_DELAY), length == null ? 0 : positive(name, length));
                default -> throw new IllegalArgumentException("unknown fault '" + name
                        + "'; known: crash, pause, mn-pause, drop, delay, none");
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
        if (clients < 1 || memoryNodes < 1 || horizonNs < 1) {
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
        return items.isEmpty() ? "none" : String.join(",", items);
    }

    @Override
    public String toString() {
        return spec();
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
