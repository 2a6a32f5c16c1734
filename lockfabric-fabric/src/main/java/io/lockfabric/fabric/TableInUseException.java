package io.lockfabric.fabric;

import java.io.Serial;

/**
 * A drop was refused because clients still have the table open: dropping it would take their lock
 * state away under them. A forced drop drops it anyway; their later verbs on it then fail with
 * {@link TableDroppedException}.
 */
public final class TableInUseException extends TableRefusedException {
    @Serial
    private static final long serialVersionUID = 1L;

    public TableInUseException(String message) {
        super(message);
    }
}
