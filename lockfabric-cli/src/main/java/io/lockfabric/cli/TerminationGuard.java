package io.lockfabric.cli;

import io.lockfabric.bench.StopRequest;

import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a benchmark command does when its process is told to stop (SIGTERM, or Ctrl-C's SIGINT)
 * while it runs: instead of dying with nothing printed, it reports what it measured.
 *
 * <p>While installed, a JVM shutdown hook waits for the signal. When it comes, the hook requests
 * the {@link StopRequest} the runs watch (a run on a real-time fabric then ends at once, its clients
 * stopped, with a partial result), waits up to {@value #REPORT_WAIT_S} s for the command's own
 * thread to print the report and give its exit status ({@link #beginReport}, {@link #reported}), and
 * ends the process with that status ({@link Runtime#halt}: the JVM's own status after a signal would
 * be 143 or 130). If the report does not come in time (a simulated run, which runs to its end in
 * virtual time and does not watch the request), the hook prints its {@code fallback} (the report of
 * the runs completed so far) and ends the process with {@link Main#EXIT_RUN_FAILED}. Closing the
 * guard, once the report is out, removes the hook: a signal after that is the JVM's usual business.
 *
 * <p>The hook runs only at shutdown, so a guard installed by a command run in-process (tests) does
 * nothing unless the JVM is told to stop during it. Thread-safe.
 */
final class TerminationGuard implements AutoCloseable {
    /** What the stop request names as the cause of a partial run. */
    static final String CAUSE = "SIGTERM or Ctrl-C";
    /** How long the hook waits for the command's own report. */
    static final long REPORT_WAIT_S = 10;
    /** How long the hook lets a command that ended without a report print why, before it halts. */
    private static final long LAST_WORDS_MS = 500;

    private enum State { RUNNING, REPORTING, FALLBACK }

    private final StopRequest stop;
    private final Runnable fallback;
    private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
    private final CountDownLatch done = new CountDownLatch(1);
    private final Thread hook;
    private volatile int status = Main.EXIT_RUN_FAILED;
    private volatile boolean reportGiven;

    private TerminationGuard(StopRequest stop, Runnable fallback) {
        this.stop = Objects.requireNonNull(stop, "stop");
        this.fallback = Objects.requireNonNull(fallback, "fallback");
        this.hook = Thread.ofPlatform().name("lockfabric-termination").unstarted(this::onShutdown);
    }

    /**
     * Installs a guard that, on SIGTERM or Ctrl-C, requests {@code stop} and waits for the report.
     *
     * @param fallback prints the report of the runs completed so far, if the command's own does not
     *                 come in time
     */
    static TerminationGuard install(StopRequest stop, Runnable fallback) {
        TerminationGuard guard = new TerminationGuard(stop, fallback);
        Runtime.getRuntime().addShutdownHook(guard.hook);
        return guard;
    }

    /**
     * Called by the command's thread before it prints its report: true if it may (the hook has not
     * given up on it and printed its fallback instead).
     */
    boolean beginReport() {
        return state.compareAndSet(State.RUNNING, State.REPORTING);
    }

    /** Called by the command's thread once its report is out: the process's exit status. */
    void reported(int exitStatus) {
        status = exitStatus;
        reportGiven = true;
        done.countDown();
    }

    /** Removes the hook (or, if the JVM is already shutting down, lets it end the process). */
    @Override
    public void close() {
        done.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs: it halts with the status reported
        }
    }

    private void onShutdown() {
        stop.request(CAUSE);
        boolean ended = await(REPORT_WAIT_S, TimeUnit.SECONDS);
        if (!ended && state.compareAndSet(State.RUNNING, State.FALLBACK)) {
            fallback.run();
            status = Main.EXIT_RUN_FAILED;
        } else if (!ended) {
            await(REPORT_WAIT_S, TimeUnit.SECONDS); // the report is being printed
        } else if (!reportGiven) {
            try {
                Thread.sleep(LAST_WORDS_MS); // the command ended by an error: let its message out
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(status);
    }

    private boolean await(long amount, TimeUnit unit) {
        try {
            return done.await(amount, unit);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }
}
