package io.lockfabric.shm;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.TableSpec;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bells of the shm fabric: a server asleep on its ring, and callers asleep for their replies,
 * are woken by a ring, not by a timeout. Each test makes every sleep longer than the test may run,
 * so a wake-up lost hangs it and its timeout fails it.
 */
@Tag("stress")
class ShmWakeTest extends ShmDirectoryTest {
    private static final long LONG_SLEEP_NS = TimeUnit.SECONDS.toNanos(600);

    @BeforeEach
    void sleepLong() {
        ShmFabric.replySleepNs = LONG_SLEEP_NS;
        ShmRpcServer.sleepNs = LONG_SLEEP_NS;
        ShmReplyWatcher.sleepNs = LONG_SLEEP_NS;
    }

    @AfterEach
    void sleepAsUsual() {
        ShmFabric.replySleepNs = ShmFabric.SERVER_CHECK_NS;
        ShmRpcServer.sleepNs = ShmRpcServer.SLEEP_NS;
        ShmReplyWatcher.sleepNs = ShmReplyWatcher.SLEEP_NS;
    }

    @Test
    void linuxHasFutexes() {
        boolean linux = System.getProperty("os.name", "").startsWith("Linux");
        String arch = System.getProperty("os.arch", "");
        boolean known = arch.equals("amd64") || arch.equals("aarch64");
        assertEquals(linux && known, Futex.AVAILABLE, "futexes where they are expected: " + Futex.UNAVAILABLE_BECAUSE);
    }

