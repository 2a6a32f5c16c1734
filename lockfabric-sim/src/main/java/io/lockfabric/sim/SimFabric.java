package io.lockfabric.sim;

import io.lockfabric.fabric.Attachments;
import io.lockfabric.fabric.ClientRuntime;
import io.lockfabric.fabric.ClientThread;
import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.MemoryNodeRestartedException;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.memory.MemoryNode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * The simulated RDMA cluster: memory nodes with a {@link SimulatedRnic} and {@link SimulatedCpu},
 * compute nodes of clients, all in virtual time driven by one {@link Simulation}. The protocols
 * run unchanged: each client's code runs as a {@link SimProcess} started by {@link #spawn}, and
 * every verb, message, rpc and clock wait becomes events. One seed reproduces a whole run,
 * faults included.
 *
 * <pre>{@code
 * try (SimFabric fabric = new SimFabric(SimConfig.builder().seed(7).build())) {
 *     Endpoint e = fabric.newEndpoint();
 *     ClientThread t = fabric.spawn("client-1", () -> ... e ...);
 *     t.join();                      // runs the simulation until the client is done
 * }
 * }</pre>
 *
 * Not thread-safe: used by one driving thread and the simulated processes it runs.
 */
public final class SimFabric implements Fabric {
    /** Default limit on virtual time for {@link ClientThread#join()}: a liveness bound, not a duration. */
    public static final long DEFAULT_TIME_LIMIT_NS = 60_000_000_000L;
    /** First fact of a fault in the history hash (process indexes are far smaller). */
    private static final long FAULT_RECORD = -2;

    private final SimConfig config;
    private final Simulation sim = new Simulation();
    private final SplittableRandom random;
    private final MemoryNode[] memoryNodes;
    private final SimulatedRnic[] nics;
    private final SimulatedCpu[] cpus;
    private final PauseWindows[] pauses;
    /** Per memory node: how many times it restarted ({@link #restartMemoryNodeAt}). */
    private final long[] generations;
    /** Per memory node: whether it is down (restarting). */
    private final boolean[] down;
    private final ComputeNodeNic[] cnNics;
    private final ComputeNodeCores[] cnCores;
    /** Per simulated compute node: what its clients share. */
    private final Attachments[] computeNodes;
    private final Attachments attachments = new Attachments();
    private final ClientRuntime clientRuntime = new SimClientRuntime(this);
    private final List<MemoryWatcher> watchers = new ArrayList<>();
    private final Map<EndpointId, SimEndpoint> endpoints = new HashMap<>();
    private final List<SimEndpoint> endpointList = new ArrayList<>();
    private boolean closed;
    /** Client endpoints made so far (background ones excluded): they decide placement and seeds. */
    private int clients;
    private double dropProbability;
    private double delayProbability;
    private long delayNs;
    private long droppedMessages;
    /** Virtual times of the first {@link #droppedMessages} losses, in order. */
    private long[] droppedAtNs = new long[0];
    private long delayedMessages;

    public SimFabric(SimConfig config) {
        this.config = config;
        this.random = new SplittableRandom(config.seed());
        this.memoryNodes = new MemoryNode[config.memoryNodes()];
        this.nics = new SimulatedRnic[config.memoryNodes()];
        this.cpus = new SimulatedCpu[config.memoryNodes()];
        this.pauses = new PauseWindows[config.memoryNodes()];
        this.generations = new long[config.memoryNodes()];
        this.down = new boolean[config.memoryNodes()];
        for (int i = 0; i < memoryNodes.length; i++) {
            memoryNodes[i] = new MemoryNode(i, config.memoryBytesPerNode());
            pauses[i] = new PauseWindows();
            nics[i] = new SimulatedRnic(config, pauses[i]);
            cpus[i] = new SimulatedCpu(config, pauses[i]);
        }
        this.cnNics = new ComputeNodeNic[config.computeNodes()];
        this.computeNodes = new Attachments[config.computeNodes()];
        this.cnCores = new ComputeNodeCores[config.computeNodes()];
        for (int i = 0; i < cnNics.length; i++) {
            cnNics[i] = new ComputeNodeNic(config);
            cnCores[i] = new ComputeNodeCores(config);
            computeNodes[i] = new Attachments();
        }
        sim.timeLimitNs(DEFAULT_TIME_LIMIT_NS);
    }

