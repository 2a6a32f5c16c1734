package io.lockfabric.shm;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableDroppedException;
import io.lockfabric.fabric.TableInUseException;
import io.lockfabric.fabric.TableSpec;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Dropping tables of the shm fabric in one JVM (two fabrics on one file stand for two processes):
 * refused while another endpoint has the table open, forced from under it, memory given back and
 * reused, a drop left half done by its dropper finished by the next one.
 */
class ShmTableDropTest extends ShmDirectoryTest {
    private ShmFabric open(Path file, long capacity) {
        return ShmFabric.builder().path(file).capacityBytes(capacity).build();
    }

    @Test
    void aTableNobodyHasOpenIsDroppedAndItsMemoryReused() {
        Path file = dir.resolve("drop.shm");
        long heap = 8L << 20;
        try (ShmFabric a = open(file, ShmLayout.HEAP_AT + heap)) {
            Endpoint e = a.newEndpoint();
            TableSpec big = new TableSpec("big", "test", 1, 6L << 20);
            Table t = e.openTable(big);
            e.queuePair(0).write8(t.at(64), 42);
            long at = ShmTestAccess.fileOffset(a.file(), t.at(0));
            assertThrows(io.lockfabric.fabric.FabricException.class, () -> e.openTable(new TableSpec("other", "test", 1, 6L << 20)),
                    "the heap holds one such table");
            assertEquals(6L << 20, a.dropTable(0, "big", List.of(e)), "the dropper's own endpoint does not count");
            assertThrows(TableDroppedException.class, () -> e.queuePair(0).read8(t.at(64)));
            assertEquals(0, a.dropTable(0, "big", false), "nothing left to drop");
            java.util.List<Long> recent = new java.util.ArrayList<>(List.of(t.address()));
            for (int round = 0; round < 70; round++) { // more rounds than a directory entry has generations
                Table again = e.openTable(new TableSpec("other", "test", 1, 6L << 20));
                assertEquals(at, ShmTestAccess.fileOffset(a.file(), again.at(0)), "the freed memory is reused");
                assertTrue(!recent.contains(again.address()), "a new table has a region id none of the last "
                        + (ShmLayout.GENERATIONS - 1) + " tables of its entry had");
                recent.add(again.address());
                if (recent.size() >= ShmLayout.GENERATIONS) {
                    recent.remove(0);
                }
                assertEquals(0, e.queuePair(0).read8(again.at(64)), "a new table starts zeroed");
                e.queuePair(0).write8(again.at(64), round + 1);
                a.dropTable(0, "other", List.of(e));
            }
        }
    }

    @Test
    void aTableAnotherEndpointHasOpenIsNotDroppedUnlessForced() {
        Path file = dir.resolve("in-use.shm");
        try (ShmFabric a = open(file, 16L << 20); ShmFabric b = open(file, 16L << 20)) {
            Endpoint ea = a.newEndpoint();
            Endpoint eb = b.newEndpoint();
            TableSpec spec = new TableSpec("shared", "test", 4, 4096);
            Table ta = ea.openTable(spec);
            Table tb = eb.openTable(spec);
            TableInUseException busy = assertThrows(TableInUseException.class, () -> a.dropTable(0, "shared", List.of(ea)));
            assertTrue(busy.getMessage().contains("open by 1 other endpoint"), busy.getMessage());
            assertThrows(TableInUseException.class, () -> a.dropTable(0, "shared", false));
            eb.queuePair(0).faa(tb.at(0), 1); // nothing changed
            eb.close();
            assertEquals(4096, a.dropTable(0, "shared", List.of(ea)), "its other opener closed");

            Endpoint eb2 = b.newEndpoint();
            Table t2 = eb2.openTable(spec);
            long at = ShmTestAccess.fileOffset(b.file(), t2.at(0));
            assertEquals(4096, a.dropTable(0, "shared", true), "forced from under an open endpoint");
            assertThrows(TableDroppedException.class, () -> eb2.queuePair(0).read8(t2.at(0)));
            Table fresh = ea.openTable(spec);
            assertNotEquals(at, ShmTestAccess.fileOffset(a.file(), fresh.at(0)),
                    "the memory of a table forced from under an open endpoint is kept until it closes");
            eb2.close();
            a.dropTable(0, "shared", true);
            assertEquals(at, ShmTestAccess.fileOffset(a.file(), ea.openTable(spec).at(0)), "then it is reused");
            assertTrue(ta.address() != 0);
        }
    }

