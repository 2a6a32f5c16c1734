package io.lockfabric.bench.report;

import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.ExperimentReport;
import io.lockfabric.bench.experiment.ExperimentResult;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.experiment.Figure;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Runs experiments in turn and writes the reproduction report into a directory: for each experiment its
 * plots ({@code <name>-<figure>.png}, {@code <name>-bands.png}) and its result as JSON
 * ({@code <name>.json}, what {@code reproduce NAME --format json} prints), and one Markdown page
 * ({@code README.md}, {@link ReportPage}) with a summary, the plots, tables, comparisons and discussion.
 * The page is rewritten after every experiment, so an interrupted run keeps what it finished. An
 * experiment that throws is reported as failed (in the page and the summary) and the next one runs; a
 * figure that cannot be drawn is named in the page and does not fail its experiment.
 *
 * <p>Progress, on the given stream: one line as each experiment starts ({@code [k/n] name}, with the time
 * elapsed since the report began) and one as it ends; the experiments' own progress lines, if the
 * settings show progress, prefixed with {@code [k/n name]}.
 */
public final class ReproductionReport {
    /** The Markdown page's file name in the report's directory. */
    public static final String PAGE = "README.md";
    private static final double NANOS_PER_SECOND = 1e9;

    private ReproductionReport() {
    }

    /**
     * What one experiment gave.
     *
     * @param result      its result, or null if it failed
     * @param failure     why it failed (one line), or null
     * @param wallNs      how long it ran, in real time
     * @param plots       file names of its plots in the report's directory
     * @param plotErrors  figures that could not be drawn, each with why
     */
    public record Entry(String name, String reference, boolean simulated, ExperimentResult result, String failure,
                        long wallNs, List<String> plots, List<String> plotErrors) {
        public Entry {
            Objects.requireNonNull(name, "name");
            plots = List.copyOf(plots);
            plotErrors = List.copyOf(plotErrors);
            if ((result == null) == (failure == null)) {
                throw new IllegalArgumentException("an entry has either a result or a failure");
            }
        }

        public boolean failed() {
            return result == null;
        }

        /** Compared numbers within their bands (0 if failed). */
        public int inBand() {
            return failed() ? 0 : result.rows().size() - result.outsideBands().size();
        }

        /** Compared numbers outside their bands (0 if failed). */
        public int outOfBand() {
            return failed() ? 0 : result.outsideBands().size();
        }
    }

    /**
     * The whole report.
     *
     * @param entries one per experiment, in the order run
     * @param wallNs  how long the report took, in real time
     * @param page    the Markdown page written
     */
    public record Summary(List<Entry> entries, long wallNs, Path page) {
        public Summary {
            entries = List.copyOf(entries);
        }

        public long failed() {
            return entries.stream().filter(Entry::failed).count();
        }

        /** True if every experiment ran and every compared number lies within its band. */
        public boolean allWithinBands() {
            return entries.stream().noneMatch(e -> e.failed() || e.outOfBand() > 0);
        }
    }

