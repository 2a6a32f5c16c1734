package io.lockfabric.fabric;

import java.io.Serial;

/** A table was opened with a protocol, size or layout that differs from the one that created it. */
public final class TableMismatchException extends FabricException {
    @Serial
    private static final long serialVersionUID = 1L;

    public TableMismatchException(TableSpec existing, TableSpec requested) {
        super("cannot open " + requested + ": the table exists as " + existing);
    }
}
