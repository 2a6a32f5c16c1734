package io.lockfabric;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * JFR event {@code io.lockfabric.Acquire}: one lock granted, its duration the caller's wait from the
 * request to the grant (queueing for an endpoint included). Committed on the thread that acquired
 * (the caller's, or a virtual thread for a request that may be given up), only while a recording
 * enables it, and only if the wait lasted at least the threshold: by default 10 ms, as
 * {@code jdk.JavaMonitorEnter}'s in {@code profile.jfc}, so that a recording with the JDK's
 * settings keeps the slow waits, not every acquisition of a busy lock (a threshold of 0 keeps all).
 * When no recording enables it, a request does not make it.
 */
@Name(AcquireEvent.NAME)
@Label("Lock Acquire")
@Category("LockFabric")
@Description("A lock of a LockFabric space granted; duration: the wait from the request to the grant")
@StackTrace(false)
@Threshold("10 ms")
final class AcquireEvent extends jdk.jfr.Event {
    static final String NAME = "io.lockfabric.Acquire";

    @Label("Space")
    String space;

    @Label("Key")
    String key;

    @Label("Slot")
    @Description("The key's lock slot in the space (-1 for a range)")
    long slot;

    @Label("Mode")
    @Description("The mode granted: SHARED or EXCLUSIVE")
    String mode;

    @Label("Protocol")
    String protocol;

    @Label("Retries")
    @Description("Protocol retries during this acquisition (atomics repeated, tickets undone)")
    long retries;

    @Label("Fencing Token")
    long fencingToken;
}