    /**
     * Runs {@code experiments} with {@code settings} (its progress stream and flag apply to the
     * experiments' own progress) and writes the report into {@code dir} (created if missing).
     *
     * @param progress where the per-experiment progress lines go
     * @param clock    real time in nanoseconds, for the wall times
     * @throws UncheckedIOException if the directory or the page cannot be written
     */
    public static Summary run(List<Experiment> experiments, ExperimentSettings settings, Path dir, PrintWriter progress,
                              LongSupplier clock) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create report directory " + dir + ": " + e.getMessage(), e);
        }
        long start = clock.getAsLong();
        int n = experiments.size();
        List<Entry> entries = new ArrayList<>();
        Path page = dir.resolve(PAGE);
        for (int k = 0; k < n; k++) {
            Experiment e = experiments.get(k);
            String tag = String.format(Locale.ROOT, "[%d/%d] %s", k + 1, n, e.name());
            progress.printf("%s: running (report at %s)%n", tag, duration(clock.getAsLong() - start));
            progress.flush();
            ExperimentSettings own = settings.withProgress(settings.showProgress(),
                    new PrintStream(new LinePrefixStream("[" + (k + 1) + "/" + n + " " + e.name() + "] ",
                            settings.progressOut()), true, StandardCharsets.UTF_8));
            Entry entry = runOne(e, own, dir, clock);
            entries.add(entry);
            progress.printf("%s: %s in %s%n", tag, entry.failed() ? "FAILED (" + entry.failure() + ")"
                    : entry.inBand() + " in band, " + entry.outOfBand() + " out of band", duration(entry.wallNs()));
            progress.flush();
            write(page, ReportPage.markdown(entries, settings.seed(), clock.getAsLong() - start));
        }
        long wall = clock.getAsLong() - start;
        write(page, ReportPage.markdown(entries, settings.seed(), wall));
        return new Summary(entries, wall, page);
    }

    private static Entry runOne(Experiment e, ExperimentSettings settings, Path dir, LongSupplier clock) {
        long t0 = clock.getAsLong();
        ExperimentResult result;
        try {
            result = e.run(settings);
        } catch (RuntimeException | Error failure) {
            if (failure instanceof VirtualMachineError && !(failure instanceof StackOverflowError
                    || failure instanceof OutOfMemoryError)) {
                throw failure;
            }
            String why = failure.getClass().getSimpleName() + (failure.getMessage() == null ? ""
                    : ": " + failure.getMessage().lines().findFirst().orElse(""));
            return new Entry(e.name(), e.reference(), e.simulated(), null, why, clock.getAsLong() - t0, List.of(),
                    List.of());
        }
        long wall = clock.getAsLong() - t0;
        List<String> plots = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        write(dir.resolve(e.name() + ".json"), ExperimentReport.json(result));
        for (Figure f : figures(e, result)) {
            String file = e.name() + "-" + f.id() + ".png";
            try {
                if (FigurePlotter.write(f, result, dir.resolve(file))) {
                    plots.add(file);
                } else {
                    errors.add(f.id() + ": no points");
                }
            } catch (IOException | RuntimeException failure) {
                errors.add(f.id() + ": " + failure.getMessage());
            }
        }
        String bands = e.name() + "-bands.png";
        try {
            if (FigurePlotter.writeBands(result, dir.resolve(bands))) {
                plots.add(bands);
            }
        } catch (IOException | RuntimeException failure) {
            errors.add("bands: " + failure.getMessage());
        }
        return new Entry(e.name(), e.reference(), e.simulated(), result, null, wall, plots, errors);
    }

    /**
     * The figures drawn for {@code e}: its own ({@link Experiment#figures()}), else the catalogue's
     * ({@link FigureCatalog}), else its first table with the first column as x.
     */
    static List<Figure> figures(Experiment e, ExperimentResult result) {
        if (!e.figures().isEmpty()) {
            return e.figures();
        }
        List<Figure> known = FigureCatalog.forExperiment(e.name());
        if (!known.isEmpty() || result.tables().isEmpty()) {
            return known;
        }
        var first = result.tables().getFirst();
        return List.of(Figure.of("table", e.name() + ": " + first.title(), first.title())
                .xInRows(first.columns().getFirst()).y(first.title()).build());
    }

    /** {@code 1m05s}, {@code 12.3s}. */
    static String duration(long ns) {
        double s = ns / NANOS_PER_SECOND;
        if (s < 60) {
            return String.format(Locale.ROOT, "%.1fs", s);
        }
        long whole = Math.round(s);
        return whole >= 3600 ? String.format(Locale.ROOT, "%dh%02dm%02ds", whole / 3600, whole / 60 % 60, whole % 60)
                : String.format(Locale.ROOT, "%dm%02ds", whole / 60, whole % 60);
    }

    private static void write(Path file, String text) {
        try {
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** Prefixes every line written through it. */
    private static final class LinePrefixStream extends OutputStream {
        private final byte[] prefix;
        private final OutputStream out;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        LinePrefixStream(String prefix, OutputStream out) {
            this.prefix = prefix.getBytes(StandardCharsets.UTF_8);
            this.out = out;
        }

        @Override
        public synchronized void write(int b) throws IOException {
            line.write(b);
            if (b == '\n') {
                out.write(prefix);
                line.writeTo(out);
                line.reset();
                out.flush();
            }
        }
    }
}
