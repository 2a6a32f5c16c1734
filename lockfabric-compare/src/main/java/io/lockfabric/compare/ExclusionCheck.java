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

/**
 * The counters of {@link WorkloadRunner}'s mutual-exclusion check, in memory every client process of
 * a run shares: an array of this JVM when the clients run in it ({@link #inMemory}), a file every
 * client process maps when they run in several ({@link Mapped}, {@code --client-processes}).
 * Holders in different processes that overlap are caught as those of one process are, since they
 * count in the same words.
 *
 * <p>Per lock, 16 bytes: the unguarded counter (read and written plainly by exclusive holders),
 * then one word of who is inside it: the writers in its low 32 bits, the readers in its high 32
 * bits, each changed atomically. An exclusive holder's entry ({@link #writerIn}) tells it both
 * counts at once, a shared holder's ({@link #readerIn}) the writers. The check is measurement, not
 * the thing measured: with the three counts of a lock in one cache line, a cycle of the check
 * misses the cache once on 100 000 uniform locks, where three arrays missed it three times (its
 * share of a profile of the shm fabric's workload threads was about 12%).
 *
 * <p>A JVM's workload threads use one kind only, so their calls stay monomorphic.
 */
abstract sealed class ExclusionCheck permits ExclusionCheck.Heap, ExclusionCheck.Mapped {
    /** One writer in the state word of a lock. */
    static final long WRITER = 1L;
    /** One reader in the state word of a lock. */
    static final long READER = 1L << 32;

    /** A check of {@code locks} locks in this process's memory, all zero. */
    static ExclusionCheck inMemory(int locks) {
        return new Heap(locks);
    }

    /** The writers in a lock's state word. */
    static int writersOf(long state) {
        return (int) state;
    }

    /** The readers in a lock's state word. */
    static int readersOf(long state) {
        return (int) (state >>> 32);
    }

    /** Adds {@code delta} ({@link #WRITER} or {@link #READER}, or their negation) to {@code lock}'s state; the state after. */
    abstract long enter(int lock, long delta);

    /** {@code lock}'s state word now. */
    abstract long state(int lock);

    /** One more writer inside {@code lock}; the state word now ({@link #writersOf}, {@link #readersOf}). */
    final long writerIn(int lock) {
        return enter(lock, WRITER);
    }

    final void writerOut(int lock) {
        enter(lock, -WRITER);
    }

    final int writers(int lock) {
        return writersOf(state(lock));
    }

    /** One more reader inside {@code lock}; the state word now. */
    final long readerIn(int lock) {
        return enter(lock, READER);
    }

    final void readerOut(int lock) {
        enter(lock, -READER);
    }

    final int readers(int lock) {
        return readersOf(state(lock));
    }

    /**
     * The unguarded increment of {@code lock}'s counter: a read, a pause, a separate write. Two
     * holders at once lose an increment.
     */
    abstract void increment(int lock);

    /** The sum of every lock's counter. */
    abstract long sum();

    /** The check in this JVM's memory: lock {@code i}'s counter at {@code [2i]}, its state at {@code [2i + 1]}. */
    static final class Heap extends ExclusionCheck {
        private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);
        private final long[] words;

        Heap(int locks) {
            words = new long[2 * locks];
        }

        @Override
        long enter(int lock, long delta) {
            return (long) WORDS.getAndAdd(words, 2 * lock + 1, delta) + delta;
        }

        @Override
        long state(int lock) {
            return (long) WORDS.getVolatile(words, 2 * lock + 1);
        }

        @Override
        void increment(int lock) {
            long v = (long) WORDS.getOpaque(words, 2 * lock);
            Thread.onSpinWait();
            WORDS.setOpaque(words, 2 * lock, v + 1);
        }

        @Override
        long sum() {
            long sum = 0;
            for (int i = 0; i < words.length; i += 2) {
                sum += (long) WORDS.getVolatile(words, i);
            }
            return sum;
        }
    }

    /**
     * The check in a mapped file: a header of two ints (how many client processes are ready, and the
     * parent's go, non-zero once every one is), padded to 64 bytes, then 16 bytes a lock: its counter
     * and its state word.
     */
    static final class Mapped extends ExclusionCheck {
        private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
        private static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());
        private static final int READY = 0;
        private static final int GO = 4;
        private static final int HEADER = 64;

        private final ByteBuffer buffer;
        private final int locks;

        private Mapped(ByteBuffer buffer, int locks) {
            this.buffer = buffer;
            this.locks = locks;
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

        private static int counterAt(int lock) {
            return HEADER + 16 * lock;
        }

        @Override
        long enter(int lock, long delta) {
            return (long) LONGS.getAndAdd(buffer, counterAt(lock) + 8, delta) + delta;
        }

        @Override
        long state(int lock) {
            return (long) LONGS.getVolatile(buffer, counterAt(lock) + 8);
        }

        @Override
        void increment(int lock) {
            int at = counterAt(lock);
            long v = (long) LONGS.getOpaque(buffer, at);
            Thread.onSpinWait();
            LONGS.setOpaque(buffer, at, v + 1);
        }

        @Override
        long sum() {
            long sum = 0;
            for (int i = 0; i < locks; i++) {
                sum += (long) LONGS.getVolatile(buffer, counterAt(i));
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