    @Test
    @Timeout(60)
    void aThreadAsleepOnABellWakesWhenItRingsAndNotBefore() throws Exception {
        assertTrue(Futex.AVAILABLE, Futex.UNAVAILABLE_BECAUSE);
        try (ShmFabric fabric = ShmFabric.builder().path(dir.resolve("bell.shm")).capacityBytes(16L << 20).build()) {
            ShmFile file = fabric.file();
            long bell = ShmLayout.slot(5) + ShmLayout.SLOT_BELL;
            AtomicInteger woke = new AtomicInteger();
            int before = (int) file.control().read8(bell);
            Thread sleeper = Thread.ofPlatform().daemon().start(() -> {
                file.sleepOn(bell, before, LONG_SLEEP_NS);
                woke.incrementAndGet();
            });
            Thread.sleep(300);
            assertEquals(0, woke.get(), "woke before its bell rang");
            file.ring(bell);
            sleeper.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(sleeper.isAlive(), "still asleep after its bell rang");
            assertEquals(before + 1, (int) file.control().read8(bell), "a ring adds one");

            long started = System.nanoTime();
            file.sleepOn(bell, before, LONG_SLEEP_NS); // the word moved on: no sleep at all
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(30), "slept on a bell that had rung");
        }
    }

    /**
     * Platform and virtual threads of a process that does not serve call a server in another fabric
     * (as another process would) whose service answers later, from a thread of its own, so that every
     * caller sleeps, and the server sleeps between the calls. All of them must be woken by rings.
     */
    @Test
    @Timeout(120)
    void sleepingCallersAndASleepingServerAreWokenByRings() throws Exception {
        assertTrue(Futex.AVAILABLE, Futex.UNAVAILABLE_BECAUSE);
        Path file = dir.resolve("wake.shm");
        ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
        AtomicInteger answered = new AtomicInteger();
        TableSpec spec = new TableSpec("late", "test", 1, 64).withService(host -> call -> later.schedule(() -> {
            answered.incrementAndGet();
            call.reply(call.request());
        }, 2, TimeUnit.MILLISECONDS));
        int platform = 3;
        int virtual = 8;
        int calls = 40;
        try (ShmFabric server = ShmFabric.builder().path(file).capacityBytes(16L << 20).serveRpc(true).build();
             ShmFabric client = ShmFabric.builder().path(file).build()) {
            server.newEndpoint().openTable(spec);
            callConcurrently(client, spec, platform, virtual, calls, 8);
            assertEquals((platform + virtual) * calls, answered.get());
            assertTrue(server.rpcServer().sleeps() > 0, "the server never slept, so no client rang it");
            ShmReplyWatcher watcher = client.replyWatcher();
            assertNotNull(watcher, "no virtual thread slept for its reply");
            assertTrue(watcher.woken() > 0, "the watcher woke no virtual thread");
        } finally {
            later.shutdownNow();
        }
    }

    /**
     * Many virtual threads, and a few platform threads, call a service that answers at once, as fast
     * as they can: every reply that finds its caller asleep must wake it (no sleep here ends by a
     * timeout, so a wake-up lost hangs the test).
     */
    @Test
    @Timeout(120)
    void aBusyClientLosesNoWakeUp() throws Exception {
        assertTrue(Futex.AVAILABLE, Futex.UNAVAILABLE_BECAUSE);
        Path file = dir.resolve("busy.shm");
        AtomicInteger answered = new AtomicInteger();
        TableSpec spec = new TableSpec("echo", "test", 1, 64).withService(host -> call -> {
            answered.incrementAndGet();
            call.reply(call.request());
        });
        int platform = 2;
        int virtual = 16;
        int calls = 3_000;
        try (ShmFabric server = ShmFabric.builder().path(file).capacityBytes(16L << 20).serveRpc(true).build();
             ShmFabric client = ShmFabric.builder().path(file).build()) {
            server.newEndpoint().openTable(spec);
            callConcurrently(client, spec, platform, virtual, calls, 0);
            assertEquals((platform + virtual) * calls, answered.get());
        }
    }

    /**
     * Receivers of one fabric, platform and virtual threads, wait for messages that senders of
     * another send now and then: each message that finds its receiver asleep must wake it.
     */
    @Test
    @Timeout(120)
    void sleepingReceiversAreWokenBySends() throws Exception {
        assertTrue(Futex.AVAILABLE, Futex.UNAVAILABLE_BECAUSE);
        Path file = dir.resolve("messages.shm");
        int platform = 3;
        int virtual = 8;
        int messages = 60;
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        try (ShmFabric receiving = ShmFabric.builder().path(file).capacityBytes(16L << 20).build();
             ShmFabric sending = ShmFabric.builder().path(file).build()) {
            List<Thread> threads = new java.util.ArrayList<>();
            for (int t = 0; t < platform + virtual; t++) {
                Endpoint receiver = receiving.newEndpoint();
                Endpoint sender = sending.newEndpoint();
                Runnable receive = () -> {
                    try (receiver) {
                        for (int i = 0; i < messages; i++) {
                            var m = receiver.mailbox().await(System.nanoTime() + LONG_SLEEP_NS);
                            assertNotNull(m, "no message " + i);
                            assertEquals(i, m.a(), "the messages in order");
                            assertEquals(sender.id(), m.from());
                        }
                    } catch (Throwable x) {
                        failures.add(x);
                    }
                };
                Runnable send = () -> {
                    try (sender) {
                        for (int i = 0; i < messages; i++) {
                            sender.mailbox().send(receiver.id(), 1, 2, 3, i, 0);
                            if (i % 6 == 0) {
                                Thread.sleep(10); // long enough for the receiver to go to sleep
                            }
                        }
                    } catch (Throwable x) {
                        failures.add(x);
                    }
                };
                threads.add(t < platform ? Thread.ofPlatform().daemon().start(receive) : Thread.ofVirtual().start(receive));
                threads.add(Thread.ofPlatform().daemon().start(send));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(failures.isEmpty(), "failures: " + failures);
            ShmReplyWatcher watcher = receiving.replyWatcher();
            assertNotNull(watcher, "no virtual receiver slept");
            assertTrue(watcher.woken() > 0, "the watcher woke no virtual receiver");
        }
    }

    /**
     * Virtual receivers and their senders on one fabric (one process): a sender unparks a sleeping
     * receiver itself ({@link ShmFabric#wake}), with no ring and no hop through the watcher thread,
     * and loses no wake-up doing so (every sleep here is longer than the test may run).
     */
    @Test
    @Timeout(120)
    void aSenderOfTheReceiversOwnFabricUnparksItItself() throws Exception {
        assertTrue(Futex.AVAILABLE, Futex.UNAVAILABLE_BECAUSE);
        int pairs = 8;
        int messages = 200;
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        try (ShmFabric fabric = ShmFabric.builder().path(dir.resolve("own.shm")).capacityBytes(16L << 20).build()) {
            List<Thread> threads = new java.util.ArrayList<>();
            for (int t = 0; t < pairs; t++) {
                Endpoint receiver = fabric.newEndpoint();
                Endpoint sender = fabric.newEndpoint();
                threads.add(Thread.ofVirtual().start(() -> {
                    try (receiver) {
                        for (int i = 0; i < messages; i++) {
                            var m = receiver.mailbox().await(System.nanoTime() + LONG_SLEEP_NS);
                            assertNotNull(m, "no message " + i);
                            assertEquals(i, m.a(), "the messages in order");
                        }
                    } catch (Throwable x) {
                        failures.add(x);
                    }
                }));
                threads.add(Thread.ofVirtual().start(() -> {
                    try (sender) {
                        for (int i = 0; i < messages; i++) {
                            sender.mailbox().send(receiver.id(), 1, 2, 3, i, 0);
                            if (i % 4 == 0) {
                                Thread.sleep(2); // long enough for the receiver to go to sleep
                            }
                        }
                    } catch (Throwable x) {
                        failures.add(x);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(failures.isEmpty(), "failures: " + failures);
            ShmReplyWatcher watcher = fabric.replyWatcher();
            assertNotNull(watcher, "no virtual receiver slept");
            assertTrue(watcher.unparkedBySenders() > 0, "no sender unparked its receiver itself (the watcher woke "
                    + watcher.woken() + ")");
        }
    }

    /**
     * One request answers more callers than the server keeps bells for a batch: a "release" that
     * grants every caller queued behind it, as a lock server's release grants many readers. Each of
     * them must be woken.
     */
    @Test
    @Timeout(120)
    void oneRequestThatAnswersManySleepingCallersWakesEachOfThem() throws Exception {
        assertTrue(Futex.AVAILABLE, Futex.UNAVAILABLE_BECAUSE);
        Path file = dir.resolve("many.shm");
        List<io.lockfabric.fabric.RpcCall> queued = new CopyOnWriteArrayList<>();
        TableSpec spec = new TableSpec("queue", "test", 1, 64).withService(host -> call -> {
            if (new String(call.request()).equals("release")) {
                for (io.lockfabric.fabric.RpcCall q : queued) {
                    q.reply(q.request());
                }
                queued.clear();
                call.reply(new byte[0]);
            } else {
                queued.add(call);
            }
        });
        int platform = ShmRpcServer.DEFERRED_BELLS + 4; // a bell each
        int virtual = 4; // one bell, their watcher's
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        try (ShmFabric server = ShmFabric.builder().path(file).capacityBytes(16L << 20).serveRpc(true).build();
             ShmFabric client = ShmFabric.builder().path(file).build()) {
            server.newEndpoint().openTable(spec);
            List<Thread> threads = new java.util.ArrayList<>();
            for (int t = 0; t < platform + virtual; t++) {
                String request = "wait " + t;
                Runnable body = () -> {
                    try (Endpoint e = client.newEndpoint()) {
                        assertEquals(request, new String(e.queuePair(0).rpc(e.openTable(spec).service(), request.getBytes())));
                    } catch (Throwable x) {
                        failures.add(x);
                    }
                };
                threads.add(t < platform ? Thread.ofPlatform().daemon().start(body) : Thread.ofVirtual().start(body));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (queued.size() < platform + virtual && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(platform + virtual, queued.size(), "callers queued");
            Thread.sleep(100); // every caller is asleep by now
            try (Endpoint e = client.newEndpoint()) {
                e.queuePair(0).rpc(e.openTable(spec).service(), "release".getBytes());
            }
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(failures.isEmpty(), "failures: " + failures);
        }
    }

    /**
     * Calls the echo service of {@code spec} {@code calls} times from each of {@code platform} platform
     * and {@code virtual} virtual threads of {@code client}, each pausing 20 ms every
     * {@code pauseEvery} calls (0: never), long enough for the server to go to sleep; checks every
     * echo and that no call failed.
     */
    private static void callConcurrently(ShmFabric client, TableSpec spec, int platform, int virtual, int calls,
                                         int pauseEvery) throws InterruptedException {
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> threads = new java.util.ArrayList<>();
        for (int t = 0; t < platform + virtual; t++) {
            int id = t;
            Runnable body = () -> {
                try (Endpoint e = client.newEndpoint()) {
                    var service = e.openTable(spec).service();
                    for (int i = 0; i < calls; i++) {
                        String request = id + ":" + i;
                        assertEquals(request, new String(e.queuePair(0).rpc(service, request.getBytes())));
                        if (pauseEvery > 0 && i % pauseEvery == 0) {
                            Thread.sleep(20);
                        }
                    }
                } catch (Throwable x) {
                    failures.add(x);
                }
            };
            threads.add(t < platform ? Thread.ofPlatform().daemon().start(body) : Thread.ofVirtual().start(body));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertTrue(failures.isEmpty(), "failures: " + failures);
    }
}
