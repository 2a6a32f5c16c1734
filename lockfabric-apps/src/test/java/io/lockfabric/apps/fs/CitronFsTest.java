package io.lockfabric.apps.fs;

import io.lockfabric.LockFabric;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.Fabrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CitronFS's facade and client on the local fabric: files round-trip, grow, hole-read as zeros, truncate, scale. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CitronFsTest {
    private static final FsOptions SMALL = FsOptions.DEFAULTS.withMaxFiles(8).withExtents(64, 4096)
            .withDataBytesPerNode(1 << 20);

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    @Test
    void filesRoundTripGrowReadHolesAsZerosAndTruncate() {
        for (String manager : List.of("citron", "ss", "rpc-range", "lld", "mutex", "mutex:cas")) {
            try (LockFabric lf = LockFabric.open("local")) {
                CitronFs fs = CitronFs.open(lf, "fs", SMALL.withLockManager(manager));
                assertThrows(NoSuchElementException.class, () -> fs.open("nope"));
                try (FsFile f = fs.create("a")) {
                    assertEquals(0, f.size());
                    assertEquals(0, f.pread(new byte[10], 0), manager + ": an empty file reads nothing");
                    byte[] data = pattern(10_000, 1); // spans three 4 KiB extents
                    f.pwrite(data, 3_000);
                    assertEquals(13_000, f.size(), manager);
                    byte[] back = new byte[13_000];
                    assertEquals(13_000, f.pread(back, 0));
                    byte[] expected = new byte[13_000];
                    System.arraycopy(data, 0, expected, 3_000, data.length);
                    assertArrayEquals(expected, back, manager + ": the hole before the write reads zeros");
                    byte[] tail = new byte[100];
                    assertEquals(50, f.pread(tail, 12_950), manager + ": a read across the end is cut at it");
                    f.truncate(5_000);
                    assertEquals(5_000, f.size());
                    f.truncate(9_000);
                    byte[] grown = new byte[9_000];
                    assertEquals(9_000, f.pread(grown, 0));
                    assertArrayEquals(Arrays.copyOf(expected, 5_000), Arrays.copyOf(grown, 5_000));
                    assertArrayEquals(new byte[4_000], Arrays.copyOfRange(grown, 5_000, 9_000),
                            manager + ": bytes cut by a truncate read as zeros after it grows again");
                }
                assertEquals(9_000, fs.open("a").size(), "a second open sees the file");
                FsFile b = fs.create("b");
                b.pwrite(pattern(5, 2), 0);
                assertEquals(9_000, fs.create("a").size(), "create opens an existing file");
                assertEquals(5, b.size());
                assertThrows(IllegalArgumentException.class, () -> b.pwrite(new byte[1], 64 * 4096));
                assertThrows(IllegalArgumentException.class, () -> b.truncate(-1));
                b.close();
                assertThrows(IllegalStateException.class, b::size);
            }
        }
    }

    @Test
    void badInputGetsClearErrors() {
        try (LockFabric lf = LockFabric.open("local")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> CitronFs.open(lf, "fs", SMALL.withLockManager("nope")));
            assertTrue(e.getMessage().contains("citron") && e.getMessage().contains("mutex"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> CitronFs.open(lf, " ", SMALL));
            assertThrows(IllegalArgumentException.class, () -> SMALL.withExtents(4, 1000));
            CitronFs fs = CitronFs.open(lf, "fs", SMALL);
            assertThrows(IllegalArgumentException.class, () -> fs.create("x".repeat(FsLayout.MAX_NAME_BYTES + 1)));
            assertThrows(IllegalStateException.class, () -> CitronFs.open(lf, "fs", SMALL.withMaxFiles(9)));
            for (int i = 0; i < 8; i++) {
                fs.create("f" + i);
            }
            assertThrows(FsFullException.class, () -> fs.create("one-too-many"));
        }
    }

    @Test
    void sharedReadsTakeSharedOnlyWhereTheProtocolHasIt() {
        try (Fabric fabric = Fabrics.open("local")) {
            Endpoint ep = fabric.newEndpoint();
            for (String manager : List.of("citron", "ss", "mutex")) {
                FsLockManager m = FsLockManager.byName(manager);
                try (FsClient c = FsClient.open(ep, "sr-" + manager.replace(':', '-'),
                        SMALL.withLockManager(manager).withSharedReads(true))) {
                    io.lockfabric.lock.Mode[] seen = new io.lockfabric.lock.Mode[1];
                    c.observer(new FsClient.Observer() {
                        @Override
                        public void granted(FsGrant grant) {
                            seen[0] = grant.mode();
                        }

                        @Override
                        public void releasing(FsGrant grant) {
                        }
                    });
                    int inode = c.create("f");
                    c.pread(inode, 0, new byte[8], 0, 8);
                    assertEquals(m.supportsShared(io.lockfabric.lock.LockOptions.DEFAULTS) ? io.lockfabric.lock.Mode.SHARED
                                    : io.lockfabric.lock.Mode.EXCLUSIVE, seen[0], manager);
                }
            }
            // citron's reader lanes give it a shared mode
            try (FsClient c = FsClient.open(ep, "sr-citron-lanes",
                    SMALL.withLockManager("citron").withLockOptions(List.of("shared-lanes=4")).withSharedReads(true))) {
                io.lockfabric.lock.Mode[] seen = new io.lockfabric.lock.Mode[1];
                c.observer(new FsClient.Observer() {
                    @Override
                    public void granted(FsGrant grant) {
                        seen[0] = grant.mode();
                    }

                    @Override
                    public void releasing(FsGrant grant) {
                    }
                });
                int inode = c.create("f");
                c.pread(inode, 0, new byte[8], 0, 8);
                assertEquals(io.lockfabric.lock.Mode.SHARED, seen[0], "citron shared-lanes=4");
            }
        }
    }

    /**
     * A file past its citron tree's N: the requests there take the spillover mutex and OR their end
     * into the maximizer, the background poller scales the tree up (the test waits for it), and a
     * truncate to a size under the first N scales it back down.
     */
    @Test
    void growthPastTheTreeScalesItUpAndATruncateScalesItDown() throws InterruptedException {
        try (Fabric fabric = Fabrics.open("local")) {
            Endpoint ep = fabric.newEndpoint();
            FsOptions o = SMALL.withLockOptions(List.of("units=256", "scale-poll-ns=1ms"));
            try (FsClient c = FsClient.open(ep, "grow", o)) {
                int inode = c.create("f");
                assertEquals(256, c.lockUnits(inode));
                byte[] data = pattern(1_000, 3);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                long offset = 0;
                while (c.lockUnits(inode) < 16_384 && System.nanoTime() < deadline) {
                    c.pwrite(inode, offset % 60_000, data, 0, data.length);
                    offset += data.length;
                    Thread.sleep(1);
                }
                assertTrue(c.lockUnits(inode) >= 16_384, "the tree grew to cover the file: " + c.lockUnits(inode));
                byte[] back = new byte[1_000];
                assertEquals(1_000, c.pread(inode, 0, back, 0, 1_000));
                assertArrayEquals(data, back, "data written across scale-ups reads back");
                c.truncate(inode, 200);
                assertEquals(256, c.lockUnits(inode), "the truncate scaled the tree down to its first size");
                assertEquals(200, c.size(inode));
                c.pwrite(inode, 10_000, data, 0, data.length); // and it still locks past N
                assertEquals(11_000, c.size(inode));
            }
        }
    }
}
