package io.lockfabric.shm;

import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.memory.MemoryRegion;

import java.util.function.UnaryOperator;

/**
 * How the shm fabric makes 128-bit atomics atomic across processes, including a process killed
 * inside one: a <em>stripe lock with a redo log</em>.
 *
 * <p>An entry (16 bytes at file offset {@code e}) belongs to stripe {@code (e >>> 4) mod 256}; a
 * stripe is a {@link PidLock} word and a one-entry redo log in the file ({@link ShmLayout}). An
 * update takes the stripe's lock, replays the log if it is not empty, reads both words, computes the
 * new value, and, if it differs: writes the new words into the log, then the log's entry field (its
 * commit: 1 + {@code e}), then word 0, then word 1, then empties the log; then frees the lock. All
 * of these are volatile stores, so another process sees them in that order.
 *
 * <p>Why it is safe. (1) Two updates of one entry never overlap: both hold the stripe's lock, which
 * only the holder's death breaks. (2) A holder that dies before the log's commit has stored nothing
 * in the entry; one that dies after it has a complete log of what it was storing; one that dies after
 * emptying the log has finished. The waiter that takes the lock over from a dead holder
 * ({@link PidLock} tells it so; it replays on every acquisition anyway) stores the logged words again
 * before anything else: storing them twice is harmless, so a replayer that dies while replaying is
 * replayed in turn. Hence every update either happened whole or not at all, and the entry is never
 * left torn. (3) 64-bit atomics do not take the stripe: they are hardware atomics on the mapping,
 * and by the verb contract ({@code spec/verbs-and-rnic.md}) an entry used by 128-bit atomics is
 * accessed only by 128-bit atomics and reads. A 16-byte read takes no lock either and may see the
 * two words at different moments, as the contract allows, but never a word half written; since word
 * 0 is stored first, MemoryRegion's ordering promises hold as in one JVM. The masked 64-bit atomics
 * need no lock: {@link MemoryRegion} runs them as CAS loops on the word, which are atomic across
 * processes and leave nothing half done when a process dies.
 *
 * <p>Cost: two CASes on the stripe word and six volatile stores per changing update; the stripe
 * words are shared by all processes, so unrelated 128-bit entries of one stripe serialise.
 * Thread-safe.
 */
final class StripeGuard implements MemoryRegion.EntryGuard {
    private final MemoryRegion file;
    private final PidLock locks;
    private final long base;

    /** The guard of a table region whose byte 0 is at file offset {@code base}. */
    StripeGuard(MemoryRegion file, PidLock locks, long base) {
        this.file = file;
        this.locks = locks;
        this.base = base;
    }

    @Override
    public Int128 update(MemoryRegion region, long off, UnaryOperator<Int128> update) {
        long entry = base + off;
        long stripe = ShmLayout.stripe(ShmLayout.stripeOf(entry));
        long lock = stripe + ShmLayout.STRIPE_LOCK;
        locks.lock(lock);
        try {
            replay(file, stripe);
            Int128 old = new Int128(file.read8(entry), file.read8(entry + 8));
            Int128 next = update.apply(old);
            if (!next.equals(old)) {
                file.write8(stripe + ShmLayout.STRIPE_LOG_LO, next.lo());
                file.write8(stripe + ShmLayout.STRIPE_LOG_HI, next.hi());
                file.write8(stripe + ShmLayout.STRIPE_LOG_ENTRY, entry + 1);
                file.write8(entry, next.lo());
                file.write8(entry + 8, next.hi());
                file.write8(stripe + ShmLayout.STRIPE_LOG_ENTRY, 0);
            }
            return old;
        } finally {
            locks.unlock(lock);
        }
    }

    /** Stores again what a holder that died logged and had perhaps not stored; the caller holds the stripe. */
    static void replay(MemoryRegion file, long stripe) {
        long logged = file.read8(stripe + ShmLayout.STRIPE_LOG_ENTRY);
        if (logged != 0) {
            long entry = logged - 1;
            file.write8(entry, file.read8(stripe + ShmLayout.STRIPE_LOG_LO));
            file.write8(entry + 8, file.read8(stripe + ShmLayout.STRIPE_LOG_HI));
            file.write8(stripe + ShmLayout.STRIPE_LOG_ENTRY, 0);
        }
    }
}
