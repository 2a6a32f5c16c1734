package io.lockfabric.bench;

import io.lockfabric.check.Violation;
import io.lockfabric.fabric.VerbKind;
import io.lockfabric.sim.Fault;

import java.util.List;

/**
 * JSON Lines: one JSON object per run, each on its own line, so results can be appended to a file
 * and read back run by run. An object holds {@code protocol}, {@code fabric}, {@code parameters}
 * (the workload), {@code measured_ops}, {@code measured_s}, {@code goodput} (ops/s),
 * {@code latency_us} and {@code acquire_latency_us} ({@code p50}, {@code p99}, {@code p999}),
 * {@code ops_per_cycle} and {@code cs_ops_per_cycle} (one key per verb kind: {@code read},
 * {@code write}, {@code cas}, {@code faa}, {@code mcas}, {@code mfaa}, {@code mcas128},
 * {@code mfaa128}, {@code send}, {@code rpc}), {@code retries}, {@code aborts}, {@code check} and
 * {@code cross_check}; on the sim fabric also {@code faults} (the plan, the scheduled faults,
 * crashed and stuck clients, recoveries, hazards, liveness violations, dropped and delayed
 * messages).
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
        MicroBenchConfig c = r.config();
        json.beginObject();
        json.name("protocol").value(r.protocol());
        json.name("fabric").value(r.fabric());
        json.name("parameters").beginObject()
                .name("clients").value(c.clients())
                .name("locks").value(c.locks())
                .name("zipf").value(c.zipf())
                .name("read_ratio").value(c.readRatio())
                .name("cs").value(c.cs())
                .name("duration_ns").value(c.durationNs())
                .name("ops").value(c.operations())
                .name("warmup_ns").value(c.warmupNs())
                .name("seed").value(c.seed())
                .name("check").value(c.check())
                .name("options").beginArray();
        for (String pair : c.options().pairs()) {
            json.value(pair);
        }
        json.endArray().endObject();
        json.name("measured_ops").value(r.measuredOps());
        json.name("measured_s").value(r.measuredSeconds());
        json.name("goodput").value(r.goodput());
        latency(json, "latency_us", r.operationLatency());
        latency(json, "acquire_latency_us", r.acquireLatency());
        perKind(json, "ops_per_cycle", r.lockOpsPerCycle());
        perKind(json, "cs_ops_per_cycle", r.csOpsPerCycle());
        json.name("retries").value(r.retries());
        json.name("aborts").value(r.aborts());
        json.name("resets").value(r.resets());
        CheckResult check = r.check();
        json.name("check").beginObject()
                .name("enabled").value(check.enabled())
                .name("clean").value(check.clean())
                .name("holds").value(check.holds())
                .name("exclusive_grants").value(check.exclusiveGrants())
                .name("fencing_checked").value(check.fencingChecked())
                .name("violations").beginArray();
        for (Violation v : check.violations()) {
            json.value(v.description());
        }
        json.endArray().endObject();
        json.name("cross_check").beginObject()
                .name("client_ops").value(r.crossCheck().clientOps())
                .name("memory_node_ops").value(r.crossCheck().memoryNodeOps())
                .name("agree").value(r.crossCheck().agree())
                .endObject();
        if (r.fabric().equals("sim")) {
            faults(json, r.faults());
        }
        json.endObject();
    }

    private static void faults(JsonWriter json, FaultOutcome f) {
        json.name("faults").beginObject().name("plan").value(f.plan()).name("scheduled").beginArray();
        for (Fault fault : f.faults()) {
            json.beginObject().name("kind").value(fault.kind().label()).name("target").value(fault.target())
                    .name("at_ns").value(fault.atNs()).name("length_ns").value(fault.lengthNs()).endObject();
        }
        json.endArray().name("crashed_clients").beginArray();
        f.crashedClients().forEach(c -> json.value((long) c));
        json.endArray().name("stuck_clients").beginArray();
        f.stuckClients().forEach(c -> json.value((long) c));
        json.endArray().name("liveness_asserted").value(f.livenessAsserted()).name("recoveries").beginArray();
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

    private static void latency(JsonWriter json, String name, LatencySummary l) {
        json.name(name).beginObject()
                .name("p50").value(l.p50Us())
                .name("p99").value(l.p99Us())
                .name("p999").value(l.p999Us())
                .endObject();
    }

    private static void perKind(JsonWriter json, String name, OpsPerCycle ops) {
        json.name(name).beginObject();
        for (VerbKind k : VerbKind.values()) {
            json.name(k.label()).value(ops.get(k));
        }
        json.endObject();
    }
}