    public SimConfig config() {
        return config;
    }

    public Simulation simulation() {
        return sim;
    }

    @Override
    public String name() {
        return "sim";
    }

    @Override
    public int memoryNodes() {
        return memoryNodes.length;
    }

    MemoryNode memoryNode(int i) {
        if (i < 0 || i >= memoryNodes.length) {
            throw new IllegalArgumentException("no memory node " + i + " (fabric has " + memoryNodes.length + ")");
        }
        return memoryNodes[i];
    }

    SimulatedRnic nic(int i) {
        return nics[i];
    }

    SimulatedCpu cpu(int i) {
        return cpus[i];
    }

    /**
     * Watches verbs take effect on the memory nodes, at their linearization point. For oracles
     * (such as the ideal CAS lock of ShiftLock §2.3) that need to know what no client could know
     * in time; a watcher runs on the driver and must not block.
     */
    public interface MemoryWatcher {
        /** {@code verb} just took effect on memory node {@code memoryNode}. */
        void executed(int memoryNode, Verb verb);
    }

    /** Calls {@code watcher} each time a verb takes effect on a memory node (see {@link MemoryWatcher}). */
    public void watch(MemoryWatcher watcher) {
        watchers.add(watcher);
    }

    /** A new, empty queue of simulated clients that an oracle wakes from the driver. */
    public SimWaitQueue newWaitQueue() {
        return new SimWaitQueue(this);
    }

    /** Called by the queue pairs each time a verb takes effect on memory node {@code mn}. */
    void executed(int mn, Verb verb) {
        for (int i = 0; i < watchers.size(); i++) {
            watchers.get(i).executed(mn, verb);
        }
    }

    /**
     * Hands something that reaches client {@code to}'s compute node at {@code arrivalNs} (a verb's
     * completion, a message) through that node's NIC, then runs {@code then}.
     */
    void deliverVia(EndpointId to, long arrivalNs, Runnable then) {
        ComputeNodeNic nic = cnNics[to.node()];
        sim.schedule(arrivalNs, () -> {
            long done = nic.admit(sim.now());
            if (done == sim.now()) {
                then.run();
            } else {
                sim.schedule(done, then);
            }
        });
    }

    /**
     * When a work request (or message) that client {@code from} posts now, after {@code cpuNs} of
     * CPU, leaves its compute node's NIC. Admitted at once rather than by an event: a verb and a
     * message with different CPU costs posted within that difference reach the NIC slightly out of
     * order, which the NIC tolerates.
     */
    long sendVia(EndpointId from, long cpuNs) {
        return cnNics[from.node()].admit(cpuDone(from, sim.now(), cpuNs));
    }

    /**
     * When CPU work of {@code cpuNs} that client {@code from} is ready to run at {@code readyAt}
     * ends: {@code readyAt + cpuNs}, or later when its compute node's cores are shared and busy
     * ({@link SimConfig#cnCores()}).
     */
    long cpuDone(EndpointId from, long readyAt, long cpuNs) {
        return cnCores[from.node()].run(readyAt, cpuNs);
    }

    /** When a work request (or message) that reaches client {@code from}'s compute-node NIC at {@code at} leaves it. */
    long leaveNic(EndpointId from, long at) {
        return cnNics[from.node()].admit(at);
    }

    /**
     * A new client endpoint. Clients fill compute nodes in order: the first
     * {@code clientsPerComputeNode} endpoints are on compute node 0, and so on (wrapping around).
     * Background endpoints ({@link #newEndpointBeside}) do not count.
     */
    @Override
    public Endpoint newEndpoint() {
        if (closed) {
            throw new FabricException("fabric is closed");
        }
        int client = ++clients;
        int cn = ((client - 1) / config.clientsPerComputeNode()) % config.computeNodes();
        double rate = 1 + (random.nextDouble() * 2 - 1) * config.clockDrift();
        return add(cn, rate, config.seed() * 0x9E3779B97F4A7C15L + client);
    }

