package io.lockfabric.apps.fs;

import io.lockfabric.lock.Grant;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;

/**
 * A lock CitronFS holds for one I/O: bytes [fileStart, fileEnd) of inode {@code inode}, as the range
 * lock's grant or the file mutex's. As a {@link RangeGrant} it names the bytes in one space for all
 * files, file {@code i} at {@code [i * FILE_SPAN, (i + 1) * FILE_SPAN)}, so that one range checker
 * sees every file's holds (a mutex grant covers its whole span).
 *
 * @param inner the lock manager's own grant
 */
public record FsGrant(int inode, long fileStart, long fileEnd, Mode mode, long fencingToken, Grant inner)
        implements RangeGrant {
    @Override
    public long start() {
        return inode * FsOptions.FILE_SPAN + fileStart;
    }

    @Override
    public long end() {
        return inode * FsOptions.FILE_SPAN + fileEnd;
    }
}
