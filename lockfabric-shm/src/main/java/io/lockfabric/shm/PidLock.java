package io.lockfabric.shm;

import io.lockfabric.fabric.IdleStrategy;
import io.lockfabric.fabric.WaitInterruptedException;
import io.lockfabric.fabric.memory.MemoryRegion;
import io.lockfabric.fabric.realtime.BackoffIdleStrategy;

/**
 * A lock word in the shared file that survives the death of its holder: it holds 0 when free and
 * the holder's process token ({@link ProcessLiveness}) when taken, and is taken by CAS. A waiter
 * that finds the holder's process dead takes the word over from it by CAS (so exactly one waiter
 * does), and is told so: whatever the dead holder left half done is now the new holder's to repair
 * (a stripe replays its redo log; a ring needs nothing). A live holder is waited for however long
 * it holds the word, paused or not: only death breaks the lock.
 *
 * <p>Threads of one process share its token, so the lock excludes them from each other as well
 * (it is not reentrant). Stateless apart from the file; thread-safe.
 */
final class PidLock {
    private final MemoryRegion file;
    private final ProcessLiveness liveness;

    PidLock(MemoryRegion file, ProcessLiveness liveness) {
        this.file = file;
        this.liveness = liveness;
    }

    /**
     * Takes the lock word at file offset {@code word}.
     *
     * @return true if it was taken over from a dead holder (the caller repairs what it left)
     * @throws WaitInterruptedException if the thread is interrupted while it waits
     */
    boolean lock(long word) {
        long me = liveness.self();
        long seen = file.cas(word, 0, me);
        if (seen == 0) {
            return false;
        }
        IdleStrategy idle = null;
        while (true) {
            if (seen == 0) {
                seen = file.cas(word, 0, me);
                if (seen == 0) {
                    return false;
                }
            } else if (!liveness.isAlive(seen)) {
                long witness = file.cas(word, seen, me);
                if (witness == seen) {
                    return true;
                }
                seen = witness;
                continue;
            }
            if (idle == null) {
                idle = new BackoffIdleStrategy(64, 16, 1_000, 50_000);
            }
            idle.idle();
            seen = file.read8(word);
        }
    }

    /** Frees the lock word at {@code word}; the caller holds it. */
    void unlock(long word) {
        file.write8(word, 0);
    }
}
