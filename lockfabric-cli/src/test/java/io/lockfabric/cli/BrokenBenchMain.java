package io.lockfabric.cli;

import io.lockfabric.bench.ReportFormat;
import io.lockfabric.bench.point.PointWorkload;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.Grant;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.Mode;
import io.lockfabric.sim.FaultPlan;
import picocli.CommandLine;

import java.nio.file.Path;
import java.util.List;

/**
 * A bench process of {@link CrossProcessCheckTest} running a deliberately broken lock: what
 * {@code lockfabric bench --check --shared-table T --history-dir DIR --processes N} does, through
 * the same execution (its own check, the history file, the last process's merged check), with a
 * protocol no registry has. One client per process, so that each process's own history is clean
 * and only the merged check can see the broken lock. Arguments: the memory node's address, the
 * shared table's name, the seed, the history directory, the process count. Exits with the bench's
 * status.
 */
final class BrokenBenchMain {
    private BrokenBenchMain() {
    }

    public static void main(String[] args) {
        String uri = args[0];
        String table = args[1];
        long seed = Long.parseLong(args[2]);
        Path dir = Path.of(args[3]);
        int processes = Integer.parseInt(args[4]);
        PointWorkload workload = PointWorkload.builder().clients(1).locks(1).readRatio(0).cs(1).seed(seed)
                .durationNs(1_500_000_000L).warmupNs(0).check(true).build();
        CommandLine cli = new CommandLine(new BenchCommand());
        int status = new BenchExecution<LockProtocol>(FabricChoice.parse(uri, ""), null, seed, FaultPlan.NONE, table,
                LockProtocol::name, "")
                .recording(new HistoryRecording(dir.resolve("broken-" + ProcessHandle.current().pid() + ".lfh"),
                        processes), "broken bench --seed " + seed)
                .execute(cli.getCommandSpec(), List.of(new SkippingLock()), workload, ReportFormat.CSV, "", null);
        System.exit(status);
    }

    /**
     * A CAS lock whose every third acquisition skips the CAS once another client holds the lock
     * (waiting up to 20 ms for one), so its grant overlaps that holder's. Tokens come from a counter
     * per lock taken after the grant, so they increase in each process.
     */
    static final class SkippingLock implements LockProtocol {
        @Override
        public String name() {
            return "skipping";
        }

        @Override
        public String description() {
            return "a deliberately broken lock";
        }

        @Override
        public boolean supportsShared() {
            return false;
        }

        @Override
        public boolean strictFencing() {
            return true;
        }

        @Override
        public TableSpec tableSpec(String tableName, long locks, LockOptions options) {
            return new TableSpec(tableName, name(), locks, locks * 16);
        }

        @Override
        public LockClient client(Endpoint endpoint, Table table, LockOptions options) {
            QueuePair qp = endpoint.queuePair(0);
            return new LockClient() {
                long acquisitions;

                @Override
                public Grant acquire(long lockId, Mode mode) {
                    long addr = table.at(lockId * 8);
                    if (++acquisitions % 3 == 0) {
                        long giveUpAt = endpoint.clock().nanoTime() + 20_000_000L;
                        while (qp.read8(addr) == 0 && endpoint.clock().nanoTime() < giveUpAt) {
                            endpoint.clock().sleepNanos(10_000);
                        }
                    } else {
                        while (qp.cas(addr, 0, 1) != 0) {
                            endpoint.clock().sleepNanos(10_000);
                        }
                    }
                    long token = qp.faa(table.at((table.spec().locks() + lockId) * 8), 1) + 1;
                    return new SkippedGrant(lockId, token);
                }

                @Override
                public void release(Grant grant) {
                    qp.write8(table.at(grant.lockId() * 8), 0);
                }

                @Override
                public long locks() {
                    return table.spec().locks();
                }
            };
        }
    }

    private record SkippedGrant(long lockId, long fencingToken) implements Grant {
        @Override
        public Mode mode() {
            return Mode.EXCLUSIVE;
        }
    }
}
