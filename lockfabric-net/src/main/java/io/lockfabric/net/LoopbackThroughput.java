package io.lockfabric.net;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Verbs per second over loopback: a memory node in this JVM, {@code threads} clients each with its
 * own endpoint doing FAAs on their own word, one verb per round trip or {@code batch} per BATCH
 * frame; the endpoints share {@code connections} connections to the server (default: the fabric's).
 * A measurement, not a test: {@code java ... io.lockfabric.net.LoopbackThroughput [seconds]
 * [threads,...] [batch] [connections]} prints one line per configuration.
 */
public final class LoopbackThroughput {
    public static final double DEFAULT_SECONDS = 2.0;
    public static final int DEFAULT_BATCH = 16;

    private LoopbackThroughput() {
    }

    public static void main(String[] args) throws InterruptedException {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : DEFAULT_SECONDS;
        List<Integer> threadCounts = new ArrayList<>();
        for (String t : (args.length > 1 ? args[1] : "1,4,16").split(",")) {
            threadCounts.add(Integer.parseInt(t.trim()));
        }
        int batch = args.length > 2 ? Integer.parseInt(args[2]) : DEFAULT_BATCH;
        int connections = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        System.out.printf("loopback throughput, %s transport, %.1f s per run, %d cores%n",
                NettyTransport.best().name(), seconds, Runtime.getRuntime().availableProcessors());
        for (int threads : threadCounts) {
            for (int perFrame : List.of(1, batch)) {
                double[] coalescing = new double[2];
                double rate = measure(threads, perFrame, seconds, connections, coalescing);
                System.out.printf("threads %3d  verbs/frame %3d  %,12.0f verbs/s  %,10.0f frames/s"
                        + "  frames/write: client %.2f server %.2f%n", threads, perFrame, rate, rate / perFrame,
                        coalescing[0], coalescing[1]);
            }
        }
    }

    /** Verbs per second with {@code threads} clients posting {@code perFrame} verbs per round trip. */
    public static double measure(int threads, int perFrame, double seconds) throws InterruptedException {
        return measure(threads, perFrame, seconds, 0);
    }

    /** {@link #measure(int, int, double)} on {@code connections} shared connections (0: the fabric's default). */
    public static double measure(int threads, int perFrame, double seconds, int connections)
            throws InterruptedException {
        return measure(threads, perFrame, seconds, connections, new double[2]);
    }

    /**
     * {@link #measure(int, int, double, int)}, also putting into {@code coalescing} the frames per
     * write system call of the client (plain connections) and per flush of the server's replies.
     */
    static double measure(int threads, int perFrame, double seconds, int connections, double[] coalescing)
            throws InterruptedException {
        TcpMemoryNode serverNode = TcpMemoryNode.builder().port(0).capacityBytes(1L << 20).start();
        TcpFabric.Builder builder = TcpFabric.builder().embeddedServer(serverNode);
        if (connections > 0) {
            builder.connections(connections);
        }
        try (TcpFabric fabric = builder.build()) {
            AtomicBoolean measuring = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            LongAdder verbs = new LongAdder();
            List<ClientThread> clients = new ArrayList<>();
            for (int c = 0; c < threads; c++) {
                int slot = c;
                clients.add(fabric.spawn("throughput-" + c, () -> {
                    try (Endpoint e = fabric.newEndpoint()) {
                        Table t = e.openTable(new TableSpec("throughput", "bench", 1, 8L * 1024));
                        QueuePair qp = e.queuePair(0);
                        long word = t.at(8L * (slot % 1024));
                        Batch b = new Batch();
                        while (!stop.get()) {
                            if (perFrame == 1) {
                                qp.faa(word, 1);
                            } else {
                                b.clear();
                                for (int i = 0; i < perFrame; i++) {
                                    b.faa(word, 1);
                                }
                                qp.execute(b);
                            }
                            if (measuring.get()) {
                                verbs.add(perFrame);
                            }
                        }
                    }
                }));
            }
            long warmupNs = TimeUnit.MILLISECONDS.toNanos(500);
            TimeUnit.NANOSECONDS.sleep(warmupNs);
            measuring.set(true);
            long start = System.nanoTime();
            TimeUnit.NANOSECONDS.sleep((long) (seconds * 1e9));
            measuring.set(false);
            long elapsed = System.nanoTime() - start;
            stop.set(true);
            clients.forEach(ClientThread::join);
            long[] client = fabric.writeCounts();
            long[] server = serverNode.replyCounts();
            coalescing[0] = client[0] == 0 ? Double.NaN : (double) client[1] / client[0];
            coalescing[1] = server[0] == 0 ? Double.NaN : (double) server[1] / server[0];
            return verbs.sum() / (elapsed / 1e9);
        }
    }
}