    /**
     * A background endpoint on {@code beside}'s compute node, with its clock rate (one machine,
     * one clock). It takes no client place and draws nothing from the fabric's random source, so
     * adding one changes neither the placement nor the clocks of the clients made after it.
     */
    @Override
    public Endpoint newEndpointBeside(Endpoint beside) {
        if (closed) {
            throw new FabricException("fabric is closed");
        }
        // By id, so that an endpoint wrapped by an instrumenting delegate finds its compute node too.
        SimEndpoint b = beside == null ? null : endpoints.get(beside.id());
        if (b == null) {
            throw new IllegalArgumentException("not an endpoint of this fabric: " + beside);
        }
        return add(b.id().node(), b.clockRate(), config.seed() * 0x9E3779B97F4A7C15L + 0x5DEECE66DL * (endpointList.size() + 1));
    }

    private SimEndpoint add(int cn, double rate, long seed) {
        int ordinal = endpointList.size() + 1;
        if (ordinal > EndpointId.MAX_QUEUE) {
            throw new FabricException("too many endpoints");
        }
        SimEndpoint e = new SimEndpoint(this, new EndpointId(cn, ordinal), ordinal, rate, seed, computeNodes[cn]);
        endpoints.put(e.id(), e);
        endpointList.add(e);
        return e;
    }

    SimEndpoint endpoint(EndpointId id) {
        return endpoints.get(id);
    }

    @Override
    public ClientThread spawn(String name, Runnable body) {
        return sim.spawn(name, body);
    }

    /** Crashes a client process at virtual time {@code atNs}: it stops forever, holding what it holds. */
    public void crashAt(SimProcess process, long atNs) {
        sim.schedule(Math.max(atNs, sim.now()), () -> {
            sim.record(FAULT_RECORD, Fault.Kind.CRASH.ordinal(), process.index(), 0);
            sim.crash(process);
        });
    }

    /** Stops a client process for {@code durationNs} from {@code atNs} (a stop-the-world pause). */
    public void pauseAt(SimProcess process, long atNs, long durationNs) {
        sim.schedule(Math.max(atNs, sim.now()), () -> {
            sim.record(FAULT_RECORD, Fault.Kind.PAUSE.ordinal(), process.index(), durationNs);
            process.pausedUntilNs = Math.max(process.pausedUntilNs, sim.now() + durationNs);
        });
    }

    /**
     * Pauses memory node {@code mn} (its NIC and its CPU) for {@code durationNs} from {@code atNs}:
     * nothing starts service meanwhile; what is in service finishes.
     */
    public void pauseMemoryNodeAt(int mn, long atNs, long durationNs) {
        memoryNode(mn);
        pauses[mn].add(atNs, atNs + durationNs);
        sim.record(FAULT_RECORD, Fault.Kind.MN_PAUSE.ordinal(), mn, durationNs);
    }

    /**
     * Crashes every client of compute node {@code cn} at virtual time {@code atNs}, at once: each
     * process bound to an endpoint of that node stops forever, holding what it holds (the paper's
     * "shut down 1 CN"). Background processes beside them go with them.
     */
    public void crashComputeNodeAt(int cn, long atNs) {
        if (cn < 0 || cn >= computeNodes.length) {
            throw new IllegalArgumentException("no compute node " + cn + " (fabric has " + computeNodes.length + ")");
        }
        sim.schedule(Math.max(atNs, sim.now()), () -> {
            sim.record(FAULT_RECORD, Fault.Kind.CN_CRASH.ordinal(), cn, 0);
            List<SimProcess> victims = new ArrayList<>();
            for (SimEndpoint e : endpointList) {
                SimProcess owner = e.owner();
                if (e.id().node() == cn && owner != null && !owner.finished() && !victims.contains(owner)) {
                    victims.add(owner);
                }
            }
            victims.forEach(sim::crash);
        });
    }

    /**
     * Restarts memory node {@code mn} at virtual time {@code atNs}, down for {@code lengthNs}: at
     * {@code atNs} its generation goes up by one ({@link #memoryNodeGeneration}; the failure
     * detector knows at once) and its memory is lost (every table is zeroed; the tables themselves,
     * their names and addresses, stay: the node comes back with the same allocation, empty). While
     * it is down every verb and rpc that reaches it, and every one in service there, fails with a
     * {@link MemoryNodeRestartedException}; once it is back, a queue pair connected before the
     * restart fails every verb the same way until its endpoint {@linkplain SimEndpoint#reconnect
     * reconnects} (an RC queue pair whose peer rebooted is in the error state), so no client works
     * on the empty memory without having been told.
     */
    public void restartMemoryNodeAt(int mn, long atNs, long lengthNs) {
        memoryNode(mn);
        if (lengthNs <= 0) {
            throw new IllegalArgumentException("a memory-node restart needs a positive outage, got " + lengthNs);
        }
        sim.schedule(Math.max(atNs, sim.now()), () -> {
            sim.record(FAULT_RECORD, Fault.Kind.MN_RESTART.ordinal(), mn, lengthNs);
            generations[mn]++;
            down[mn] = true;
            wipe(memoryNodes[mn]);
            sim.schedule(sim.now() + lengthNs, () -> down[mn] = false);
        });
    }

