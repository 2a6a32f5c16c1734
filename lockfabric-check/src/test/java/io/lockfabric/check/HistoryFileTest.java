package io.lockfabric.check;

import io.lockfabric.lock.Mode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The history file format: what is written is read back, compactly; damaged files are refused with a reason. */
class HistoryFileTest {
    private static final HistoryFile.Header HEADER = new HistoryFile.Header(new ClockDomain("linux:boot:1"), "h", 42, "test");

    private static HistoryFile sample(int holds) {
        var rnd = new SplittableRandom(3);
        List<Hold> point = new ArrayList<>();
        List<Hold> range = new ArrayList<>();
        long t = System.nanoTime();
        for (int i = 0; i < holds; i++) {
            t += rnd.nextLong(20_000);
            long held = rnd.nextLong(100_000);
            Mode m = rnd.nextBoolean() ? Mode.EXCLUSIVE : Mode.SHARED;
            long lock = rnd.nextLong(100);
            point.add(new Hold(rnd.nextInt(8), lock, lock + 1, m, i, t, i % 97 == 0 ? Hold.NEVER : t + held));
            range.add(new Hold(rnd.nextInt(8), lock * 16, lock * 16 + 1 + rnd.nextLong(256), m, -i, t, t + held));
        }
        return new HistoryFile(HEADER, List.of(new HistoryFile.Run("point", "cas", "bench-cas-t", true, point),
                new HistoryFile.Run("range", "citron", "rbench-citron-t", false, range)));
    }

    @Test
    void whatIsWrittenIsReadBackCompactly(@TempDir Path dir) throws IOException {
        HistoryFile h = sample(10_000);
        Path file = dir.resolve("p.lfh");
        h.write(file);
        HistoryFile back = HistoryFile.read(file);
        assertEquals(h, back);
        long perHold = Files.size(file) / 20_000;
        assertTrue(perHold <= 16, "compact: " + perHold + " bytes per hold");
        try (var files = Files.list(dir)) {
            assertEquals(List.of(file), files.toList(), "no temporary file left behind");
        }
    }

    @Test
    void damagedFilesAreRefusedWithAReason() throws IOException {
        var out = new ByteArrayOutputStream();
        sample(100).writeTo(out);
        byte[] bytes = out.toByteArray();
        var cut = assertThrows(IllegalArgumentException.class,
                () -> HistoryFile.readFrom(new ByteArrayInputStream(Arrays.copyOf(bytes, bytes.length - 3))));
        assertTrue(cut.getMessage().contains("cut short"), cut.getMessage());
        byte[] version = bytes.clone();
        version[HistoryFileLayout.MAGIC.length + 1] = 9;
        var v = assertThrows(IllegalArgumentException.class, () -> HistoryFile.readFrom(new ByteArrayInputStream(version)));
        assertTrue(v.getMessage().contains("version 9"), v.getMessage());
        var text = assertThrows(IllegalArgumentException.class,
                () -> HistoryFile.readFrom(new ByteArrayInputStream("hello, world\n".getBytes())));
        assertTrue(text.getMessage().contains("not a lockfabric history file"), text.getMessage());
    }

    @Test
    void thisProcessHasAClockDomain() {
        ClockDomain d = ClockDomain.ofThisProcess();
        assertEquals(d, ClockDomain.ofThisProcess(), "stable within a process");
        assertTrue(d.id().startsWith("linux:") || d.id().startsWith("host:"), d.id());
    }
}
