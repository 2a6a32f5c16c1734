package io.lockfabric.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The output formats of a benchmark report, by the name used on the command line. */
public enum ReportFormat {
    /** An aligned table for people. */
    TABLE,
    /** A header line and one comma-separated row per run. */
    CSV,
    /** JSON Lines: one JSON object per run, one per line. */
    JSON;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public Report report() {
        return switch (this) {
            case TABLE -> new TableReport();
            case CSV -> new CsvReport();
            case JSON -> new JsonReport();
        };
    }

    /** The format of that name, case-insensitive. */
    public static ReportFormat byName(String name) {
        for (ReportFormat f : values()) {
            if (f.label().equalsIgnoreCase(name.trim())) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown format '" + name + "'; known: "
                + Arrays.stream(values()).map(ReportFormat::label).collect(Collectors.joining(", ")));
    }
}
