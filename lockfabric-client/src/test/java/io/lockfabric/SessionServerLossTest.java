package io.lockfabric;

import io.lockfabric.lock.Mode;
import io.lockfabric.net.TcpMemoryNode;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link LockSession} whose memory node is stopped while it holds several locks: every hold turns
 * invalid and is reported lost once, closing returns at once, the session's next acquisition fails
 * with {@link FabricUnreachableException}, and once a server is back the session works again.
 */
@Tag("faults")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionServerLossTest {
    @Test
    void aLostMemoryNodeLosesEveryHoldOfTheSessionOnceAndTheSessionRecovers() throws Exception {
        java.util.logging.Logger.getLogger(TcpMemoryNode.class.getName()).setLevel(java.util.logging.Level.WARNING);
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).start();
        TcpMemoryNode restarted = null;
        try (LockFabric lf = LockFabric.builder(server.uri()).poolSize(2).open()) {
            LockSpace s = lf.lockSpace("txn", SpaceOptions.builder().protocol("dslr").option("lease-ns", "60s").build());
            List<Held> lost = new CopyOnWriteArrayList<>();
            s.onLoss(lost::add);
            LockSession session = s.session();
            Held a = session.acquire("a", Mode.EXCLUSIVE);
            Held b = session.acquire("b", Mode.SHARED);
            Held c = session.acquire("c", Mode.EXCLUSIVE);
            assertTrue(a.isValid() && b.isValid() && c.isValid());

            server.close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (lost.size() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(3, lost.size(), "every hold of the session told lost: " + lost);
            assertFalse(a.isValid() || b.isValid() || c.isValid());
            assertTimeoutPreemptively(Duration.ofSeconds(2), session::close);
            assertEquals(0, session.heldSlots());
            assertThrows(FabricUnreachableException.class, () -> session.acquire("a"));
            Thread.sleep(50);
            assertEquals(3, lost.size(), "reported once each");
            assertEquals(3, s.stats().losses());

            restarted = TcpMemoryNode.builder().port(server.port()).capacityBytes(16L << 20).start();
            Held again = session.acquire("a");
            Held more = session.acquire("b");
            assertTrue(again.isValid() && more.isValid());
            session.close();
            try (Held h = s.tryAcquire("a", Duration.ofSeconds(5)).orElseThrow()) {
                assertTrue(h.isValid(), "the session released what it took on the new connection");
            }
        } finally {
            server.close();
            if (restarted != null) {
                restarted.close();
            }
        }
    }
}
