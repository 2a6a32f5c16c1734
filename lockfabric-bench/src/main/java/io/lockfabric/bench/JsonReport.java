package io.lockfabric.bench;

import java.util.List;

/**
 * JSON Lines: one JSON object per run, each on its own line, so results can be appended to a file
 * and read back run by run. An object holds the fields of the run's workload kind
 * ({@link ReportLayout#json}); the point workload's are documented on
 * {@link io.lockfabric.bench.point.PointWorkload}, the range workload's on
 * {@link io.lockfabric.bench.range.RangeWorkload}. A run that did not complete (stuck clients, or
 * interrupted: {@link RunEnd}) ends in one more object, {@code run_end} ({@link Columns#jsonRunEnd}).
 */
public final class JsonReport implements Report {
    @Override
    public String render(List<RunResult> results) {
        StringBuilder sb = new StringBuilder();
        for (RunResult r : results) {
            write(new JsonWriter(sb), r);
            sb.append('\n');
        }
        return sb.toString();
    }

    /** Writes one run as one JSON object. */
    public static void write(JsonWriter json, RunResult r) {
        json.beginObject();
        r.workload().layout().json(json, r);
        if (!r.runEnd().complete()) {
            Columns.jsonRunEnd(json, r.runEnd());
        }
        json.endObject();
    }
}
