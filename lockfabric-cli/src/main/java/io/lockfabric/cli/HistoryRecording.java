package io.lockfabric.cli;

import io.lockfabric.check.CrossProcessChecker;
import io.lockfabric.check.HistoryFile;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A benchmark process's history, collected run by run and written to one file when the runs are
 * done ({@link HistoryFile}); with a process count, the check of the whole set by the process that
 * completes it.
 *
 * <p>Which process checks: each writes its file whole (a temporary file renamed into the
 * directory), then counts the history files there. Of two processes finishing together, at least
 * the later to count sees both files, so at least one process sees all N; those that do race to
 * create a marker file ({@value #MARKER}), and the one that creates it checks. More than N files
 * in the directory is an error (histories of an earlier run: give each run a new table name or
 * directory).
 *
 * @param file      where this process's history goes
 * @param processes the run's process count, for the last one's check, or null
 */
record HistoryRecording(Path file, Integer processes) {
    /** The file whose creation elects the process that checks a directory's histories. */
    static final String MARKER = "checked-by";

    /** A collector of this process's runs, to write with {@link #finish}. */
    List<HistoryFile.Run> newCollector() {
        return new CopyOnWriteArrayList<>();
    }

    /**
     * Writes this process's history and, with a process count, checks the set if this process
     * completes it; the exit status {@code status} becomes, which is {@link Main#EXIT_VIOLATIONS}
     * if the merged check found any.
     */
    int finish(List<HistoryFile.Run> runs, String label, PrintWriter err, int status) {
        try {
            new HistoryFile(HistoryFile.Header.ofThisProcess(label), runs).write(file);
        } catch (IOException e) {
            throw new BadInputException("cannot write the history to " + file + ": " + e.getMessage());
        }
        long holds = runs.stream().mapToLong(r -> r.holds().size()).sum();
        err.println("history: " + holds + " holds of " + runs.size() + " run(s) written to " + file);
        if (processes == null) {
            err.flush();
            return status;
        }
        Path dir = file.toAbsolutePath().getParent();
        List<Path> files = CheckCommand.historyFiles(dir);
        if (files.size() > processes) {
            throw new BadInputException(dir + " holds " + files.size() + " histories, more than --processes "
                    + processes + ": files of an earlier run? Give each run a new --shared-table name or --history-dir");
        }
        if (files.size() < processes) {
            err.println("history: " + files.size() + " of " + processes + " processes' histories in " + dir
                    + "; the last process checks them");
            err.flush();
            return status;
        }
        try {
            Files.createFile(dir.resolve(MARKER));
            Files.writeString(dir.resolve(MARKER), ProcessHandle.current().pid() + "\n");
        } catch (FileAlreadyExistsException e) {
            err.println("history: all " + processes + " histories in " + dir + "; another process checks them");
            err.flush();
            return status;
        } catch (IOException e) {
            throw new BadInputException("cannot write " + dir.resolve(MARKER) + ": " + e.getMessage());
        }
        err.println("history: all " + processes + " histories in " + dir + "; checking them together");
        CrossProcessChecker.Report report = CheckCommand.check(new ArrayList<>(files),
                CrossProcessChecker.DEFAULT_DRIFT_PPM);
        CheckCommand.print(report, err);
        err.flush();
        return report.clean() ? status : Main.EXIT_VIOLATIONS;
    }
}
