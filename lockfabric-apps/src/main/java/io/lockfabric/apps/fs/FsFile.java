package io.lockfabric.apps.fs;

import java.util.Objects;

/**
 * An open file of a {@link CitronFs}: positional reads and writes (each under a byte-range lock on
 * its bytes, or the file's mutex), its size, truncate. Cacheless: every call goes to the memory
 * nodes. Thread-safe; {@link #close} only stops this handle.
 */
public final class FsFile implements AutoCloseable {
    private final CitronFs fs;
    private final String name;
    private final int inode;
    private volatile boolean closed;

    FsFile(CitronFs fs, String name, int inode) {
        this.fs = fs;
        this.name = name;
        this.inode = inode;
    }

    private void open() {
        if (closed) {
            throw new IllegalStateException("file '" + name + "' is closed");
        }
    }

    /** Writes {@code src} at byte {@code offset}, growing the file if it ends past its size. */
    public void pwrite(byte[] src, long offset) {
        pwrite(src, 0, src.length, offset);
    }

    /** Writes {@code src[srcOff, srcOff + length)} at byte {@code offset}. */
    public void pwrite(byte[] src, int srcOff, int length, long offset) {
        open();
        Objects.checkFromIndexSize(srcOff, length, src.length);
        byte[] copy = java.util.Arrays.copyOfRange(src, srcOff, srcOff + length);
        fs.run(c -> {
            c.pwrite(inode, offset, copy, 0, copy.length);
            return null;
        });
    }

    /** Reads up to {@code dst.length} bytes at byte {@code offset}; returns how many (0 at or past the end). */
    public int pread(byte[] dst, long offset) {
        return pread(dst, 0, dst.length, offset);
    }

    /** Reads up to {@code length} bytes at byte {@code offset} into {@code dst[dstOff, ...)}; returns how many. */
    public int pread(byte[] dst, int dstOff, int length, long offset) {
        open();
        Objects.checkFromIndexSize(dstOff, length, dst.length);
        byte[] buffer = new byte[length];
        int n = fs.run(c -> c.pread(inode, offset, buffer, 0, length));
        System.arraycopy(buffer, 0, dst, dstOff, n);
        return n;
    }

    /** The file's size in bytes. */
    public long size() {
        open();
        return fs.run(c -> c.size(inode));
    }

    /** Cuts the file to {@code size} bytes, or grows it with zeros (CITRON scales the file's lock tree down after a cut). */
    public void truncate(long size) {
        open();
        fs.run(c -> {
            c.truncate(inode, size);
            return null;
        });
    }

    public String name() {
        return name;
    }

    /** The file's inode number. */
    public int inode() {
        return inode;
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "file '" + name + "' (inode " + inode + ") of " + fs;
    }
}
