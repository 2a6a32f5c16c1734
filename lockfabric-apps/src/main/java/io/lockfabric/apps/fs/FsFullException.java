package io.lockfabric.apps.fs;

/** A CitronFS has no room left: no free inode, or no free extent on a data node. */
public final class FsFullException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public FsFullException(String message) {
        super(message);
    }
}
