package io.lockfabric.fabric;

import java.io.Serial;

/**
 * The memory node refused to create a table or to drop one: it lacks the capacity (or a limit on
 * tables is reached), or the table to drop is open by clients and the drop was not forced. The
 * request changed nothing; asking again with other sizes, or later, may succeed.
 */
public class TableRefusedException extends FabricException {
    @Serial
    private static final long serialVersionUID = 1L;

    public TableRefusedException(String message) {
        super(message);
    }
}
