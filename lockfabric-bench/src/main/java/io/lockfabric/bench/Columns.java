package io.lockfabric.bench;

import io.lockfabric.bench.ReportLayout.Column;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.sim.Fault;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** Report columns and cell formats that every workload kind's {@link ReportLayout} may share. */
public final class Columns {
    private Columns() {
    }

    /**
     * CSV: {@code measured_ops}, {@code measured_s}, {@code goodput} (ops/s), then acquire and
     * operation latency percentiles in µs ({@code acq_p50_us} ... {@code op_p999_us}).
     */
    public static List<Column> csvMeasured() {
        return List.of(
                Column.number("measured_ops", r -> str(r.measuredOps())),
                Column.number("measured_s", r -> str(r.measuredSeconds())),
                Column.number("goodput", r -> str(r.goodput())),
                Column.number("acq_p50_us", r -> str(r.acquireLatency().p50Us())),
                Column.number("acq_p99_us", r -> str(r.acquireLatency().p99Us())),
                Column.number("acq_p999_us", r -> str(r.acquireLatency().p999Us())),
                Column.number("op_p50_us", r -> str(r.operationLatency().p50Us())),
                Column.number("op_p99_us", r -> str(r.operationLatency().p99Us())),
                Column.number("op_p999_us", r -> str(r.operationLatency().p999Us())));
    }

    /** CSV: one column {@code <prefix><kind>} per verb kind, the operations per cycle {@code ops} gives. */
    public static List<Column> csvPerKind(String prefix, Function<RunResult, OpsPerCycle> ops) {
        List<Column> out = new ArrayList<>();
        for (VerbKind k : VerbKind.values()) {
            out.add(Column.number(prefix + k.label(), r -> str(ops.apply(r).get(k))));
        }
        return out;
    }

    /** JSON: an object {@code name} with one key per verb kind (all of them, or only the non-zero ones). */
    public static void jsonPerKind(JsonWriter json, String name, OpsPerCycle ops, boolean nonZeroOnly) {
        json.name(name).beginObject();
        for (VerbKind k : VerbKind.values()) {
            if (!nonZeroOnly || ops.get(k) != 0) {
                json.name(k.label()).value(ops.get(k));
            }
        }
        json.endObject();
    }

    /** JSON: an object {@code name} with the {@code p50}, {@code p99} and {@code p999} of {@code l}, µs. */
    public static void jsonLatency(JsonWriter json, String name, LatencySummary l) {
        json.name(name).beginObject()
                .name("p50").value(l.p50Us())
                .name("p99").value(l.p99Us())
                .name("p999").value(l.p999Us())
                .endObject();
    }

    /**
     * JSON: an object {@code faults} with a simulated run's fault plan, the scheduled faults,
     * crashed and stuck clients (and {@code gave_up_clients}, only if a client gave up on a lock its
     * protocol declared broken), recoveries, hazards, liveness violations, dropped and delayed
     * messages.
     */
    public static void jsonFaults(JsonWriter json, FaultOutcome f) {
        json.name("faults").beginObject().name("plan").value(f.plan()).name("scheduled").beginArray();
        for (Fault fault : f.faults()) {
            json.beginObject().name("kind").value(fault.kind().label()).name("target").value(fault.target())
                    .name("at_ns").value(fault.atNs()).name("length_ns").value(fault.lengthNs()).endObject();
        }
        json.endArray().name("crashed_clients").beginArray();
        f.crashedClients().forEach(c -> json.value((long) c));
        json.endArray().name("stuck_clients").beginArray();
        f.stuckClients().forEach(c -> json.value((long) c));
        json.endArray();
        if (!f.gaveUpClients().isEmpty()) {
            json.name("gave_up_clients").beginArray();
            f.gaveUpClients().forEach(c -> json.value((long) c));
            json.endArray();
        }
        json.name("liveness_asserted").value(f.livenessAsserted()).name("recoveries").beginArray();
        for (FaultOutcome.Recovery rec : f.recoveries()) {
            json.beginObject().name("lock").value(rec.lock()).name("client").value(rec.client())
                    .name("crashed_at_ns").value(rec.crashedAtNs()).name("recovered_at_ns").value(rec.recoveredAtNs())
                    .endObject();
        }
        json.endArray().name("hazards").beginArray();
        f.hazards().forEach(h -> json.value(h.description()));
        json.endArray().name("violations").beginArray();
        f.violations().forEach(v -> json.value(v.description()));
        json.endArray().name("dropped_messages").value(f.droppedMessages())
                .name("delayed_messages").value(f.delayedMessages()).endObject();
    }

    /**
     * CSV, only in a report where some run did not complete ({@link RunEnd}), so that the report of
     * runs that all completed is as it always was: {@code run_end} ({@code complete},
     * {@code deadline} or {@code interrupted}: a partial result), {@code run_end_ns} (when it was cut
     * off, from its start; empty if complete), {@code stuck_clients} and
     * {@code stuck_last_progress_ns} (the stuck clients and the times of their last progress, from the run's
     * start, space-separated in the same order).
     */
    public static List<Column> csvRunEnd() {
        return List.of(
                Column.text("run_end", r -> r.runEnd().how().label()),
                Column.number("run_end_ns", r -> r.runEnd().complete() ? "" : str(r.runEnd().atNs())),
                Column.text("stuck_clients", r -> joined(r.runEnd().stuck(), s -> str(s.client()))),
                Column.text("stuck_last_progress_ns", r -> joined(r.runEnd().stuck(), s -> str(s.lastProgressNs()))));
    }

    /**
     * JSON, only for a run that did not complete: an object {@code run_end} with {@code how}
     * ({@code deadline} or {@code interrupted}), {@code partial} (true if interrupted before its
     * planned end), {@code at_ns}, {@code planned_ns}, {@code grace_ns} (from the run's start),
     * {@code cause}, {@code stuck_clients} (objects with {@code client} and
     * {@code last_progress_ns}) and {@code unended_clients}.
     */
    public static void jsonRunEnd(JsonWriter json, RunEnd end) {
        json.name("run_end").beginObject()
                .name("how").value(end.how().label())
                .name("partial").value(end.partial())
                .name("at_ns").value(end.atNs())
                .name("planned_ns").value(end.plannedNs())
                .name("grace_ns").value(end.graceNs())
                .name("cause").value(end.cause())
                .name("stuck_clients").beginArray();
        for (RunEnd.StuckClient s : end.stuck()) {
            json.beginObject().name("client").value(s.client()).name("last_progress_ns").value(s.lastProgressNs())
                    .endObject();
        }
        json.endArray().name("unended_clients").beginArray();
        end.unended().forEach(c -> json.value((long) c));
        json.endArray().endObject();
    }

    private static <T> String joined(List<T> items, Function<T, String> cell) {
        return String.join(" ", items.stream().map(cell).toList());
    }

    /** A CSV number, as {@link Long#toString}. */
    public static String str(long v) {
        return Long.toString(v);
    }

    /** A CSV number, as {@link Double#toString}. */
    public static String str(double v) {
        return Double.toString(v);
    }
}
