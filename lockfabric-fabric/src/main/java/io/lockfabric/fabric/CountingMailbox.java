package io.lockfabric.fabric;

/**
 * The plumbing every fabric's mailbox shares: its address and the count of every message (and
 * ping) it sent ({@link Counters}, written by the owner's thread only). A fabric extends it with
 * how messages travel and wait. Sends belong to the owner's thread.
 */
public abstract class CountingMailbox implements Mailbox {
    /** What this mailbox sent: the subclass records every send and ping. */
    protected final Counters counters = new Counters();
    private final EndpointId id;

    protected CountingMailbox(EndpointId id) {
        this.id = java.util.Objects.requireNonNull(id, "id");
    }

    @Override
    public final EndpointId id() {
        return id;
    }

    /** What this mailbox has sent so far (exact once its owner stopped). */
    public final CounterSnapshot counters() {
        return counters.snapshot();
    }
}
