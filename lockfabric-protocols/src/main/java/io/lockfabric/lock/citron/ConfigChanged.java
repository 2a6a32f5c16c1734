package io.lockfabric.lock.citron;

/**
 * Thrown where a request meets a scale-up (§3.9.1, "Handling scale-ups in lock acquisition"): a
 * root with an Exp mark in step (b), a notification or Occ + 1 that returned a newer generation's
 * mark in step (d) (Algorithm 2 line 33), or a newer configuration word behind the spillover
 * mutex. Whoever throws it has given back what the node acquisition under way took; the callers
 * give back the rest on its way out ({@link TreeLocker} the earlier nodes, {@link CitronClient}
 * the spillover mutex), and {@link CitronClient#acquire} retries on the new tree. No stack trace:
 * it is a control transfer, not an error.
 */
final class ConfigChanged extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ConfigChanged() {
        super("citron tree scaled up", null, false, false);
    }
}
