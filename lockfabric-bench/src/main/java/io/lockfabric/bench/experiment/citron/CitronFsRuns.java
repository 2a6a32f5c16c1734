package io.lockfabric.bench.experiment.citron;

import io.lockfabric.bench.experiment.OwnTestbeds;
import io.lockfabric.apps.fs.FsLockManager;
import io.lockfabric.bench.Phases;
import io.lockfabric.bench.RunResult;
import io.lockfabric.bench.Runner;
import io.lockfabric.bench.experiment.ExperimentSettings;
import io.lockfabric.bench.fs.FsTrace;
import io.lockfabric.bench.fs.FsWorkload;
import io.lockfabric.bench.sim.SimDriver;
import io.lockfabric.lock.citron.CitronProtocol;
import io.lockfabric.sim.SimConfig;
import io.lockfabric.sim.SimFabric;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

/**
 * What CitronFS's reproductions ({@code citron-fig8}, {@code citron-table2}) share: the list of
 * lock managers they compare, in ONE place ({@link #MANAGERS}), and the simulated testbed they run on.
 *
 * <p>Testbed (CITRON §4.1): memory node 0 is the paper's server machine (metadata and lock tables),
 * memory nodes 1–3 hold the file data (the paper's three client machines store it); each experiment
 * says how its clients are spread over compute nodes. Every memory node's port is modelled as a link
 * of {@link #CITRON_TESTBED_MN_LINK_GBPS} Gb/s per direction.
 */
final class CitronFsRuns {
    /**
     * The memory nodes' link rate on CITRON's testbed, Gb/s. §4.1: "a Mellanox ConnectX-6 RNIC via PCIe
     * 3.0 x16", on a QM8790 switch (HDR, 200 Gb/s per port). The port could carry 200 Gb/s; the host's
     * PCIe 3.0 x16 cannot: 16 lanes x 8 GT/s x 128b/130b = 126 Gb/s, and each TLP of 256 B of payload
     * (the common max payload size) carries about 24 B of header, sequence number, LCRC and framing,
     * so about 126 x 256 / 280 = 115 Gb/s of data reaches memory. That, not the wire, bounds the bytes a
     * machine moves; the link model adds InfiniBand's own per-packet headers on top.
     */
    static final double CITRON_TESTBED_MN_LINK_GBPS = 115;
    /** Memory nodes 1..3 hold the data, as the paper's three client machines. */
    static final int DATA_NODES = 3;
    /** Bytes a file's lock covers in its tree: 2^24 = 16 MiB, above every file here (the paper's N = 2^28 covers 256 MiB). */
    static final long UNITS = 1L << 24;

    /**
     * A lock manager as the paper names it, its registry name ({@link FsLockManager#byName}) and its
     * options for a workload of I/O granularity {@code g} bytes. A manager this build does not register
     * (the CPU baselines {@code mt} and {@code llc} until they land) is skipped and named in the note.
     */
    record Manager(String label, String name, LongFunction<List<String>> options) {
    }

    /** The paper's lock managers in its order (Table 2), those this build has. CITRON as the paper: no fencing tokens. */
    static final List<Manager> MANAGERS = List.of(
            new Manager("CITRON", CitronProtocol.NAME, g -> List.of("fencing=0", "units=" + UNITS)),
            new Manager("MT", "mt", g -> List.of()),
            new Manager("IT", "rpc-range", g -> List.of()),
            new Manager("LLC", "llc", g -> List.of()),
            new Manager("LLD", "lld", g -> List.of()),
            new Manager("SS", "ss", g -> List.of("units=" + UNITS, "segment=" + g)),
            new Manager("Mutex", FsLockManager.MUTEX, g -> List.of()));

    private CitronFsRuns() {
    }

    /** Whether {@code name} names a lock manager this build has. */
    static boolean available(String name) {
        try {
            FsLockManager.byName(name);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The managers to run: the registered ones of {@link #MANAGERS}, or of the user's selection (by label or name). */
    static List<Manager> selected(ExperimentSettings settings) {
        List<Manager> out = new ArrayList<>();
        for (Manager m : MANAGERS) {
            boolean asked = settings.protocols().isEmpty() || settings.protocols().contains(m.name())
                    || settings.protocols().contains(m.label());
            if (asked && available(m.name())) {
                out.add(m);
            }
        }
        return out;
    }

    /** The note naming the managers of {@link #MANAGERS} this build does not have. */
    static String missingNote() {
        List<String> missing = MANAGERS.stream().filter(m -> !available(m.name())).map(Manager::label).toList();
        return missing.isEmpty() ? "" : "Not run, not registered in this build: " + String.join(", ", missing) + ". ";
    }

    /** One run of {@code trace} under {@code m} on {@code cns} x {@code perCn} clients. */
    static RunResult run(Manager m, FsTrace trace, int cns, int perCn, long warmupNs, long durationNs,
                         ExperimentSettings settings) {
        long seed = settings.seed();
        java.io.PrintStream progressOut = settings.progressOut();
        SimConfig cluster = settings.onTestbed(OwnTestbeds.CITRON, SimConfig.defaults().toBuilder()).computeNodes(cns).clientsPerComputeNode(perCn)
                .memoryNodes(1 + DATA_NODES).mnLinkGbps(CITRON_TESTBED_MN_LINK_GBPS).seed(seed).build();
        FsLockManager manager = FsLockManager.byName(m.name());
        List<String> pairs = m.options().apply(trace.granularity()).stream().map(p -> manager.name() + "." + p).toList();
        FsWorkload w = new FsWorkload(new Phases(cluster.clients(), durationNs, 0, warmupNs, seed), trace, false, false,
                pairs);
        try (SimFabric fabric = new SimFabric(cluster)) {
            return new Runner(new SimDriver(fabric), false, progressOut).run(manager, w);
        }
    }
}
