package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabrics;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pollers of the tcp fabric: the memory node's I/O threads ({@link TcpMemoryNode.Builder#spinNs})
 * and the readers of virtual-thread clients ({@link TcpFabric.Builder#readSpinNs}) poll for a while after the last traffic and then block: never a busy loop at rest. Counted with their poll counters,
 * never by timing: the spins here (50 ms) are far shorter than the rests that follow them.
 */
class TcpSpinTest {
    private static final long SPIN_NS = 50_000_000;

    @Test
    void theServerAndTheReadersPollAfterTrafficAndNotAtRest() throws Exception {
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(1L << 20).spinNs(SPIN_NS).start();
             TcpFabric fabric = TcpFabric.builder().uri(server.uri() + "?threads=virtual&spin=50ms").build()) {
            assertEquals(SPIN_NS, fabric.readSpinNs(), "spin= in the address");
            List<ClientThread> clients = new ArrayList<>();
            long[] sums = new long[4];
            for (int i = 0; i < 4; i++) {
                int me = i;
                clients.add(fabric.spawn("c" + i, () -> {
                    try (Endpoint e = fabric.newEndpoint()) {
                        Table t = e.openTable(new TableSpec("spin", "t", 1, 64));
                        QueuePair qp = e.queuePair(0);
                        for (int k = 0; k < 200; k++) {
                            sums[me] = qp.faa(t.at(8L * me), 1) + 1;
                        }
                    }
                }));
            }
            clients.forEach(ClientThread::join);
            for (long s : sums) {
                assertEquals(200, s, "every verb ran once");
            }
            Thread.sleep(4 * SPIN_NS / 1_000_000); // the spins that followed the last traffic are over
            long serverPolls = server.idlePolls();
            long readerPolls = fabric.readSpinPolls();
            assertTrue(serverPolls > 0, "the server's I/O threads polled after the last request");
            assertTrue(readerPolls > 0, "the readers polled after the last reply");
            Thread.sleep(6 * SPIN_NS / 1_000_000);
            assertEquals(serverPolls, server.idlePolls(), "at rest the server's I/O threads sleep");
            assertEquals(readerPolls, fabric.readSpinPolls(), "at rest the readers block");
        }
    }

    @Test
    void noSpinNeverPollsAndBadSpinsAreRefusedClearly() throws Exception {
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(1L << 20).spinNs(0).start();
             TcpFabric fabric = TcpFabric.builder().uri(server.uri() + "?threads=virtual&spin=0").build()) {
            fabric.spawn("c", () -> {
                try (Endpoint e = fabric.newEndpoint()) {
                    Table t = e.openTable(new TableSpec("spin", "t", 1, 64));
                    for (int k = 0; k < 50; k++) {
                        e.queuePair(0).faa(t.at(0), 1);
                    }
                }
            }).join();
            assertEquals(0, server.idlePolls());
            assertEquals(0, fabric.readSpinPolls());
            try (var viaFabrics = Fabrics.open(server.uri() + "?threads=virtual,spin=1ms")) {
                assertEquals(1_000_000, ((TcpFabric) viaFabrics).readSpinNs(), "Fabrics.open takes spin= too");
            }
            IllegalArgumentException soon = assertThrows(IllegalArgumentException.class,
                    () -> TcpFabric.builder().uri(server.uri() + "?spin=soon").build());
            assertTrue(soon.getMessage().contains("spin must be a time"), soon.getMessage());
            IllegalArgumentException long1 = assertThrows(IllegalArgumentException.class,
                    () -> Fabrics.open(server.uri() + "?spin=1s"));
            assertTrue(long1.getMessage().contains("spin must be in [0, 100ms]"), long1.getMessage());
        }
        IllegalArgumentException server = assertThrows(IllegalArgumentException.class,
                () -> TcpMemoryNode.builder().port(0).spinNs(-1).start());
        assertTrue(server.getMessage().contains("spin must be in"), server.getMessage());
    }
}
