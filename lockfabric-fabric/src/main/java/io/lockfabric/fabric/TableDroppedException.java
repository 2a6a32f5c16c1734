package io.lockfabric.fabric;

import java.io.Serial;

/**
 * A verb or rpc addressed a table that its memory node has dropped (an explicit drop, or an idle
 * table's grace ran out). The table's memory and lock state are gone; the verb changed nothing.
 * What a client still holding grants on a dropped table sees on its next verb there.
 */
public final class TableDroppedException extends FabricException {
    @Serial
    private static final long serialVersionUID = 1L;

    public TableDroppedException(String message) {
        super(message);
    }
}
