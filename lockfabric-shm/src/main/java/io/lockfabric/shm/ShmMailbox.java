package io.lockfabric.shm;

import io.lockfabric.fabric.CountingMailbox;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.IdleStrategy;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.PeerUnreachableException;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.fabric.WaitInterruptedException;
import io.lockfabric.fabric.memory.MemoryRegion;
import io.lockfabric.fabric.realtime.RealTimeClock;

import java.util.concurrent.TimeUnit;

/**
 * A mailbox of the shm fabric: its messages arrive in its endpoint slot's ring in the file
 * ({@link ShmLayout}), which senders of any process append to under the slot's ring lock (a
 * {@link PidLock}, so a sender killed while appending wedges nobody: a message is published by its
 * tail store, and one half written is simply not there) and the owner drains without a lock. The
 * owner spins (a platform thread also yields) a moment, then sleeps until a sender rings its bell,
 * as a caller waits for an rpc's reply ({@link ShmFabric}); where there are no {@link Futex futexes}
 * it parks with a growing period instead. Never a busy loop at rest.
 *
 * <p>A send checks that the receiver's slot still holds its id and that its process is alive
 * ({@link ProcessLiveness}); a closed or dead receiver fails the send with
 * {@link PeerUnreachableException}, as RNR does. A full ring (a receiver that does not read for long)
 * makes the sender wait up to {@link #FULL_RING_WAIT_NS}, then fail. Sends belong to the owner's thread.
 */
final class ShmMailbox extends CountingMailbox {
    /** How long a send waits for room in a receiver's full ring before it fails. */
    static final long FULL_RING_WAIT_NS = TimeUnit.SECONDS.toNanos(5);

    private final ShmFabric fabric;
    private final MemoryRegion file;
    private final long slot;
    private long head;

    ShmMailbox(ShmFabric fabric, EndpointId id, long slot) {
        super(id);
        this.fabric = fabric;
        this.file = fabric.file().control();
        this.slot = slot;
        this.head = file.read8(slot + ShmLayout.SLOT_HEAD);
    }

    @Override
    public void send(EndpointId to, int channel, int type, long lock, long a, long b) {
        long target = liveSlot(to);
        long giveUpAt = 0;
        IdleStrategy idle = null;
        while (!append(target, to, channel, type, lock, a, b)) {
            long now = System.nanoTime();
            if (idle == null) {
                idle = RealTimeClock.INSTANCE.idleStrategy();
                giveUpAt = now + FULL_RING_WAIT_NS;
            } else if (now >= giveUpAt) {
                throw new FabricException("the mailbox of " + to + " is full (" + ShmLayout.RING_CAPACITY
                        + " messages) and was not read for " + TimeUnit.NANOSECONDS.toMillis(FULL_RING_WAIT_NS) + " ms");
            }
            idle.idle();
            liveSlot(to);
        }
        long wake = fabric.file().bellToRing(target); // after the tail: the receiver flags, then looks
        if (wake != 0) {
            fabric.wake(target, wake);
        }
        counters.record(VerbKind.SEND, Message.WIRE_BYTES);
    }

    /** Appends under the ring lock; false if the ring is full. */
    private boolean append(long target, EndpointId to, int channel, int type, long lock, long a, long b) {
        PidLock locks = fabric.file().locks();
        long ringLock = target + ShmLayout.SLOT_RING_LOCK;
        locks.lock(ringLock);
        try {
            if (file.read8(target + ShmLayout.SLOT_ID) != to.pack()) {
                throw new PeerUnreachableException(to);
            }
            long tail = file.read8(target + ShmLayout.SLOT_TAIL);
            if (tail - file.read8(target + ShmLayout.SLOT_HEAD) >= ShmLayout.RING_CAPACITY) {
                return false;
            }
            long m = ShmLayout.message(target, tail);
            file.write8(m + ShmLayout.MSG_FROM, id().pack());
            file.write8(m + ShmLayout.MSG_CHANNEL_TYPE, ((long) channel << 32) | (type & 0xFFFF_FFFFL));
            file.write8(m + ShmLayout.MSG_LOCK, lock);
            file.write8(m + ShmLayout.MSG_A, a);
            file.write8(m + ShmLayout.MSG_B, b);
            file.write8(target + ShmLayout.SLOT_TAIL, tail + 1); // publishes the message
            return true;
        } finally {
            locks.unlock(ringLock);
        }
    }

    @Override
    public void ping(EndpointId to) {
        liveSlot(to);
        counters.record(VerbKind.SEND, Message.WIRE_BYTES);
    }

    /** The slot of {@code to} if it is a live endpoint. */
    private long liveSlot(EndpointId to) {
        long target = fabric.slotOf(to);
        if (target < 0 || file.read8(target + ShmLayout.SLOT_ID) != to.pack()
                || !fabric.file().liveness().isAlive(file.read8(target + ShmLayout.SLOT_OWNER))) {
            throw new PeerUnreachableException(to);
        }
        return target;
    }

    @Override
    public Message poll() {
        long tail = file.read8(slot + ShmLayout.SLOT_TAIL);
        if (head == tail) {
            return null;
        }
        long m = ShmLayout.message(slot, head);
        long channelType = file.read8(m + ShmLayout.MSG_CHANNEL_TYPE);
        Message message = new Message(EndpointId.unpack(file.read8(m + ShmLayout.MSG_FROM)), (int) (channelType >>> 32),
                (int) channelType, file.read8(m + ShmLayout.MSG_LOCK), file.read8(m + ShmLayout.MSG_A),
                file.read8(m + ShmLayout.MSG_B));
        head++;
        file.write8(slot + ShmLayout.SLOT_HEAD, head); // frees the ring position
        return message;
    }

    /** @throws WaitInterruptedException if the owner is interrupted while it waits */
    @Override
    public Message await(long deadlineNanos) {
        Message m = poll();
        if (m != null) {
            return m;
        }
        IdleStrategy idle = RealTimeClock.INSTANCE.idleStrategy();
        int awake = ShmFabric.awakeLooks();
        int looks = 0;
        try {
            while ((m = poll()) == null) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                WaitInterruptedException.throwIfInterrupted("a message");
                if (looks < awake || !Futex.AVAILABLE) {
                    looks++;
                    idle.idle();
                } else {
                    fabric.sleepOnce(slot, slot + ShmLayout.SLOT_TAIL, head, false, left);
                }
            }
        } finally {
            if (looks >= awake) {
                fabric.awake(slot);
            }
        }
        return m;
    }
}
