package io.lockfabric.fabric;

import java.util.Locale;

/**
 * Durations as people write them ({@code 250us}, {@code 1.5ms}, {@code 2s}, {@code 1m}) and back.
 * One parser for option values, command-line durations and fault plans.
 */
public final class Durations {
    private static final long NANOS_PER_MICRO = 1_000L;
    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long NANOS_PER_MINUTE = 60 * NANOS_PER_SECOND;

    private Durations() {
    }

    /**
     * Nanoseconds of a duration with a unit ({@code ns}, {@code us} or {@code µs}, {@code ms},
     * {@code s}, {@code m}); the number may have a fraction and {@code _} separators. A bare
     * {@code 0} needs no unit.
     *
     * @throws IllegalArgumentException if the text is not a duration >= 0 with a unit, nor {@code 0}
     */
    public static long parseNanos(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT).replace("_", "");
        if (t.equals("0")) {
            return 0;
        }
        long scale;
        int unit;
        if (t.endsWith("ns")) {
            scale = 1;
            unit = 2;
        } else if (t.endsWith("us") || t.endsWith("µs")) {
            scale = NANOS_PER_MICRO;
            unit = 2;
        } else if (t.endsWith("ms")) {
            scale = NANOS_PER_MILLI;
            unit = 2;
        } else if (t.endsWith("s")) {
            scale = NANOS_PER_SECOND;
            unit = 1;
        } else if (t.endsWith("m")) {
            scale = NANOS_PER_MINUTE;
            unit = 1;
        } else {
            throw notADuration(text);
        }
        String number = t.substring(0, t.length() - unit).trim();
        double amount;
        try {
            amount = Double.parseDouble(number);
        } catch (NumberFormatException e) {
            throw notADuration(text);
        }
        if (!(amount >= 0) || Double.isInfinite(amount) || amount * scale >= Long.MAX_VALUE
                || number.endsWith("d") || number.endsWith("f")) {
            throw notADuration(text);
        }
        return Math.round(amount * scale);
    }

    /** A short human form: {@code 850ns}, {@code 12.5us}, {@code 10ms}, {@code 2s}. */
    public static String format(long nanos) {
        if (nanos == Long.MAX_VALUE) {
            return "inf";
        }
        if (nanos < NANOS_PER_MICRO) {
            return nanos + "ns";
        }
        if (nanos < NANOS_PER_MILLI) {
            return trim(nanos / (double) NANOS_PER_MICRO) + "us";
        }
        if (nanos < NANOS_PER_SECOND) {
            return trim(nanos / (double) NANOS_PER_MILLI) + "ms";
        }
        return trim(nanos / (double) NANOS_PER_SECOND) + "s";
    }

    private static String trim(double v) {
        String s = String.format(Locale.ROOT, "%.3f", v);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    private static IllegalArgumentException notADuration(String text) {
        return new IllegalArgumentException("'" + text + "' is not a duration: give a number >= 0 with a unit, "
                + "e.g. 2s, 500ms, 250us, 800ns");
    }
}
