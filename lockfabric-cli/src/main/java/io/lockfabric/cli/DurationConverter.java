package io.lockfabric.cli;

import picocli.CommandLine;

import java.util.Locale;

/**
 * Parses a duration with a unit, {@code 2s}, {@code 500ms}, {@code 250us}, {@code 100ns} or
 * {@code 1m}, into nanoseconds. The unit is required, so {@code --duration 5} is an error rather
 * than a guess.
 */
final class DurationConverter implements CommandLine.ITypeConverter<Long> {
    private static final long NANOS_PER_MICRO = 1_000L;
    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long NANOS_PER_MINUTE = 60 * NANOS_PER_SECOND;

    @Override
    public Long convert(String value) {
        return parseNanos(value);
    }

    static long parseNanos(String value) {
        String t = value.trim().toLowerCase(Locale.ROOT).replace("_", "");
        long scale;
        String number;
        if (t.endsWith("ns")) {
            scale = 1;
            number = t.substring(0, t.length() - 2);
        } else if (t.endsWith("us") || t.endsWith("µs")) {
            scale = NANOS_PER_MICRO;
            number = t.substring(0, t.length() - 2);
        } else if (t.endsWith("ms")) {
            scale = NANOS_PER_MILLI;
            number = t.substring(0, t.length() - 2);
        } else if (t.endsWith("s")) {
            scale = NANOS_PER_SECOND;
            number = t.substring(0, t.length() - 1);
        } else if (t.endsWith("m")) {
            scale = NANOS_PER_MINUTE;
            number = t.substring(0, t.length() - 1);
        } else {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a duration: give a number with a unit, e.g. 2s, 500ms, 250us");
        }
        try {
            double amount = Double.parseDouble(number.trim());
            if (!(amount >= 0) || Double.isInfinite(amount) || amount * scale > Long.MAX_VALUE) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a duration >= 0");
            }
            return Math.round(amount * scale);
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a duration: give a number with a unit, e.g. 2s, 500ms, 250us");
        }
    }
}
