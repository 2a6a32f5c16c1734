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
 * The clients are the fabric's own ({@link TcpFabric#spawn}): platform threads, or virtual threads
 * on a fabric built for them ({@link TcpFabric.Builder#virtualThreads}).
 * A measurement, not a test: {@code java ... io.lockfabric.net.LoopbackThroughput [seconds]
 * [threads,...] [batch] [connections] [platform|virtual|both] [spin]} prints one line per
 * configuration (default: both kinds of thread, one after the other); {@code spin} is the memory
 * node's ({@link TcpMemoryNode.Builder#spinNs}, a time such as {@code 300us}; default its own).
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
        String kinds = args.length > 4 ? args[4] : "both";
        List<Boolean> virtualOrNot = switch (kinds) {
            case "platform" -> List.of(false);
            case "virtual" -> List.of(true);
            case "both" -> List.of(false, true);
            default -> throw new IllegalArgumentException("threads are platform, virtual or both, got '" + kinds + "'");
        };
        long spinNs = args.length > 5 ? io.lockfabric.fabric.Durations.parseNanos(args[5]) : TcpMemoryNode.defaultSpinNs();
        System.out.printf("loopback throughput, %s transport, %.1f s per run, %d cores, server spin %s%n",
                NettyTransport.best().name(), seconds, Runtime.getRuntime().availableProcessors(),
                io.lockfabric.fabric.Durations.format(spinNs));
        for (int threads : threadCounts) {
            for (int perFrame : List.of(1, batch)) {
                for (boolean virtual : virtualOrNot) {
                    double[] coalescing = new double[3];
                    double rate = measure(threads, perFrame, seconds, connections, virtual, spinNs, coalescing);
                    System.out.printf("threads %3d %-8s  verbs/frame %3d  %,12.0f verbs/s  %,10.0f frames/s"
                            + "  frames/write: client %.2f server %.2f  cpu/verb %.1f us%n", threads,
                            virtual ? "virtual" : "platform", perFrame, rate, rate / perFrame,
                            coalescing[0], coalescing[1], coalescing[2]);
                }
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
        return measure(threads, perFrame, seconds, connections, false, TcpMemoryNode.defaultSpinNs(), new double[3]);
    }

    /**
     * {@link #measure(int, int, double, int)} with the clients on virtual threads or not, the server
     * polling {@code spinNs} before it sleeps, also putting
     * into {@code coalescing} the frames per write system call of the client (plain connections), per
     * flush of the server's replies, and the process's CPU time per verb in microseconds (client and
     * server together: what a verb costs, whatever else runs on the machine).
     */
    static double measure(int threads, int perFrame, double seconds, int connections, boolean virtual, long spinNs,
                          double[] coalescing) throws InterruptedException {
        TcpMemoryNode serverNode = TcpMemoryNode.builder().port(0).capacityBytes(1L << 20).spinNs(spinNs).start();
        TcpFabric.Builder builder = TcpFabric.builder().embeddedServer(serverNode).virtualThreads(virtual);
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
            long cpuStart = processCpuNanos();
            long start = System.nanoTime();
            TimeUnit.NANOSECONDS.sleep((long) (seconds * 1e9));
            measuring.set(false);
            long elapsed = System.nanoTime() - start;
            long cpu = processCpuNanos() - cpuStart;
            stop.set(true);
            clients.forEach(ClientThread::join);
            long[] client = fabric.writeCounts();
            long[] server = serverNode.replyCounts();
            coalescing[0] = client[0] == 0 ? Double.NaN : (double) client[1] / client[0];
            coalescing[1] = server[0] == 0 ? Double.NaN : (double) server[1] / server[0];
            long done = verbs.sum();
            coalescing[2] = cpu < 0 || done == 0 ? Double.NaN : cpu / 1e3 / done;
            return done / (elapsed / 1e9);
        }
    }

    /** CPU time of this process so far, or -1 where the JVM does not tell it. */
    private static long processCpuNanos() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }
}
