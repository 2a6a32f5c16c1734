package io.lockfabric;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * JFR event {@code io.lockfabric.Hold}: one lock held, its duration from the grant to the end of the
 * release. Begun on the thread that acquired and committed on the one that released, only while a
 * recording enables it, and only if the hold lasted at least the threshold (default 10 ms, as
 * {@link AcquireEvent}'s).
 */
@Name(HoldEvent.NAME)
@Label("Lock Hold")
@Category("LockFabric")
@Description("A lock of a LockFabric space held; duration: from the grant to the end of its release")
@StackTrace(false)
@Threshold("10 ms")
final class HoldEvent extends jdk.jfr.Event {
    static final String NAME = "io.lockfabric.Hold";

    @Label("Space")
    String space;

    @Label("Key")
    String key;

    @Label("Slot")
    @Description("The key's lock slot in the space (-1 for a range)")
    long slot;

    @Label("Mode")
    String mode;

    @Label("Fencing Token")
    long fencingToken;

    @Label("Lost")
    @Description("Whether the hold was lost (lease or memory node) before its release")
    boolean lost;
}
