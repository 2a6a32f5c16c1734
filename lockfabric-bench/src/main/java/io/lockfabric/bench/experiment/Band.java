package io.lockfabric.bench.experiment;

import java.util.Locale;

/**
 * How far a reproduced value may lie from the paper's and still count as agreeing: a fraction of
 * the paper's value ({@link Kind#RELATIVE}, for rates) or a distance in the metric's own unit
 * ({@link Kind#ABSOLUTE}, for shares and values near zero).
 *
 * @param width a fraction (0.25 is ±25%) or an amount of the unit; > 0
 */
public record Band(Kind kind, double width) {
    public enum Kind {
        RELATIVE,
        ABSOLUTE
    }

    public Band {
        if (!(width > 0) || Double.isInfinite(width)) {
            throw new IllegalArgumentException("band width must be a positive number, got " + width);
        }
    }

    /** ±{@code fraction} of the paper's value. */
    public static Band relative(double fraction) {
        return new Band(Kind.RELATIVE, fraction);
    }

    /** ±{@code amount} in the metric's unit. */
    public static Band absolute(double amount) {
        return new Band(Kind.ABSOLUTE, amount);
    }

    /**
     * {@code ours − paper}, as a fraction of {@code paper} for a relative band.
     *
     * @throws IllegalArgumentException for a relative band around 0
     */
    public double difference(double paper, double ours) {
        if (kind == Kind.ABSOLUTE) {
            return ours - paper;
        }
        if (paper == 0) {
            throw new IllegalArgumentException("a relative band needs a non-zero paper value");
        }
        return (ours - paper) / Math.abs(paper);
    }

    public boolean contains(double paper, double ours) {
        return Math.abs(difference(paper, ours)) <= width;
    }

    /** {@code "±25%"}, or {@code "±5 pp"} for an absolute band on a percentage, {@code "±0.5 µs"} otherwise. */
    public String describe(String unit) {
        return "±" + amount(width, unit);
    }

    /** A difference as this band measures it: {@code "+5.7%"}, {@code "-7.5 pp"}. */
    public String describeDifference(double difference, String unit) {
        return (difference < 0 ? "-" : "+") + amount(Math.abs(difference), unit);
    }

    private String amount(double v, String unit) {
        if (kind == Kind.RELATIVE) {
            return String.format(Locale.ROOT, "%.1f%%", v * 100).replace(".0%", "%");
        }
        String n = v < 1 ? String.format(Locale.ROOT, "%.2f", v).replaceAll("0$", "")
                : String.format(Locale.ROOT, "%.1f", v).replace(".0", "");
        return n + " " + ("%".equals(unit) ? "pp" : unit);
    }
}
