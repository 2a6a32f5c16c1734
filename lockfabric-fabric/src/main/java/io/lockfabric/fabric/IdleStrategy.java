package io.lockfabric.fabric;

/**
 * How a client waits for a condition it re-checks itself (a reply, a message, a local flag).
 * {@link #idle()} once per failed check, {@link #reset()} after progress. In real time it goes
 * from spinning to yielding to parking; in virtual time it advances the client's clock.
 */
public interface IdleStrategy {
    void idle();

    void reset();
}
