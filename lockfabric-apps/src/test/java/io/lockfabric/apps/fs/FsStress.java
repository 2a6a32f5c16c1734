package io.lockfabric.apps.fs;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Fabric;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A concurrent run of CitronFS I/O on any fabric, then the POSIX-like check. One file of
 * {@code blocks} 8 KiB blocks, initially empty; clients write 1 to 3 aligned blocks (every 8-byte
 * word of a write carries the write's stamp, so a block mixing stamps is torn) or read one block.
 * Each I/O's grant time is taken on the fabric's observer clock. Checked: no read returns a torn
 * block, and every read returns exactly the stamp of the last write over that block granted before
 * it (0 if none: a block past the end reads as nothing); at the end every block holds the stamp of
 * its last write and the size is the end of the furthest write.
 */
final class FsStress {
    static final int BLOCK = 8192;

    private FsStress() {
    }

    record Write(int block, int blocks, long stamp, long grantedAt) {
    }

    record Read(int block, long stamp, long grantedAt, int client) {
    }

    record Outcome(long writes, long reads, long size) {
    }

    static Outcome run(Fabric fabric, String fs, FsOptions options, int clients, int opsPerClient, int blocks,
                       double readRatio, long seed, Consumer<List<ClientThread>> faults) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        ConcurrentLinkedQueue<Write> writes = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Read> reads = new ConcurrentLinkedQueue<>();
        List<Endpoint> endpoints = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            endpoints.add(fabric.newEndpoint());
        }
        SplittableRandom seeds = new SplittableRandom(seed);
        List<ClientThread> threads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            int me = i;
            SplittableRandom random = seeds.split();
            threads.add(fabric.spawn(fs + "-client-" + i, guard(failure, () -> {
                try (FsClient c = FsClient.open(endpoints.get(me), fs, options)) {
                    long[] granted = new long[1];
                    c.observer(new FsClient.Observer() {
                        @Override
                        public void granted(FsGrant grant) {
                            granted[0] = fabric.observerNanoTime();
                        }

                        @Override
                        public void releasing(FsGrant grant) {
                        }
                    });
                    int inode = c.create("data");
                    byte[] buffer = new byte[3 * BLOCK];
                    for (int op = 0; op < opsPerClient; op++) {
                        if (random.nextDouble() < readRatio) {
                            int b = random.nextInt(blocks);
                            int n = c.pread(inode, (long) b * BLOCK, buffer, 0, BLOCK);
                            long stamp = n == 0 ? 0 : stampOf(buffer, n, "client " + me + " block " + b);
                            assertTrue(n == 0 || n == BLOCK, "a read of a whole block returns all or nothing, got " + n);
                            reads.add(new Read(b, stamp, granted[0], me));
                        } else {
                            int k = 1 + random.nextInt(3);
                            int b = random.nextInt(blocks - k + 1);
                            long stamp = ((long) (me + 1) << 32) | (op + 1);
                            ByteBuffer w = ByteBuffer.wrap(buffer).order(ByteOrder.LITTLE_ENDIAN);
                            for (int x = 0; x < k * BLOCK; x += 8) {
                                w.putLong(x, stamp);
                            }
                            c.pwrite(inode, (long) b * BLOCK, buffer, 0, k * BLOCK);
                            writes.add(new Write(b, k, stamp, granted[0]));
                        }
                    }
                }
            })));
        }
        if (faults != null) {
            faults.accept(threads);
        }
        join(threads);
        rethrow(failure);
        List<Write> byGrant = new ArrayList<>(writes);
        byGrant.sort(Comparator.comparingLong(Write::grantedAt));
        for (Read r : reads) {
            long expected = 0;
            for (Write w : byGrant) {
                if (w.grantedAt() >= r.grantedAt()) {
                    break;
                }
                if (r.block() >= w.block() && r.block() < w.block() + w.blocks()) {
                    expected = w.stamp();
                }
            }
            assertEquals(expected, r.stamp(), fs + ": client " + r.client() + "'s read of block " + r.block()
                    + " granted at " + r.grantedAt() + " returned another write than the last one before it");
        }
        long[] last = new long[blocks];
        long end = 0;
        for (Write w : byGrant) {
            for (int b = w.block(); b < w.block() + w.blocks(); b++) {
                last[b] = w.stamp();
            }
            end = Math.max(end, (long) (w.block() + w.blocks()) * BLOCK);
        }
        long[] size = new long[1];
        Endpoint checker = fabric.newEndpoint();
        long finalEnd = end;
        join(List.of(fabric.spawn(fs + "-checker", guard(failure, () -> {
            try (FsClient c = FsClient.open(checker, fs, options)) {
                int inode = c.lookup("data");
                size[0] = c.size(inode);
                byte[] block = new byte[BLOCK];
                for (int b = 0; b < blocks; b++) {
                    int n = c.pread(inode, (long) b * BLOCK, block, 0, BLOCK);
                    long stamp = n == 0 ? 0 : stampOf(block, n, "final block " + b);
                    assertEquals(last[b], stamp, fs + ": block " + b + " holds its last write");
                }
                assertEquals(finalEnd, size[0], fs + ": the size is the furthest write's end");
            }
        }))));
        rethrow(failure);
        return new Outcome(writes.size(), reads.size(), size[0]);
    }

    /** The one stamp of a block's first {@code n} bytes; fails if they mix stamps (torn). */
    static long stampOf(byte[] bytes, int n, String what) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long stamp = b.getLong(0);
        for (int x = 8; x < n; x += 8) {
            if (b.getLong(x) != stamp) {
                throw new AssertionError(what + " is torn: word 0 is " + Long.toHexString(stamp) + ", word " + x / 8
                        + " is " + Long.toHexString(b.getLong(x)));
            }
        }
        return stamp;
    }

    static Runnable guard(AtomicReference<Throwable> failure, Runnable body) {
        return () -> {
            try {
                body.run();
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        };
    }

    static void join(List<ClientThread> threads) {
        for (ClientThread t : threads) {
            t.join();
        }
    }

    static void rethrow(AtomicReference<Throwable> failure) {
        Throwable t = failure.get();
        if (t != null) {
            throw new AssertionError("a client failed: " + t, t);
        }
    }
}
