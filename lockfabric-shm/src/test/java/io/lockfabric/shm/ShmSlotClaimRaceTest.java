package io.lockfabric.shm;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Message;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.protocols.LockProtocols;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Two processes that open endpoints at the same moment (as the processes of
 * {@code TwoProcessFileCounterTest} do when their pools are made) never share an endpoint slot. The
 * other fabric opens its endpoint exactly between this fabric's claim of a slot and the making of
 * its endpoint ({@link ShmFabric#onSlotClaimed}), where a process scheduled at that moment would.
 * Sharing a slot, the endpoint whose id was overwritten lived on, but sends and pings to it failed
 * as to a dead one: its DecLock node-mate released its lock on its behalf while it held it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ShmSlotClaimRaceTest extends ShmDirectoryTest {
    /** Opens {@code b}'s endpoint while {@code a} has claimed a slot for one of its own, then {@code a}'s. */
    private static Endpoint[] openInTheClaimWindow(ShmFabric a, ShmFabric b) {
        AtomicReference<Endpoint> inWindow = new AtomicReference<>();
        a.onSlotClaimed(() -> {
            a.onSlotClaimed(null);
            inWindow.set(b.newEndpoint());
        });
        Endpoint ea = a.newEndpoint();
        assertNotNull(inWindow.get(), "the hook ran");
        return new Endpoint[] {ea, inWindow.get()};
    }

    @Test
    void anEndpointOpenedWhileAnotherProcessClaimsASlotGetsASlotOfItsOwn() {
        Path file = dir.resolve("claim.shm");
        try (ShmFabric a = ShmFabric.builder().path(file).capacityBytes(16L << 20).build();
             ShmFabric b = ShmFabric.builder().path(file).build()) {
            Endpoint[] both = openInTheClaimWindow(a, b);
            Endpoint ea = both[0];
            Endpoint eb = both[1];
            assertNotEquals(ea.id().queue(), eb.id().queue(), "two live endpoints on one slot: " + ea.id() + ", " + eb.id());
            Endpoint sender = a.newEndpoint();
            for (Endpoint to : both) {
                sender.mailbox().ping(to.id());
                sender.mailbox().send(to.id(), 1, 2, to.id().pack(), 0, 0);
            }
            for (Endpoint to : both) {
                Message m = to.mailbox().await(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
                assertNotNull(m, to.id() + " got no message");
                assertEquals(to.id().pack(), m.lock(), to.id() + " got another endpoint's message");
            }
        }
    }

    /**
     * The failure this led to: {@code b1} (opened in the window) holds a declock-tf lock; {@code b2},
     * of the same fabric (compute node), waits for it and looks at it every {@code lease/8} with a
     * ping. With the slot shared the ping failed, {@code b2} took {@code b1} for dead and was granted
     * the lock while {@code b1} held it. Held here for 300 ms, well under the holder expiry (2 x
     * lease = 800 ms).
     */
    @Test
    void aNodeMateIsNotGrantedALockWhileItsLiveHolderHoldsIt() throws Exception {
        Path file = dir.resolve("declock.shm");
        LockOptions options = LockOptions.parse(List.of("lease-ns=400ms"));
        try (ShmFabric a = ShmFabric.builder().path(file).capacityBytes(16L << 20).build();
             ShmFabric b = ShmFabric.builder().path(file).build()) {
            Endpoint[] both = openInTheClaimWindow(a, b);
            Endpoint b1 = both[1];
            Endpoint b2 = b.newEndpoint();
            LockClient holder = LockProtocols.byName("declock-tf").open(b1, "counter", 1, options);
            LockClient mate = LockProtocols.byName("declock-tf").open(b2, "counter", 1, options);
            AtomicBoolean holding = new AtomicBoolean();
            AtomicBoolean overlapped = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Grant g = holder.acquire(0, Mode.EXCLUSIVE);
            holding.set(true);
            ClientThread waiter = b.spawn("mate", () -> {
                try {
                    Grant m = mate.acquire(0, Mode.EXCLUSIVE);
                    overlapped.set(holding.get());
                    mate.release(m);
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            Thread.sleep(300); // the critical section
            holding.set(false);
            holder.release(g);
            waiter.join();
            assertEquals(null, failure.get());
            assertFalse(overlapped.get(), "the node-mate was granted the lock while its live holder held it");
            holder.close();
            mate.close();
        }
    }
}
