package io.lockfabric.net;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Logs the connections a listener refuses, at most once per cause per interval: the first refusal
 * of a cause is logged at once; those that follow within {@code interval} are counted, and the next
 * one logged after it says how many were left out. So an attack of a million bad frames costs a
 * few log lines, and an operator still sees each kind of refusal and its rate. Causes are short
 * fixed words ("connections", "frame-deadline"), never attacker-chosen text. Thread-safe.
 */
final class RefusalLog {
    static final long DEFAULT_INTERVAL_NS = 10_000_000_000L;

    private final Logger log;
    private final long intervalNs;
    private final LongSupplier nanoTime;
    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    /** Since {@code since}, {@code suppressed} refusals were not logged. */
    private static final class Window {
        long since;
        long suppressed;
        long total;

        Window(long since) {
            this.since = since;
        }
    }

    RefusalLog(Logger log, long intervalNs, LongSupplier nanoTime) {
        this.log = log;
        this.intervalNs = intervalNs;
        this.nanoTime = nanoTime;
    }

    RefusalLog(Logger log) {
        this(log, DEFAULT_INTERVAL_NS, System::nanoTime);
    }

    /**
     * Records one refusal of {@code cause}; logs {@code message} (with the count left out since
     * the last line of this cause) unless one was logged less than an interval ago.
     *
     * @return whether it was logged
     */
    boolean refuse(String cause, String message) {
        long now = nanoTime.getAsLong();
        Window w = windows.computeIfAbsent(cause, c -> new Window(now - intervalNs));
        long left;
        synchronized (w) {
            w.total++;
            if (now - w.since < intervalNs) {
                w.suppressed++;
                return false;
            }
            left = w.suppressed;
            w.suppressed = 0;
            w.since = now;
        }
        log.log(Level.WARNING, "refused ({0}): {1}{2}", cause, message, left == 0 ? ""
                : " [" + left + " more refusals of this kind in the last " + (intervalNs / 1_000_000_000L) + " s not shown]");
        return true;
    }

    /** Every refusal of {@code cause} so far, logged or not. */
    long total(String cause) {
        Window w = windows.get(cause);
        if (w == null) {
            return 0;
        }
        synchronized (w) {
            return w.total;
        }
    }
}
