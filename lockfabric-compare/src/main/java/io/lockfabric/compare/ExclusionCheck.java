package io.lockfabric.compare;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The counters of {@link WorkloadRunner}'s mutual-exclusion check, in memory every client process of
 * a run shares: arrays of this JVM when the clients run in it ({@link #inMemory}), a file every
 * client process maps when they run in several ({@link Mapped}, {@code --client-processes}).
 * Holders in different processes that overlap are caught as those of one process are, since they
 * count in the same words.
 *
 * <p>Per lock: the unguarded counter (read and written plainly by exclusive holders), the writers
 * and the readers inside it (atomic). A JVM's workload threads use one kind only, so their calls
 * stay monomorphic; the arrays are the cheaper (a profile of the buffer's view handles on shm
 * showed their alignment checks), and they keep the one-process rows measured as before.
 */
abstract sealed class ExclusionCheck permits ExclusionCheck.Heap, ExclusionCheck.Mapped {
    /** A check of {@code locks} locks in this process's memory, all zero. */
    static ExclusionCheck inMemory(int locks) {
        return new Heap(locks);
    }

    /** One more writer inside {@code lock}; the writers now. */
    abstract int writerIn(int lock);

    abstract void writerOut(int lock);

    abstract int writers(int lock);

    abstract void readerIn(int lock);

    abstract void readerOut(int lock);

    abstract int readers(int lock);

    /**
     * The unguarded increment of {@code lock}'s counter: a read, a pause, a separate write. Two
     * holders at once lose an increment.
     */
    abstract void increment(int lock);

    /** The sum of every lock's counter. */
    abstract long sum();

    /** The check in this JVM's arrays. */
    static final class Heap extends ExclusionCheck {
        private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);
        private final long[] counts;
        private final AtomicIntegerArray writers;
        private final AtomicIntegerArray readers;

        Heap(int locks) {
            counts = new long[locks];
            writers = new AtomicIntegerArray(locks);
            readers = new AtomicIntegerArray(locks);
        }

        @Override
        int writerIn(int lock) {
            return writers.incrementAndGet(lock);
        }

        @Override
        void writerOut(int lock) {
            writers.decrementAndGet(lock);
        }

        @Override
        int writers(int lock) {
            return writers.get(lock);
        }

        @Override
        void readerIn(int lock) {
            readers.incrementAndGet(lock);
        }

        @Override
        void readerOut(int lock) {
            readers.decrementAndGet(lock);
        }

        @Override
        int readers(int lock) {
            return readers.get(lock);
        }

        @Override
        void increment(int lock) {
            long v = (long) COUNTS.getOpaque(counts, lock);
            Thread.onSpinWait();
            COUNTS.setOpaque(counts, lock, v + 1);
        }

        @Override
        long sum() {
            long sum = 0;
            for (int i = 0; i < counts.length; i++) {
                sum += (long) COUNTS.getVolatile(counts, i);
            }
            return sum;
        }
    }

    /**
     * The check in a mapped file: a header of two ints (how many client processes are ready, and the
     * parent's go, non-zero once every one is), then the counters (8 bytes a lock), the writers and
     * the readers (4 bytes a lock each).
     */
    static final class Mapped extends ExclusionCheck {
        private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
        private static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());
        private static final int READY = 0;
        private static final int GO = 4;
        private static final int HEADER = 64;

        private final ByteBuffer buffer;
        private final int locks;
        private final int writersAt;
        private final int readersAt;

        private Mapped(ByteBuffer buffer, int locks) {
            this.buffer = buffer;
            this.locks = locks;
            this.writersAt = HEADER + 8 * locks;
            this.readersAt = writersAt + 4 * locks;
        }

        /** The bytes the check of {@code locks} locks takes. */
        static long bytesFor(int locks) {
            return HEADER + 16L * locks;
        }

        /**
         * The check of {@code locks} locks in {@code file}, mapped: created (all zero) when {@code create},
         * else the one another process created, which must be of that size.
         */
        static Mapped map(Path file, int locks, boolean create) {
            long size = bytesFor(locks);
            try (FileChannel ch = create
                    ? FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)
                    : FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                if (create) {
                    ch.write(ByteBuffer.allocate(1), size - 1); // the file's length; every byte reads zero
                } else if (ch.size() != size) {
                    throw new IllegalArgumentException("the check file " + file + " has " + ch.size() + " bytes, not the "
                            + size + " of " + locks + " locks");
                }
                return new Mapped(ch.map(FileChannel.MapMode.READ_WRITE, 0, size), locks);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot map the check file " + file + ": " + e.getMessage(), e);
            }
        }

        @Override
        int writerIn(int lock) {
            return (int) INTS.getAndAdd(buffer, writersAt + 4 * lock, 1) + 1;
        }

        @Override
        void writerOut(int lock) {
            INTS.getAndAdd(buffer, writersAt + 4 * lock, -1);
        }

        @Override
        int writers(int lock) {
            return (int) INTS.getVolatile(buffer, writersAt + 4 * lock);
        }

        @Override
        void readerIn(int lock) {
            INTS.getAndAdd(buffer, readersAt + 4 * lock, 1);
        }

        @Override
        void readerOut(int lock) {
            INTS.getAndAdd(buffer, readersAt + 4 * lock, -1);
        }

        @Override
        int readers(int lock) {
            return (int) INTS.getVolatile(buffer, readersAt + 4 * lock);
        }

        @Override
        void increment(int lock) {
            int at = HEADER + 8 * lock;
            long v = (long) LONGS.getOpaque(buffer, at);
            Thread.onSpinWait();
            LONGS.setOpaque(buffer, at, v + 1);
        }

        @Override
        long sum() {
            long sum = 0;
            for (int i = 0; i < locks; i++) {
                sum += (long) LONGS.getVolatile(buffer, HEADER + 8 * i);
            }
            return sum;
        }

        /** A client process is ready to run; how many are now. */
        int ready() {
            return (int) INTS.getAndAdd(buffer, READY, 1) + 1;
        }

        int readyCount() {
            return (int) INTS.getVolatile(buffer, READY);
        }

        /** The parent's go: every client process starts its clock. */
        void go() {
            INTS.setVolatile(buffer, GO, 1);
        }

        boolean gone() {
            return (int) INTS.getVolatile(buffer, GO) != 0;
        }
    }
}
