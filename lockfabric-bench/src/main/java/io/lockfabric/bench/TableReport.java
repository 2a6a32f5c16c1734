package io.lockfabric.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An aligned table for people: protocol, goodput in Kops/s, acquire p50 / p99 / p99.9 and whole
 * operation p99 in µs, the protocol's remote operations per cycle, its retries per operation, the
 * runner's critical-section
 * operations per cycle, and the check outcome. Numbers are right-aligned, text left-aligned.
 */
public final class TableReport implements Report {
    private static final String[] HEADER = {"protocol", "goodput Kops/s", "acq p50 us", "acq p99 us", "acq p99.9 us",
            "op p99 us", "ops/cycle (lock)", "retries/op", "cs ops/cycle", "check"};
    private static final boolean[] NUMERIC = {false, true, true, true, true, true, false, true, false, false};
    private static final String GAP = "  ";
    private static final double OPS_PER_KOPS = 1_000.0;

    @Override
    public String render(List<RunResult> results) {
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        for (RunResult r : results) {
            rows.add(new String[]{
                    r.protocol(),
                    fixed(r.goodput() / OPS_PER_KOPS, 1),
                    fixed(r.acquireLatency().p50Us(), 2),
                    fixed(r.acquireLatency().p99Us(), 2),
                    fixed(r.acquireLatency().p999Us(), 2),
                    fixed(r.operationLatency().p99Us(), 2),
                    r.lockOpsPerCycle().compact(),
                    fixed(r.measuredOps() == 0 ? 0 : (double) r.retries() / r.measuredOps(), 2),
                    r.csOpsPerCycle().compact(),
                    r.check().summary()});
        }
        int[] widths = new int[HEADER.length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                if (i > 0) {
                    line.append(GAP);
                }
                String pad = " ".repeat(widths[i] - row[i].length());
                line.append(NUMERIC[i] ? pad + row[i] : row[i] + pad);
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
        return sb.toString();
    }

    private static String fixed(double v, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }
}
