package io.lockfabric.bench;

import java.util.List;

/** Writes the results of runs in one format. Implementations are stateless and thread-safe. */
public interface Report {
    /** The whole report for {@code results}, ending with a newline (empty for no results, except headers). */
    String render(List<RunResult> results);
}
