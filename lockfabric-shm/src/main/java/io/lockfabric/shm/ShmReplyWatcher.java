package io.lockfabric.shm;

import io.lockfabric.fabric.memory.MemoryRegion;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Wakes the virtual threads of one process that wait for rpc replies from a server in another, or
 * for messages from senders in others (the same way: below, the sender is the server). A
 * virtual thread must not sleep in a {@link Futex} call: that would hold its carrier, and with it
 * the virtual threads the reply may wait for. So it parks, and names this watcher's bell in its
 * slot's wake word. The server rings that bell once it stored the reply, and the watcher, a platform
 * thread asleep on the bell, unparks every waiter whose reply is there. A sender of this process's
 * own fabric unparks its receiver itself instead ({@link #unparkIfReady}).
 *
 * <p>The bell is the bell word of an endpoint slot of its own, claimed as an endpoint's is, so a
 * process that dies leaves it to the next that claims it.
 *
 * <p>No wake-up is lost. A waiter lists itself, then stores its wake word, then looks at its reply
 * a last time before it parks; the server stores the reply, then reads the wake word. So either the
 * waiter sees the reply, or the server sees the wake word of a listed waiter and rings the bell.
 * The watcher reads the bell before it looks at the waiters, and sleeps only while the bell still
 * holds what it read: a ring after that read ends the sleep at once.
 *
 * <p>While it has waiters the watcher wakes every {@link ShmFabric#replySleepNs} at least, and
 * unparks them all, so that each checks that its server lives; without waiters it sleeps up to
 * {@link #SLEEP_NS}. A waiter that comes during such a long sleep is first unparked for that check
 * when the sleep ends: within a second, not 10 ms, should its server die meanwhile. Thread-safe.
 */
final class ShmReplyWatcher implements AutoCloseable {
    /** The longest the watcher sleeps: it only has to wake when a bell rings, or to stop. */
    static final long SLEEP_NS = 1_000_000_000L;
    /** {@link #SLEEP_NS}; tests make it longer than they run, so that a wake-up lost would hang them. */
    static volatile long sleepNs = SLEEP_NS;

    private final ShmFile file;
    private final MemoryRegion f;
    private final long slot;
    private final long bell;
    /** The waiters by their slot (one rpc at a time per endpoint). */
    private final ConcurrentHashMap<Long, Waiter> waiters = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;
    /** How many waiters it unparked because their reply was there (for the tests). */
    private volatile long woken;
    /** How many waiters senders of this process unparked (for the tests). */
    private final LongAdder unparkedBySenders = new LongAdder();

    /** A thread that waits until the word at {@code word} holds {@code value} ({@code equal}), or no longer does. */
    private record Waiter(Thread thread, long word, long value, boolean equal) {
        boolean ready(MemoryRegion f) {
            return ShmFabric.holds(f, word, value, equal);
        }
    }

    /** A watcher whose bell is in the slot at file offset {@code slot}, which it owns until closed. */
    ShmReplyWatcher(ShmFile file, long slot) {
        this.file = file;
        this.f = file.control();
        this.slot = slot;
        this.bell = slot + ShmLayout.SLOT_BELL;
        this.thread = Thread.ofPlatform().daemon().name("shm-reply-watcher").start(this::run);
    }

    /** The file offset of the slot this watcher's bell is in. */
    long slot() {
        return slot;
    }

    /** The file offset of this watcher's bell, the word its waiters name in their wake words. */
    long bell() {
        return bell;
    }

    /**
     * Unparks the waiter of the slot at {@code waiterSlot} if what it waits for is there, on the
     * calling thread (a sender of this process: {@link ShmFabric#wake}); whether it did. The sender
     * stored its message before it read the waiter's wake word, and the waiter listed itself before
     * it stored that word: so a waiter whose wake word names this bell is listed here, or has ended
     * that sleep and looks again before its next.
     */
    boolean unparkIfReady(long waiterSlot) {
        Long key = waiterSlot;
        Waiter w = waiters.get(key);
        if (w != null && w.ready(f) && waiters.remove(key, w)) { // unparked once only
            unparkedBySenders.increment();
            LockSupport.unpark(w.thread);
            return true;
        }
        return false;
    }

    /** How many waiters senders of this process unparked themselves ({@link #unparkIfReady}). */
    long unparkedBySenders() {
        return unparkedBySenders.sum();
    }

    /**
     * Parks the calling thread (its endpoint's slot at {@code waiterSlot}) until the word at
     * {@code word} holds {@code value} ({@code equal}: an rpc's reply came) or no longer does (a
     * message came), or {@code timeoutNs} passes ({@link Long#MAX_VALUE}: no timeout, but every
     * {@link ShmFabric#replySleepNs} the watcher unparks every waiter, to check that its server
     * lives), or a spurious wake: the caller looks again in any case.
     */
    void await(long waiterSlot, long word, long value, boolean equal, long timeoutNs) {
        Waiter waiter = new Waiter(Thread.currentThread(), word, value, equal);
        Long key = waiterSlot;
        waiters.put(key, waiter);
        try {
            f.write8(waiterSlot + ShmLayout.SLOT_WAKE, bell);
            if (!waiter.ready(f) && running) {
                if (timeoutNs == Long.MAX_VALUE) {
                    LockSupport.park(this); // untimed: each timed park of a virtual thread costs a timer task
                } else {
                    LockSupport.parkNanos(this, Math.max(1, timeoutNs));
                }
            }
        } finally {
            waiters.remove(key);
        }
    }

    /** How many waiters it unparked because their reply was there. */
    long woken() {
        return woken;
    }

    private void run() {
        long allWokenAt = System.nanoTime();
        while (running) {
            int rung = (int) f.read8(bell); // before the look: a ring after it ends the sleep at once
            long now = System.nanoTime();
            if (now - allWokenAt >= ShmFabric.replySleepNs) {
                allWokenAt = now;
                for (Waiter w : waiters.values()) {
                    LockSupport.unpark(w.thread); // to check that its server lives
                }
            }
            unparkReplied();
            if (running) {
                file.sleepOn(bell, rung, waiters.isEmpty() ? sleepNs : Math.min(sleepNs, ShmFabric.replySleepNs));
            }
        }
        for (Waiter w : waiters.values()) {
            LockSupport.unpark(w.thread); // they look again, and find the fabric closed
        }
    }

    /** Unparks every waiter whose reply is there; whether there was one. */
    private boolean unparkReplied() {
        boolean any = false;
        for (var entry : waiters.entrySet()) {
            Waiter w = entry.getValue();
            if (w.ready(f) && waiters.remove(entry.getKey(), w)) { // unparked once only
                woken++; // this thread only
                any = true;
                LockSupport.unpark(w.thread);
            }
        }
        return any;
    }

    /** Stops the watcher (its waiters look again); the caller frees its slot. */
    @Override
    public void close() {
        running = false;
        file.ring(bell);
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