    @Test
    void aDropLeftHalfDoneIsFinishedByTheNextDirectoryChange() {
        Path file = dir.resolve("half.shm");
        try (ShmFabric a = open(file, 16L << 20)) {
            Endpoint e = a.newEndpoint();
            Table t = e.openTable(new TableSpec("half", "test", 1, 4096));
            e.close();
            ShmFile f = a.file();
            f.locked(() -> { // what a dropper killed after its first store leaves
                int index = f.find("half".getBytes(StandardCharsets.UTF_8));
                f.control().write8(ShmLayout.dirEntry(index) + ShmLayout.DIR_LIVE_ID, 0);
                return null;
            });
            Endpoint e2 = a.newEndpoint();
            assertThrows(TableDroppedException.class, () -> e2.queuePair(0).read8(t.at(0)));
            Table again = e2.openTable(new TableSpec("half", "test", 1, 4096));
            assertNotEquals(t.address(), again.address(), "the name made a new table: the drop was finished");
            assertEquals(ShmTestAccess.fileOffset(f, t.at(0)), ShmTestAccess.fileOffset(f, again.at(0)),
                    "and the half-dropped table's memory was given back");
        }
    }

    /**
     * A thread that is interrupted while it opens or drops a table does not break the file for the
     * process (an interrupt inside {@code FileChannel.lock} would close the channel): the change is
     * made whole and the interrupt kept for the caller.
     */
    @Test
    void anInterruptedThreadOpeningATableBreaksNothing() {
        try (ShmFabric a = open(dir.resolve("interrupt.shm"), 16L << 20)) {
            Endpoint e = a.newEndpoint();
            Thread.currentThread().interrupt();
            Table t = e.openTable(new TableSpec("interrupted", "test", 1, 4096));
            assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
            e.queuePair(0).write8(t.at(0), 1);
            Thread.currentThread().interrupt();
            assertEquals(4096, a.dropTable(0, "interrupted", List.of(e)));
            assertTrue(Thread.interrupted());
            e.openTable(new TableSpec("after", "test", 1, 4096));
        }
    }

    /**
     * Four fabrics on one file (as four processes), each on its own thread, create tables of random
     * sizes, fill them with their own pattern, and drop them, over and over: no table is ever given
     * memory another live table has (each finds its pattern whole before it drops it), and all the
     * memory is given back at the end.
     */
    @Test
    @org.junit.jupiter.api.Tag("stress")
    void concurrentCreatesAndDropsNeverShareMemory() throws Exception {
        Path file = dir.resolve("churn.shm");
        long heap = 4L << 20;
        java.util.List<ShmFabric> fabrics = new java.util.ArrayList<>();
        java.util.List<Thread> threads = new java.util.ArrayList<>();
        java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
        try {
            for (int f = 0; f < 4; f++) {
                ShmFabric fabric = open(file, ShmLayout.HEAP_AT + heap);
                fabrics.add(fabric);
                int me = f;
                threads.add(Thread.ofPlatform().start(() -> {
                    try (Endpoint e = fabric.newEndpoint()) {
                        java.util.Random random = new java.util.Random(me);
                        java.util.ArrayDeque<Object[]> mine = new java.util.ArrayDeque<>();
                        for (int round = 0; round < 300; round++) {
                            long bytes = 64 * (1 + random.nextInt(2048));
                            String name = "t" + me + "-" + round;
                            long pattern = ((long) me << 32) | round;
                            try {
                                Table t = e.openTable(new TableSpec(name, "test", 1, bytes));
                                for (long off = 0; off < bytes; off += 8) {
                                    e.queuePair(0).write8(t.at(off), pattern);
                                }
                                mine.add(new Object[] {name, t, pattern, bytes});
                            } catch (io.lockfabric.fabric.FabricException full) {
                                assertTrue(full.getMessage().contains("cannot hold"), full.getMessage());
                            }
                            if (mine.size() > 3 || (!mine.isEmpty() && random.nextBoolean())) {
                                Object[] old = mine.poll();
                                Table t = (Table) old[1];
                                for (long off = 0; off < (long) old[3]; off += 8) {
                                    assertEquals((long) old[2], e.queuePair(0).read8(t.at(off)), old[0] + " at " + off);
                                }
                                assertEquals((long) old[3], fabric.dropTable(0, (String) old[0], List.of(e)));
                            }
                        }
                        for (Object[] old : mine) {
                            fabric.dropTable(0, (String) old[0], List.of(e));
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            Endpoint e = fabrics.get(0).newEndpoint();
            Table whole = e.openTable(new TableSpec("whole", "test", 1, heap));
            assertEquals(ShmLayout.HEAP_AT, ShmTestAccess.fileOffset(fabrics.get(0).file(), whole.at(0)),
                    "every table's memory was given back");
        } finally {
            for (ShmFabric f : fabrics) {
                f.close();
            }
        }
    }
}
