package io.lockfabric.shm;

import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.protocols.LockProtocols;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The other processes of {@link ShmMultiProcessTest}, one mode per run:
 * <ul>
 *   <li>{@code count PATH PROTOCOL THREADS CYCLES COUNTER_FILE}: THREADS clients each add one to the
 *       number in COUNTER_FILE (a plain file) CYCLES times under the protocol's lock 0;</li>
 *   <li>{@code die-inside-128 PATH}: stops inside a 128-bit atomic on the table {@code wide}, after its
 *       redo log and word 0 and before word 1, says so, and waits to be killed;</li>
 *   <li>{@code hammer-128 PATH}: adds 1 to both words of the table {@code wide}'s entry with 128-bit
 *       atomics until it is killed;</li>
 *   <li>{@code hold PATH PROTOCOL OPTION}: takes the protocol's lock 0 (table {@code held}) and
 *       says so, and holds it until it is killed;</li>
 *   <li>{@code serve PATH}: serves the file's rpcs (with the {@link #ECHO} service too) until it is killed;</li>
 *   <li>{@code standby PATH}: stands by while another process serves the file's rpcs, says so, and
 *       when it has taken over says so with the pid it took over from; then serves until it is killed;</li>
 *   <li>{@code open-table PATH NAME}: opens the table NAME ({@link #TABLE_OF_4K}'s shape) on an endpoint,
 *       says so, and keeps it open until it is killed;</li>
 *   <li>{@code die-inside-drop PATH NAME}: takes the file's directory lock, makes the first store of a
 *       drop of table NAME, says so, and waits to be killed with the lock held;</li>
 *   <li>{@code echo PATH}: prints its process token and its endpoint's packed id, then answers every
 *       message with one of type + 1 until it is killed.</li>
 * </ul>
 */
public final class ShmChild {
    static final String READY = "READY ";
    static final String STANDBY = "STANDBY ";
    static final String SERVING = "SERVING ";

    /**
     * The service of tables of protocol {@code echo}: answers {@code grow:N} with N bytes (byte i is
     * {@code i * 31}), anything else with the request itself.
     */
    static final io.lockfabric.fabric.ServiceResolver ECHO = (spec, options) -> spec.protocol().equals("echo")
            ? java.util.Optional.of(echoService()) : java.util.Optional.empty();

    static TableSpec.ServiceFactory echoService() {
        return host -> call -> {
            byte[] r = call.request();
            String text = r.length < 32 ? new String(r, java.nio.charset.StandardCharsets.UTF_8) : "";
            if (text.startsWith("grow:")) {
                byte[] out = new byte[Integer.parseInt(text.substring(5))];
                for (int i = 0; i < out.length; i++) {
                    out[i] = (byte) (i * 31);
                }
                call.reply(out);
            } else {
                call.reply(r);
            }
        };
    }

    /** The table of the {@link #ECHO} service. */
    static final TableSpec ECHO_TABLE = new TableSpec("echo", "echo", 1, 64).withService(echoService());
    static final String INSIDE = "INSIDE ";
    static final TableSpec WIDE = new TableSpec("wide", "test", 1, 64);

    /** The table NAME of the {@code open-table} and {@code die-inside-drop} modes: 4 KiB. */
    static TableSpec tableOf4k(String name) {
        return new TableSpec(name, "test", 1, 4096);
    }

    private ShmChild() {
    }

    public static void main(String[] args) throws Exception {
        try (ShmFabric fabric = ShmFabric.builder().path(Path.of(args[1])).capacityBytes(64L << 20)
                .serveRpc(args[0].equals("serve")).standbyRpc(args[0].equals("standby"))
                .serviceResolver(ECHO.orElse(io.lockfabric.fabric.ServiceResolver.installed())).build()) {
            switch (args[0]) {
                case "count" -> count(fabric, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]), Path.of(args[5]));
                case "die-inside-128" -> dieInside128(fabric);
                case "hammer-128" -> hammer128(fabric);
                case "echo" -> echo(fabric);
                case "hold" -> hold(fabric, args[2], args[3]);
                case "open-table" -> {
                    Endpoint e = fabric.newEndpoint();
                    e.openTable(tableOf4k(args[2]));
                    System.out.println(READY + e.id().pack());
                    Thread.sleep(TimeUnit.MINUTES.toMillis(5));
                }
                case "die-inside-drop" -> {
                    ShmFile file = fabric.file();
                    file.locked(() -> {
                        int index = file.find(args[2].getBytes(java.nio.charset.StandardCharsets.UTF_8));
                        file.control().write8(ShmLayout.dirEntry(index) + ShmLayout.DIR_LIVE_ID, 0);
                        System.out.println(INSIDE + index);
                        try {
                            Thread.sleep(TimeUnit.MINUTES.toMillis(5));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return null;
                    });
                }
                case "serve" -> {
                    System.out.println(READY);
                    Thread.sleep(TimeUnit.MINUTES.toMillis(5));
                }
                case "standby" -> {
                    System.out.println(STANDBY + fabric.servesRpc());
                    long from = fabric.rpcServing().get(5, TimeUnit.MINUTES);
                    System.out.println(SERVING + from);
                    Thread.sleep(TimeUnit.MINUTES.toMillis(5));
                }
                default -> throw new IllegalArgumentException("unknown mode " + args[0]);
            }
        }
    }

    /** Counts under {@code protocol}'s lock; {@code PROTOCOL/virtual} counts from virtual threads. */
    private static void count(ShmFabric fabric, String protocolAndThreads, int threads, int cycles, Path counter)
            throws Exception {
        String protocol = protocolAndThreads.split("/")[0];
        boolean virtual = protocolAndThreads.endsWith("/virtual");
        List<ClientThread> clients = new ArrayList<>();
        List<Thread> virtuals = new ArrayList<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int t = 0; t < threads; t++) {
            Runnable body = () -> {
                try (Endpoint e = fabric.newEndpoint();
                     LockClient lock = LockProtocols.byName(protocol).open(e, "counted", 4, LockOptions.DEFAULTS);
                     FileChannel file = FileChannel.open(counter, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    ByteBuffer buf = ByteBuffer.allocate(8);
                    for (int i = 0; i < cycles; i++) {
                        Grant g = lock.acquire(0, Mode.EXCLUSIVE);
                        buf.clear();
                        file.read(buf, 0);
                        long n = buf.flip().getLong();
                        Thread.onSpinWait();
                        buf.clear();
                        buf.putLong(n + 1).flip();
                        file.write(buf, 0);
                        lock.release(g);
                    }
                } catch (Throwable t2) {
                    failures.add(t2);
                }
            };
            if (virtual) {
                virtuals.add(Thread.ofVirtual().name("counter-" + t).start(body));
            } else {
                clients.add(fabric.spawn("counter-" + t, body));
            }
        }
        for (ClientThread c : clients) {
            c.join();
        }
        for (Thread v : virtuals) {
            v.join();
        }
        if (!failures.isEmpty()) {
            failures.get(0).printStackTrace(System.out);
            System.exit(2);
        }
        System.out.println("DONE");
    }

    static final String HELD = "HELD ";

    private static void hold(ShmFabric fabric, String protocol, String option) throws Exception {
        fabric.spawn("holder", () -> {
            Endpoint e = fabric.newEndpoint();
            LockClient lock = LockProtocols.byName(protocol).open(e, "held", 1, LockOptions.parse(List.of(option)));
            Grant g = lock.acquire(0, Mode.EXCLUSIVE);
            System.out.println(HELD + g.fencingToken());
        }).join();
        Thread.sleep(TimeUnit.MINUTES.toMillis(5));
    }

    private static void dieInside128(ShmFabric fabric) throws Exception {
        Endpoint e = fabric.newEndpoint();
        Table t = e.openTable(WIDE);
        ShmFile file = fabric.file();
        long entry = ShmTestAccess.fileOffset(file, t.at(0));
        Int128 old = file.entryAt(entry);
        Int128 next = new Int128(old.lo() + 1, old.hi() + 1);
        ShmTestAccess.stopInsideUpdate(file, entry, next);
        System.out.println(INSIDE + entry);
        Thread.sleep(TimeUnit.MINUTES.toMillis(5));
    }

    private static void hammer128(ShmFabric fabric) throws Exception {
        Endpoint e = fabric.newEndpoint();
        Table t = e.openTable(WIDE);
        QueuePair qp = e.queuePair(0);
        Int128 halves = new Int128(1L << 63, 0);
        System.out.println(READY);
        while (true) {
            qp.maskedFaa128(t.at(0), new Int128(1, 1), halves);
        }
    }

    private static void echo(ShmFabric fabric) {
        Endpoint e = fabric.newEndpoint();
        System.out.println(READY + fabric.file().liveness().self() + " " + e.id().pack());
        while (true) {
            Message m = e.mailbox().await(System.nanoTime() + TimeUnit.SECONDS.toNanos(1));
            if (m != null) {
                e.mailbox().send(m.from(), m.channel(), m.type() + 1, m.lock(), m.a(), m.b());
            }
        }
    }
}
