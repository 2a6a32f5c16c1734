package io.lockfabric.bench.experiment;

import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.Testbed;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How to run an experiment: its seed, optional overrides of every case's warmup and measured
 * window (0 keeps the experiment's own: the bands are meant for those), whether to show
 * progress on {@code progressOut}, and, for experiments that {@link Experiment#selectsProtocols()},
 * the protocols to run instead of the experiment's own list (empty: the experiment's own), and the
 * simulated testbed ({@code testbed}: empty, the experiment's own; {@code none}, the simulator's
 * defaults; else a {@link Testbed} name).
 */
public record ExperimentSettings(long seed, long warmupNs, long durationNs, boolean showProgress,
                                 PrintStream progressOut, List<String> protocols, String testbed) {
    public static final long DEFAULT_SEED = 42;

    public ExperimentSettings {
        Objects.requireNonNull(progressOut, "progressOut");
        protocols = List.copyOf(protocols);
        Objects.requireNonNull(testbed, "testbed");
        if (warmupNs < 0 || durationNs < 0) {
            throw new IllegalArgumentException("warmup and duration must be >= 0");
        }
        if (!testbed.isEmpty()) {
            Testbed.parse(testbed);
        }
    }

    /** The experiment's own windows, the default seed, no progress, the experiment's own testbed. */
    public static ExperimentSettings defaults() {
        return new ExperimentSettings(DEFAULT_SEED, 0, 0, false, new PrintStream(OutputStream.nullOutputStream()),
                List.of(), "");
    }

    public ExperimentSettings withSeed(long value) {
        return new ExperimentSettings(value, warmupNs, durationNs, showProgress, progressOut, protocols, testbed);
    }

    /** Overrides every case's warmup (0: the experiment's own). */
    public ExperimentSettings withWarmupNs(long value) {
        return new ExperimentSettings(seed, value, durationNs, showProgress, progressOut, protocols, testbed);
    }

    /** Overrides every case's measured window (0: the experiment's own). */
    public ExperimentSettings withDurationNs(long value) {
        return new ExperimentSettings(seed, warmupNs, value, showProgress, progressOut, protocols, testbed);
    }

    public ExperimentSettings withProgress(boolean show, PrintStream out) {
        return new ExperimentSettings(seed, warmupNs, durationNs, show, out, protocols, testbed);
    }

    /** Runs only {@code names} (experiments that select protocols; empty: the experiment's own list). */
    public ExperimentSettings withProtocols(List<String> names) {
        return new ExperimentSettings(seed, warmupNs, durationNs, showProgress, progressOut, names, testbed);
    }

    /**
     * Runs every simulated case on testbed {@code name} ({@code none}: the simulator's defaults; empty:
     * the experiment's own).
     *
     * @throws IllegalArgumentException if {@code name} is no testbed
     */
    public ExperimentSettings withTestbed(String name) {
        return new ExperimentSettings(seed, warmupNs, durationNs, showProgress, progressOut, protocols,
                name.trim());
    }

    /** The testbed the cases run on: the one asked for, else {@code own} (empty: the simulator's defaults). */
    public Optional<Testbed> testbedOr(Optional<Testbed> own) {
        return testbed.isEmpty() ? own : Testbed.parse(testbed);
    }

    /**
     * What the simulated cases run on, for a setup line: {@code "sim defaults"}, or
     * {@code "sim testbed NAME"} on a testbed profile ({@code own} unless one was asked for).
     */
    public String simModel(Optional<Testbed> own) {
        return testbedOr(own).map(t -> "sim testbed " + t.cliName()).orElse("sim defaults");
    }

    /**
     * {@code builder} with the hardware of {@link #testbedOr the testbed the cases run on} ({@code own}
     * unless one was asked for); the builder unchanged on none.
     */
    public SimConfig.Builder onTestbed(Optional<Testbed> own, SimConfig.Builder builder) {
        testbedOr(own).ifPresent(t -> t.apply(builder));
        return builder;
    }

    /** Shows {@code "[done/total] label"} on the progress stream, if progress is shown. */
    public void progress(int done, int total, String label) {
        if (showProgress) {
            progressOut.printf("[%d/%d] %s%n", done, total, label);
        }
    }

    /** {@code own} unless overridden. */
    public long warmupOr(long own) {
        return warmupNs > 0 ? warmupNs : own;
    }

    /** {@code own} unless overridden. */
    public long durationOr(long own) {
        return durationNs > 0 ? durationNs : own;
    }
}
