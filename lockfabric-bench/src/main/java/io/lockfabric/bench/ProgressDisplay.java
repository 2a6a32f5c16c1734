package io.lockfabric.bench;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A one-line progress display on a terminal: every {@link #REFRESH_INTERVAL_MS} ms a background
 * daemon thread rewrites (with {@code \r}) a line of protocol, elapsed / planned time, operations
 * so far and the current rate. Does nothing at all when the output is not a terminal, so CI logs
 * stay clean. {@link #close()} stops the thread and clears the line.
 */
public final class ProgressDisplay implements AutoCloseable {
    public static final long REFRESH_INTERVAL_MS = 500;
    private static final double NANOS_PER_SECOND = 1e9;
    private static final ProgressDisplay NONE = new ProgressDisplay(null, null);

    private final Thread thread;
    private final PrintStream out;
    private volatile boolean stopped;
    private int lastLineLength;

    private ProgressDisplay(Thread thread, PrintStream out) {
        this.thread = thread;
        this.out = out;
    }

    /** True if stderr is an interactive terminal (the only case progress is shown). */
    public static boolean consoleIsTerminal() {
        var console = System.console();
        return console != null && console.isTerminal();
    }

    /** A display that shows nothing. */
    public static ProgressDisplay none() {
        return NONE;
    }

    /**
     * Starts showing progress on {@code out}.
     *
     * @param label      what runs (the protocol)
     * @param elapsedNs  time since the run started
     * @param plannedNs  the planned length of the run (warmup + measured), or 0 if not known
     * @param operations operations completed so far
     */
    public static ProgressDisplay start(String label, LongSupplier elapsedNs, long plannedNs, LongSupplier operations,
                                        PrintStream out) {
        ProgressDisplay[] self = new ProgressDisplay[1];
        Thread t = new Thread(() -> self[0].loop(label, elapsedNs, plannedNs, operations), "bench-progress");
        t.setDaemon(true);
        self[0] = new ProgressDisplay(t, out);
        t.start();
        return self[0];
    }

    private void loop(String label, LongSupplier elapsedNs, long plannedNs, LongSupplier operations) {
        long lastOps = operations.getAsLong();
        long lastNs = elapsedNs.getAsLong();
        while (!stopped) {
            try {
                Thread.sleep(REFRESH_INTERVAL_MS);
            } catch (InterruptedException e) {
                return;
            }
            long ops = operations.getAsLong();
            long now = elapsedNs.getAsLong();
            double rate = now > lastNs ? (ops - lastOps) * NANOS_PER_SECOND / (now - lastNs) : 0;
            String planned = plannedNs > 0 ? String.format(Locale.ROOT, " / %.1fs", plannedNs / NANOS_PER_SECOND) : "";
            String line = String.format(Locale.ROOT, "%s  %.1fs%s  %,d ops  %,.0f ops/s", label,
                    now / NANOS_PER_SECOND, planned, ops, rate);
            synchronized (this) {
                if (!stopped) {
                    out.print("\r" + line + " ".repeat(Math.max(0, lastLineLength - line.length())));
                    out.flush();
                    lastLineLength = line.length();
                }
            }
            lastOps = ops;
            lastNs = now;
        }
    }

    @Override
    public void close() {
        if (thread == null) {
            return;
        }
        synchronized (this) {
            stopped = true;
            if (lastLineLength > 0) {
                out.print("\r" + " ".repeat(lastLineLength) + "\r");
                out.flush();
            }
        }
        thread.interrupt();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
