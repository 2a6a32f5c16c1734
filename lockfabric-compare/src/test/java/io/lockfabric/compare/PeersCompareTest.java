package io.lockfabric.compare;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every peer for about a second each, on its real server started by the comparison, with the
 * mutual-exclusion check through the peer's own lock (an unguarded counter): a peer configured so
 * that its lock does not exclude fails here, and so does a peer whose server is missing (no skip:
 * {@code .ci/run} installs redis-server and etcd-server; ZooKeeper and Hazelcast come with the build).
 */
@Tag("peers")
class PeersCompareTest {
    /** 8 threads on 20 locks, Zipf 0.99: contention on every peer; a second of warm-up (the servers' JITs), one measured. */
    private static CompareWorkload workload(double readRatio) {
        return new CompareWorkload(8, 20, 0.99, readRatio, TimeUnit.SECONDS.toNanos(1), TimeUnit.SECONDS.toNanos(1), 7);
    }

    private static List<PeerResult> run(String peer, List<String> fabrics, double readRatio, int members) throws Exception {
        return run(peer, fabrics, readRatio, members, List.of(1));
    }

    /** The peer's rows, one per fabric (LockFabric) and per value of {@code processes}, each checked clean. */
    private static List<PeerResult> run(String peer, List<String> fabrics, double readRatio, int members, List<Integer> processes)
            throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        Comparison.Settings s = new Comparison.Settings(List.of(peer), fabrics, List.of("default"), workload(readRatio), members,
                List.of(0), processes);
        try (Comparison c = new Comparison(s, new PrintStream(progress, true, StandardCharsets.UTF_8))) {
            List<PeerResult> results = c.run();
            for (PeerResult r : results) {
                assertTrue(r.ok(), r.peer() + ": " + r.outcome() + "\n" + progress);
                assertTrue(r.cycles() > 0, r.peer() + " completed only " + r.cycles() + " cycles in its second\n" + progress);
                assertTrue(r.exclusive() > 0, r.peer() + " took no exclusive lock");
                assertTrue(r.p50Us() > 0 && r.p99Us() >= r.p50Us(), r.peer() + ": latency " + r);
            }
            return results;
        }
    }

    @Test
    void lockFabricOnLocalAndOnAMemoryNodeOfItsOwn() throws Exception {
        List<PeerResult> rs = run("lockfabric", List.of("local", "tcp"), 0, 1);
        assertEquals(2, rs.size());
        assertTrue(rs.get(1).system().contains("tcp://127.0.0.1:"), rs.get(1).system());
        assertEquals(1, run("lockfabric", List.of("local"), 0.3, 1).size());
    }

    @Test
    void lockFabricWithLocalHandoversSideBySide() throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        Comparison.Settings s = new Comparison.Settings(List.of("lockfabric"), List.of("local"), List.of("rpc"), workload(0), 1,
                List.of(0, 4));
        try (Comparison c = new Comparison(s, new PrintStream(progress, true, StandardCharsets.UTF_8))) {
            List<PeerResult> rs = c.run();
            assertEquals(List.of("rpc", "rpc+lh4"), rs.stream().map(PeerResult::lock).toList());
            for (PeerResult r : rs) {
                assertTrue(r.ok() && r.exclusive() > 0, r.peer() + ": " + r.outcome() + "\n" + progress);
            }
            assertTrue(rs.get(1).system().contains("up to 4 local handovers"), rs.get(1).system());
        }
    }

    /**
     * The client threads in two JVMs of their own, on the fabrics other processes reach: both rows
     * clean, with the exclusive cycles of both processes matched against the one shared counter.
     */
    @Test
    void lockFabricFromTwoClientProcessesOnTcpAndShm(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String shm = "shm:" + dir.resolve("fabric");
        List<PeerResult> rs = run("lockfabric", List.of("tcp", shm), 0.3, 1, List.of(2));
        // the client API's default with reads in the mix, declock-tf: its rpcs on shm go to the parent, which serves the file
        assertEquals(List.of("lockfabric tcp declock-tf/2p", "lockfabric " + shm + " declock-tf/2p"),
                rs.stream().map(PeerResult::peer).toList());
        for (PeerResult r : rs) {
            assertTrue(r.system().endsWith("clients in 2 processes"), r.system());
        }
        // the row's space is dropped after it: a file that outlives the command does not fill up run after run
        try (io.lockfabric.shm.ShmFabric f = io.lockfabric.shm.ShmFabric.builder().path(dir.resolve("fabric")).build()) {
            assertEquals(List.of(), f.tables().stream().map(io.lockfabric.shm.ShmFabric.TableRow::name).toList());
        }
    }

    /** Every peer's client opens in a client process as it does here ({@link PeerSpec}): one second each, in two. */
    @Test
    void everyPeerFromTwoClientProcesses() throws Exception {
        for (String peer : List.of("redisson", "curator", "hazelcast", "etcd")) {
            List<PeerResult> rs = run(peer, List.of(), 0, 1, List.of(2));
            assertEquals(List.of(peer + "/2p"), rs.stream().map(PeerResult::peer).toList());
        }
    }

    /**
     * Two client processes of one thread each on a "lock" that excludes nothing: every overlap is
     * between the processes, and the check (one file both map) catches it.
     */
    @Test
    void holdersThatOverlapInDifferentProcessesAreCaught() throws Exception {
        CompareWorkload two = new CompareWorkload(2, 1, 0, 0, 0, TimeUnit.SECONDS.toNanos(1), 3);
        Comparison.Settings s = new Comparison.Settings(List.of("lockfabric"), List.of("tcp"), List.of("default"), two, 1,
                List.of(0), List.of(2));
        try (Comparison c = new Comparison(s, null)) {
            PeerResult r = c.inClientProcesses("none/2p", null, "no lock", "none", PeerSpec.of("none"), two, 2);
            assertTrue(r.violations() > 0, "overlapping holders in two processes passed: " + r);
            assertTrue(r.cycles() > 1000, "cycles " + r.cycles());
            assertEquals(0, r.errors(), r.outcome());
        }
    }

    @Test
    void redissonRLockAndRReadWriteLockOnRedisServer() throws Exception {
        assertEquals("RLock", run("redisson", List.of(), 0, 1).getFirst().lock());
        assertEquals("RReadWriteLock", run("redisson", List.of(), 0.3, 1).getFirst().lock());
    }

    @Test
    void curatorMutexAndReadWriteLockOnZooKeeper() throws Exception {
        assertEquals("InterProcessMutex", run("curator", List.of(), 0, 1).getFirst().lock());
        assertEquals("InterProcessReadWriteLock", run("curator", List.of(), 0.3, 1).getFirst().lock());
    }

    @Test
    void hazelcastFencedLockWithItsMemberInItsOwnProcess() throws Exception {
        PeerResult r = run("hazelcast", List.of(), 0, 1).getFirst();
        assertEquals("FencedLock", r.lock());
        assertTrue(r.system().contains("CP unsafe mode"), r.system());
    }

    @Test
    void hazelcastFencedLockOnARaftGroupOfThreeMembers() throws Exception {
        PeerResult r = run("hazelcast", List.of(), 0, 3).getFirst();
        assertEquals("FencedLock", r.lock());
        assertTrue(r.system().contains("CP group of 3, 3 CP members confirmed"), r.system());
    }

    @Test
    void etcdLockThroughJetcd() throws Exception {
        PeerResult r = run("etcd", List.of(), 0, 1).getFirst();
        assertEquals("Lock", r.lock());
        assertTrue(r.system().startsWith("jetcd ") && r.system().contains(" on etcd 3."), r.system());
        assertEquals("Lock (reads take it exclusive)", run("etcd", List.of(), 0.3, 1).getFirst().lock());
    }
}
