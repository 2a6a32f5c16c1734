package io.lockfabric.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Writes the results of runs in one format. Implementations are stateless and thread-safe. */
public interface Report {
    /** The whole report for {@code results}, ending with a newline (empty for no results). */
    String render(List<RunResult> results);

    /** {@code results} grouped by workload kind, kinds in the order they first appear, runs in order. */
    static List<List<RunResult>> byKind(List<RunResult> results) {
        Map<String, List<RunResult>> groups = new LinkedHashMap<>();
        for (RunResult r : results) {
            groups.computeIfAbsent(r.workload().kind(), k -> new ArrayList<>()).add(r);
        }
        return List.copyOf(groups.values());
    }
}
