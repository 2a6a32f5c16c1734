package io.lockfabric;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR event {@code io.lockfabric.Acquire}: one lock granted, its duration the caller's wait from the
 * request to the grant (queueing for an endpoint included). Committed on the endpoint's thread, and
 * only while a recording enables it: otherwise a request allocates it and drops it at once.
 */
@Name(AcquireEvent.NAME)
@Label("Lock Acquire")
@Category("LockFabric")
@Description("A lock of a LockFabric space granted; duration: the wait from the request to the grant")
@StackTrace(false)
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
