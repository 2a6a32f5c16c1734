package io.lockfabric.fabric.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.RemoteAccessException;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.RpcCall;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableDroppedException;
import io.lockfabric.fabric.TableRefusedException;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.Verb;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

/** {@link MemoryNode#dropTable}: memory comes back, stale addresses fail clearly, service tables go with their owner. */
class MemoryNodeDropTest {
    @Test
    void thousandsOfCreateDropCyclesGiveEveryByteBack() {
        try (MemoryNode node = new MemoryNode(0, 1 << 20)) {
            node.openTable(new TableSpec("kept", "cas", 4, 64));
            long start = node.allocatedBytes();
            for (int i = 0; i < 5_000; i++) {
                // each table takes most of what is left: without the drop the second one would not fit
                Table t = node.openTable(new TableSpec("t" + i, "cas", 1, 768 * 1024));
                node.execute(new Verb.Faa(t.address(), 1));
                assertEquals(start + 768 * 1024, node.allocatedBytes());
                assertEquals(768 * 1024, node.dropTable("t" + i));
                assertEquals(start, node.allocatedBytes(), "cycle " + i);
            }
            assertEquals(1, node.tables().size(), "only the kept table is left");
        }
    }

    @Test
    void aDroppedTablesAddressesFailWithTableDropped() {
        try (MemoryNode node = new MemoryNode(0, 1 << 16)) {
            Table t = node.openTable(new TableSpec("gone", "cas", 1, 64).withService(host -> call -> call.reply(new byte[0])));
            node.execute(new Verb.Faa(t.address(), 5));
            assertEquals(64, node.dropTable("gone"));
            assertNull(node.table("gone"));
            TableDroppedException e = assertThrows(TableDroppedException.class,
                    () -> node.execute(new Verb.Read8(t.address())));
            assertTrue(e.getMessage().contains("'gone' was dropped"), e.getMessage());
            Recording call = new Recording();
            node.call(t.service(), call);
            assertTrue(call.failure.get().contains("'gone' was dropped"), call.failure.get());
            assertEquals(0, node.dropTable("gone"), "dropping twice drops nothing");
            assertThrows(RemoteAccessException.class, () -> node.execute(new Verb.Read8(RemoteAddress.of(99, 0))),
                    "a region that never was is a plain access error");

            Table again = node.openTable(new TableSpec("gone", "cas", 1, 64));
            assertNotEquals(t.address(), again.address(), "a new table of the old name gets a fresh region id");
            assertEquals(0L, node.execute(new Verb.Read8(again.address())), "and zeroed memory: the old lock state is gone");
        }
    }

    @Test
    void tablesAServiceCreatedAreDroppedWithItsTable() {
        try (MemoryNode node = new MemoryNode(0, 1 << 16)) {
            AtomicLong child = new AtomicLong();
            node.openTable(new TableSpec("parent", "citron", 1, 64).withService(host -> {
                child.set(host.openTable(new TableSpec("parent/exp-1", "citron", 1, 128)).address());
                return call -> call.reply(new byte[0]);
            }));
            assertEquals(192, node.allocatedBytes());
            assertEquals(192, node.footprintBytes("parent"));
            assertEquals("parent", node.parentOf("parent/exp-1"));
            assertThrows(IllegalArgumentException.class, () -> node.dropTable("parent/exp-1"),
                    "a service's table goes only with its owner");
            assertEquals(192, node.dropTable("parent"));
            assertEquals(0, node.allocatedBytes());
            assertThrows(TableDroppedException.class, () -> node.execute(new Verb.Read8(child.get())));
        }
    }

    @Test
    void aTableThatDoesNotFitIsRefused() {
        try (MemoryNode node = new MemoryNode(0, 1024)) {
            TableRefusedException e = assertThrows(TableRefusedException.class,
                    () -> node.openTable(new TableSpec("big", "cas", 1, 2048)));
            assertTrue(e.getMessage().contains("0 of 1024 bytes are in use"), e.getMessage());
        }
    }

    private static final class Recording implements RpcCall {
        final AtomicReference<String> failure = new AtomicReference<>();

        @Override
        public EndpointId caller() {
            return new EndpointId(0, 1);
        }

        @Override
        public byte[] request() {
            return new byte[0];
        }

        @Override
        public void reply(byte[] response) {
            throw new AssertionError("no reply expected");
        }

        @Override
        public void fail(String reason) {
            failure.set(reason);
        }
    }
}
