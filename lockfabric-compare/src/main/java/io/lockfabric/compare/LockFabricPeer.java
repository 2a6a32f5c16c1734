package io.lockfabric.compare;

import io.lockfabric.Held;
import io.lockfabric.LockFabric;
import io.lockfabric.LockSpace;
import io.lockfabric.SpaceOptions;
import io.lockfabric.lock.Mode;

/**
 * LockFabric through its client API: {@code LockSpace.acquire(key, mode)} and {@code Held.close()}
 * on a fabric ({@code local}, a {@code tcp://} memory node, or any address {@code Fabrics.open}
 * takes, {@code shm:PATH} among them when its fabric is on the class path), with one protocol, a
 * pool of one endpoint per client thread and a space of its own.
 */
final class LockFabricPeer implements PeerClient {
    private final LockFabric fabric;
    private final LockSpace space;
    /** Whether {@link #close} drops the space (the process that made it for the row). */
    private boolean dropOnClose;

    private LockFabricPeer(LockFabric fabric, LockSpace space) {
        this.fabric = fabric;
        this.space = space;
    }

    /**
     * Opens {@code address} and a space named {@code spaceName} on it with {@code protocol} (null:
     * the client API's default for the fabric), with slots enough that few of the workload's locks
     * share one, and {@code localHandovers} ({@link LockFabric.Builder#localHandovers}).
     */
    static LockFabricPeer open(String address, String protocol, String spaceName, CompareWorkload w, int localHandovers) {
        LockFabric lf = LockFabric.builder(address).poolSize(w.threads()).localHandovers(localHandovers).open();
        try {
            SpaceOptions.Builder options = SpaceOptions.builder().slots(slotsFor(w.locks()));
            if (protocol != null) {
                options.protocol(protocol);
            }
            return new LockFabricPeer(lf, lf.lockSpace(spaceName, options.build()));
        } catch (RuntimeException e) {
            lf.close();
            throw e;
        }
    }

    /** Slots for {@code locks} keys: four per key, a power of two, at least the space's default. */
    static long slotsFor(int locks) {
        long want = Math.max(SpaceOptions.DEFAULT_SLOTS, 4L * locks);
        return Long.highestOneBit(want - 1) << 1;
    }

    /** The protocol the space runs. */
    String protocol() {
        return space.protocol();
    }

    /**
     * Takes lock {@code lock}, whose key is its number, made for this call as an application makes
     * a key from its data. A table of 100 000 keys made in advance cost a cycle two or three cache
     * misses (the table, the string, its bytes) that are no part of the lock: two client processes on
     * the shm fabric made 2.2M ops/s with it and 3.2M without, side by side.
     */
    @Override
    public Release acquire(int lock, boolean shared) {
        Held held = space.acquire(Integer.toString(lock), shared ? Mode.SHARED : Mode.EXCLUSIVE);
        return held::close;
    }

    /**
     * Makes {@link #close} drop the space: the row's space is of no use after it, and a memory node
     * that outlives the command (a {@code shm:} file, a running {@code lockfabric serve}) would
     * otherwise keep its table, until a file of fixed capacity has no room for the next run's.
     */
    LockFabricPeer droppingOnClose() {
        dropOnClose = true;
        return this;
    }

    @Override
    public void close() {
        try {
            if (dropOnClose) {
                fabric.dropSpace(space.name());
            }
        } catch (RuntimeException e) {
            // another client still has it open (a client process not gone yet): a serving memory node drops it after its grace
        } finally {
            fabric.close();
        }
    }
}
