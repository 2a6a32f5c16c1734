package io.lockfabric.bench;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A request from outside to end the run in progress now (the command line's answer to SIGTERM and
 * Ctrl-C): a {@link RealTimeDriver} given one checks it while its clients run, and a run it stops
 * ends {@link RunEnd.How#INTERRUPTED}, with what was measured until then. Requested once, it stays
 * requested. Thread-safe: requested from any thread (a shutdown hook), read by the driver.
 */
public final class StopRequest {
    private final AtomicReference<String> cause = new AtomicReference<>();

    /** Requests the stop; the first cause given is kept. */
    public void request(String why) {
        cause.compareAndSet(null, Objects.requireNonNull(why, "why"));
    }

    public boolean requested() {
        return cause.get() != null;
    }

    /** Why the stop was requested, or null if it was not. */
    public String cause() {
        return cause.get();
    }
}
