package io.lockfabric.cli;

import io.lockfabric.fabric.Durations;
import picocli.CommandLine;

/**
 * Parses a duration with a unit, {@code 2s}, {@code 500ms}, {@code 250us}, {@code 100ns} or
 * {@code 1m}, into nanoseconds. The unit is required, so {@code --duration 5} is an error rather
 * than a guess.
 */
final class DurationConverter implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
        try {
            return Durations.parseNanos(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
