package io.lockfabric.cli;

import io.lockfabric.check.ClockDomain;
import io.lockfabric.check.HistoryFileLayout;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * The options of {@code bench} and {@code range-bench} that write a checked run's history to a
 * file ({@code --history}, {@code --history-dir}) and let the last of a shared table's processes
 * check every process's history ({@code --processes}). {@link #plan} turns them into a
 * {@link HistoryRecording}, or none.
 */
final class HistoryOptions {
    /** Where the histories of a shared table's processes go unless {@code --history} or {@code --history-dir} says. */
    static final String DEFAULT_DIR = "lockfabric-history";

    @Option(names = "--history", paramLabel = "FILE",
            description = "Write the checked runs' history (every grant and release, on this host's monotonic "
                    + "clock, with fencing tokens) to FILE, for 'lockfabric check'. Local and tcp fabrics. Default "
                    + "with --shared-table (and --check): a file named HOST-PID" + HistoryFileLayout.SUFFIX + " in "
                    + "--history-dir.")
    Path file;

    @Option(names = "--history-dir", paramLabel = "DIR",
            description = "Write the history to HOST-PID" + HistoryFileLayout.SUFFIX + " in DIR. Default with "
                    + "--shared-table: " + "${java.io.tmpdir}/" + DEFAULT_DIR + "/NAME.")
    Path dir;

    @Option(names = "--processes", paramLabel = "N",
            description = "With --shared-table: the run has N processes, each writing its history to one directory "
                    + "(--history-dir or the default); the one that completes the set of N checks them all together "
                    + "as 'lockfabric check' does, prints the outcome on stderr and exits 1 on a violation. The others "
                    + "say they left it to the last.")
    Integer processes;

    /**
     * What to record, or null for nothing.
     *
     * @param sharedTable the run's shared table, or null
     * @param checked     whether the runs are checked (and so record their histories)
     * @param realTime    whether the fabric runs in real time (local, tcp): a simulation's times are virtual
     * @throws BadInputException for options that do not go together
     */
    HistoryRecording plan(String sharedTable, boolean checked, boolean realTime) {
        boolean given = file != null || dir != null || processes != null;
        if (!given && (sharedTable == null || !checked)) {
            return null;
        }
        if (!realTime) {
            throw new BadInputException("--history, --history-dir and --processes apply to the local and tcp fabrics "
                    + "(a simulation's times are virtual)");
        }
        if (!checked) {
            throw new BadInputException("--history, --history-dir and --processes record a checked run: add --check");
        }
        if (file != null && dir != null) {
            throw new BadInputException("give --history FILE or --history-dir DIR, not both");
        }
        if (processes != null) {
            if (sharedTable == null) {
                throw new BadInputException("--processes counts the processes of a --shared-table run");
            }
            if (file != null) {
                throw new BadInputException("--processes collects the histories in a directory: give --history-dir "
                        + "(or nothing, for the default), not --history");
            }
            if (processes < 1) {
                throw new BadInputException("--processes must be >= 1, got " + processes);
            }
        }
        if (file != null) {
            return new HistoryRecording(file, null);
        }
        Path d = dir != null ? dir : Path.of(System.getProperty("java.io.tmpdir"), DEFAULT_DIR,
                sharedTable == null ? "runs" : sharedTable);
        String name = ClockDomain.hostName().replaceAll("[^A-Za-z0-9._-]", "_") + "-" + ProcessHandle.current().pid()
                + HistoryFileLayout.SUFFIX;
        return new HistoryRecording(d.resolve(name), processes);
    }
}