    /** Zeroes every table of {@code node}: its memory is lost. */
    private static void wipe(MemoryNode node) {
        byte[] zeros = new byte[1 << 16];
        for (Table t : node.tables()) {
            var region = node.region(t.address());
            long base = RemoteAddress.offset(t.address());
            for (long off = 0; off < t.spec().bytes(); off += zeros.length) {
                region.write(base + off, zeros, 0, (int) Math.min(zeros.length, t.spec().bytes() - off));
            }
        }
    }

    /** How many times memory node {@code mn} has restarted (see {@link #restartMemoryNodeAt}). */
    public long memoryNodeGeneration(int mn) {
        memoryNode(mn);
        return generations[mn];
    }

    /** Whether memory node {@code mn} is down now (restarting). */
    public boolean memoryNodeDown(int mn) {
        memoryNode(mn);
        return down[mn];
    }

    /**
     * Null if a verb of a queue pair connected to memory node {@code mn} in generation
     * {@code connected} may run now; else the error it fails with.
     */
    MemoryNodeRestartedException memoryNodeFailure(int mn, long connected) {
        if (down[mn] || connected != generations[mn]) {
            return new MemoryNodeRestartedException(mn, generations[mn], down[mn]);
        }
        return null;
    }

    /**
     * Injects a run's faults: the scheduled crashes and pauses ({@link FaultPlan#schedule}), whose
     * client targets index {@code clients}, and the plan's message loss and delay.
     */
    public void inject(FaultPlan plan, List<Fault> schedule, List<? extends ClientThread> clients) {
        for (Fault f : schedule) {
            switch (f.kind()) {
                case CRASH -> crashAt(process(clients, f.target()), f.atNs());
                case PAUSE -> pauseAt(process(clients, f.target()), f.atNs(), f.lengthNs());
                case MN_PAUSE -> pauseMemoryNodeAt(memoryNode(f.target()).index(), f.atNs(), f.lengthNs());
                case CN_CRASH -> crashComputeNodeAt(f.target(), f.atNs());
                case MN_RESTART -> restartMemoryNodeAt(f.target(), f.atNs(), f.lengthNs());
            }
        }
        this.dropProbability = plan.dropProbability();
        this.delayProbability = plan.delayProbability();
        this.delayNs = plan.delayNs();
    }

    private static SimProcess process(List<? extends ClientThread> clients, int target) {
        if (target < 0 || target >= clients.size() || !(clients.get(target) instanceof SimProcess p)) {
            throw new IllegalArgumentException("fault target " + target + " is not a simulated client of this run");
        }
        return p;
    }

    /**
     * Extra latency of one client-to-client message under the injected faults: -1 if it is lost,
     * else 0 or a delay. Counts what it decides.
     */
    long messageFaultNs() {
        if (dropProbability > 0 && random.nextDouble() < dropProbability) {
            if (droppedMessages == droppedAtNs.length) {
                droppedAtNs = Arrays.copyOf(droppedAtNs, Math.max(16, droppedAtNs.length * 2));
            }
            droppedAtNs[(int) droppedMessages++] = sim.now();
            return -1;
        }
        if (delayProbability > 0 && random.nextDouble() < delayProbability) {
            delayedMessages++;
            return delayNs > 0 ? delayNs : random.nextLong(FaultPlan.MAX_DELAY_NS + 1);
        }
        return 0;
    }

    /** Client-to-client messages lost by an injected fault so far. */
    public long droppedMessages() {
        return droppedMessages;
    }

    /** Client-to-client messages lost by an injected fault at or after virtual time {@code atNs}. */
    public long droppedMessagesSince(long atNs) {
        int n = (int) droppedMessages;
        int first = Arrays.binarySearch(droppedAtNs, 0, n, atNs);
        if (first < 0) {
            return n - (-first - 1);
        }
        while (first > 0 && droppedAtNs[first - 1] == atNs) {
            first--;
        }
        return n - first;
    }

