package io.lockfabric;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * JFR event {@code io.lockfabric.Lost}: a hold lost while open, once per hold, when the space's
 * {@link LockSpace#onLoss} listeners are told. Committed only while a recording enables it.
 */
@Name(LostEvent.NAME)
@Label("Lock Lost")
@Category("LockFabric")
@Description("A lock of a LockFabric space lost while held: its lease ran out, or its memory node was lost")
@StackTrace(false)
final class LostEvent extends jdk.jfr.Event {
    static final String NAME = "io.lockfabric.Lost";

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

    @Label("Why")
    @Description("lease: held longer than the protocol's lease; server: the connection to the memory node was lost")
    String why;

    @Label("Held For")
    @Timespan(Timespan.NANOSECONDS)
    long heldFor;
}
