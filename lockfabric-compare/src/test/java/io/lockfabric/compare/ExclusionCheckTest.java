package io.lockfabric.compare;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The check's counts, in this JVM's memory and in a mapped file: who is inside a lock is told at
 * entry, locks do not share counts, and two maps of one file (two client processes) count in the
 * same words.
 */
class ExclusionCheckTest {
    @TempDir
    Path dir;

    @Test
    void theHeapCheckCountsWhoIsInside() {
        countsWhoIsInside(ExclusionCheck.inMemory(8));
    }

    @Test
    void theMappedCheckCountsWhoIsInside() {
        countsWhoIsInside(ExclusionCheck.Mapped.map(dir.resolve("check"), 8, true));
    }

    private static void countsWhoIsInside(ExclusionCheck c) {
        long alone = c.writerIn(3);
        assertEquals(1, ExclusionCheck.writersOf(alone));
        assertEquals(0, ExclusionCheck.readersOf(alone));
        // a reader that comes in meanwhile sees the writer; a second writer sees both
        assertEquals(1, ExclusionCheck.writersOf(c.readerIn(3)));
        long second = c.writerIn(3);
        assertEquals(2, ExclusionCheck.writersOf(second));
        assertEquals(1, ExclusionCheck.readersOf(second));
        // the neighbours' words are untouched
        assertEquals(0, c.writers(2) + c.readers(2) + c.writers(4) + c.readers(4));
        c.writerOut(3);
        c.writerOut(3);
        assertEquals(0, c.writers(3));
        assertEquals(1, c.readers(3));
        c.readerOut(3);
        assertEquals(0, c.writers(3) + c.readers(3));
        // readers in numbers above a 32-bit field's low half, and writers out after them: no field borrows from the other
        for (int i = 0; i < 70_000; i++) {
            c.readerIn(5);
        }
        assertEquals(70_000, c.readers(5));
        assertEquals(0, c.writers(5));
        assertEquals(1, ExclusionCheck.writersOf(c.writerIn(5)));
        c.writerOut(5);
        assertEquals(70_000, c.readers(5));
        assertEquals(0, c.writers(5));
        // the counters add up, each lock's its own, and leave the state words alone
        c.increment(0);
        c.increment(7);
        c.increment(7);
        assertEquals(3, c.sum());
        assertEquals(0, c.writers(7) + c.readers(7));
    }

    @Test
    void twoMapsOfOneFileCountTogether() throws InterruptedException {
        Path file = dir.resolve("shared");
        ExclusionCheck.Mapped a = ExclusionCheck.Mapped.map(file, 4, true);
        ExclusionCheck.Mapped b = ExclusionCheck.Mapped.map(file, 4, false);
        a.writerIn(1);
        assertEquals(2, ExclusionCheck.writersOf(b.writerIn(1)), "the second process's writer sees the first");
        // unguarded increments from both maps, each under a lock of this JVM: none is lost
        Object lock = new Object();
        List<Thread> threads = new ArrayList<>();
        for (ExclusionCheck c : List.of(a, b)) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 10_000; i++) {
                    synchronized (lock) {
                        c.increment(2);
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(20_000, a.sum());
        assertEquals(20_000, b.sum());
        assertThrows(IllegalArgumentException.class, () -> ExclusionCheck.Mapped.map(file, 5, false),
                "a file of another size is refused");
    }
}