    /** Client-to-client messages delayed by an injected fault so far. */
    public long delayedMessages() {
        return delayedMessages;
    }

    /**
     * Runs the simulation until {@code done} holds or virtual time reaches {@code deadlineNs};
     * returns whether {@code done} holds. Running out of events (every process waits for
     * something that will never come) also ends it, with false.
     */
    public boolean runUntil(BooleanSupplier done, long deadlineNs, String what) {
        long limit = sim.timeLimitNs();
        sim.timeLimitNs(deadlineNs);
        try {
            sim.runUntil(done, what);
            return true;
        } catch (SimulationStuckException e) {
            return done.getAsBoolean();
        } finally {
            sim.timeLimitNs(limit);
        }
    }

    /** Blocks the calling simulated process for {@code trueNanos} of true time. */
    void sleepTrue(long trueNanos) {
        SimProcess p = sim.current();
        if (p == null) {
            throw new IllegalStateException("clock waits are only available inside a simulated process");
        }
        if (trueNanos <= 0) {
            return;
        }
        long token = sim.token(p);
        sim.schedule(sim.now() + trueNanos, () -> sim.resume(p, token, null, null));
        sim.block(p);
    }

    long oneWayNs() {
        return config.networkOneWayNs() + jitterNs();
    }

    long jitterNs() {
        return config.networkJitterNs() == 0 ? 0 : random.nextLong(config.networkJitterNs() + 1);
    }

    @Override
    public long observerNanoTime() {
        return sim.now();
    }

    /** Runs the client API in virtual time: its tasks and timers are simulated processes. */
    @Override
    public ClientRuntime clientRuntime() {
        return clientRuntime;
    }

    @Override
    public Attachments attachments() {
        return attachments;
    }

    /** Clients are on other machines: they share no Java objects. */
    @Override
    public boolean isInProcess() {
        return false;
    }

    /**
     * Starts tracking, from zero, where the verbs served by every memory node's RNIC wait (for a
     * unit, for a word; {@link NicQueueing}); {@code false} stops it. Only observes: the simulation
     * runs the same either way. Driver thread (between {@link #runUntil} calls).
     */
    public void trackMemoryNodeQueueing(boolean on) {
        for (SimulatedRnic nic : nics) {
            nic.track(on, sim.now());
        }
    }

    /**
     * Where the verbs {@code memoryNode}'s RNIC served waited since {@link #trackMemoryNodeQueueing}
     * began, with the {@code top} words that cost the most word wait.
     *
     * @throws IllegalStateException if tracking is off
     */
    public NicQueueing memoryNodeQueueing(int memoryNode, int top) {
        if (memoryNode < 0 || memoryNode >= nics.length) {
            throw new IllegalArgumentException("no memory node " + memoryNode + " (fabric has " + nics.length + ")");
        }
        return nics[memoryNode].queueing(top, sim.now());
    }

    /**
     * Records, on every memory node's CPU, how long each rpc arriving at or after virtual time
     * {@code fromNs} waits for a core (from its arrival at the memory node to the start of its
     * handler); read them with {@link #rpcQueueingNs}. Off until called; recording changes nothing
     * in the run.
     */
    public void recordRpcQueueing(long fromNs) {
        if (fromNs < 0) {
            throw new IllegalArgumentException("fromNs must be >= 0, got " + fromNs);
        }
        for (SimulatedCpu cpu : cpus) {
            cpu.recordQueueing(fromNs);
        }
    }

    /** The rpc queueing times {@code memoryNode}'s CPU recorded since {@link #recordRpcQueueing}, ns. */
    public long[] rpcQueueingNs(int memoryNode) {
        if (memoryNode < 0 || memoryNode >= cpus.length) {
            throw new IllegalArgumentException("no memory node " + memoryNode + " (fabric has " + cpus.length + ")");
        }
        return cpus[memoryNode].queueingNs();
    }

    @Override
    public CounterSnapshot memoryNodeCounters(int memoryNode) {
        return nics[memoryNode].counters();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            sim.shutdown();
            for (MemoryNode n : memoryNodes) {
                n.close();
            }
        }
    }
}
