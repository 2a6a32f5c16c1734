package io.lockfabric.shm;

import io.lockfabric.check.MutualExclusionContractTest;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;

/**
 * The mutual-exclusion contract on the shm fabric: 8 clients of one process on a fresh file under
 * {@code /dev/shm} per run, this process serving the tables' rpcs (rpc, shiftlock's recovery).
 * Across processes, see {@code ShmMultiProcessTest} in lockfabric-shm.
 */
@Tag("stress")
class ShmMutualExclusionTest extends MutualExclusionContractTest {
    private Path dir;

    @Override
    protected Fabric newFabric() {
        try {
            if (dir == null) {
                Path shm = Path.of("/dev/shm");
                dir = Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, "lockfabric-test-")
                        : Files.createTempDirectory("lockfabric-test-");
            }
            return ShmFabric.builder().path(Files.createTempFile(dir, "mutex-", ".shm")).capacityBytes(64L << 20)
                    .serveRpc(true).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterAll
    void deleteFiles() throws IOException {
        if (dir != null) {
            try (Stream<Path> all = Files.walk(dir)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    @Override
    protected int opsPerClient() {
        return 3_000;
    }

    /** As on the local fabric (LocalMutualExclusionTest): leases that outlast a descheduled thread here. */
    @Override
    protected LockOptions optionsFor(LockProtocol protocol) {
        return switch (protocol.name()) {
            case "drtm" -> LockOptions.parse(List.of("lease-ns=4ms", "tx-time-ns=3ms"));
            case "cql", "declock-tf", "declock-pf" -> LockOptions.parse(List.of("lease-ns=2s"));
            // leases past the longest descheduling of a live thread on a loaded 2-core machine (as on local)
            default -> protocol.options().stream().anyMatch(o -> o.name().equals("lease-ns"))
                    ? LockOptions.parse(List.of("lease-ns=2s")) : LockOptions.DEFAULTS;
        };
    }

    @Override
    protected int opsPerClient(LockProtocol protocol) {
        return "drtm".equals(protocol.name()) ? opsPerClient() / 4 : opsPerClient();
    }
}
