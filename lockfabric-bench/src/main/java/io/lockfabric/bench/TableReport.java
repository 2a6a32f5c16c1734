package io.lockfabric.bench;

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
    private static final double OPS_PER_KOPS = 1_000.0;

    @Override
    public String render(List<RunResult> results) {
        TextTable table = new TextTable(HEADER, NUMERIC);
        for (RunResult r : results) {
            table.row(
                    r.protocol(),
                    fixed(r.goodput() / OPS_PER_KOPS, 1),
                    fixed(r.acquireLatency().p50Us(), 2),
                    fixed(r.acquireLatency().p99Us(), 2),
                    fixed(r.acquireLatency().p999Us(), 2),
                    fixed(r.operationLatency().p99Us(), 2),
                    r.lockOpsPerCycle().compact(),
                    fixed(r.measuredOps() == 0 ? 0 : (double) r.retries() / r.measuredOps(), 2),
                    r.csOpsPerCycle().compact(),
                    r.check().summary());
        }
        return table.render();
    }

    private static String fixed(double v, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }
}
