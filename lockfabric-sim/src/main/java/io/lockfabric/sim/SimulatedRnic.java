package io.lockfabric.sim;

import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Counters;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.VerbKind;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The memory node's RNIC: {@code nicUnits} processing units serve verbs in arrival order; a verb's
 * service time depends on its kind and payload; atomics and writes on one 8-byte word are
 * serialized, each holding the word for {@code sameWordSerialNs} (an RNIC cannot run them in
 * parallel: the reason retries on one hot lock collapse throughput). Requests queue when every
 * unit is busy, so latency grows with load. Counts every verb it serves. Driver thread only.
 */
final class SimulatedRnic {
    private static final int MAX_SERIALIZED_WORDS = 64;
    private static final int PURGE_THRESHOLD = 1 << 16;

    private final SimConfig config;
    private final long[] unitFreeAt;
    private final Map<Long, Long> wordBusyUntil = new HashMap<>();
    private final Counters inbound = new Counters();
    private final PauseWindows pauses;

    SimulatedRnic(SimConfig config, PauseWindows pauses) {
        this.config = config;
        this.pauses = pauses;
        this.unitFreeAt = new long[config.nicUnits()];
    }

    /**
     * Admits a verb that arrived at {@code arrival} and may not start before {@code notBefore}
     * (the previous verb of its batch); returns the virtual time its execution completes.
     */
    long admit(Verb verb, long arrival, long notBefore) {
        long start = pauses.firstFreeAt(Math.max(arrival, notBefore));
        int unit = 0;
        for (int i = 1; i < unitFreeAt.length; i++) {
            if (unitFreeAt[i] < unitFreeAt[unit]) {
                unit = i;
            }
        }
        start = pauses.firstFreeAt(Math.max(start, unitFreeAt[unit]));
        boolean serialized = verb.kind().isAtomic() || verb.kind() == VerbKind.WRITE;
        long firstWord = verb.address() & ~7L;
        int words = serialized ? serializedWords(verb) : 0;
        for (int w = 0; w < words; w++) {
            Long busy = wordBusyUntil.get(firstWord + 8L * w);
            if (busy != null && busy > start) {
                start = busy;
            }
        }
        long finish = start + serviceNs(verb);
        unitFreeAt[unit] = finish;
        for (int w = 0; w < words; w++) {
            wordBusyUntil.put(firstWord + 8L * w, start + Math.max(config.sameWordSerialNs(), finish - start));
        }
        if (wordBusyUntil.size() > PURGE_THRESHOLD) {
            purge(arrival);
        }
        inbound.recordAll(verb);
        return finish;
    }

    private static int serializedWords(Verb verb) {
        return switch (verb.kind()) {
            case MCAS128, MFAA128 -> 2;
            case WRITE -> Math.min(MAX_SERIALIZED_WORDS, Math.max(1, (verb.payloadBytes() + 7) / 8));
            default -> 1;
        };
    }

    long serviceNs(Verb verb) {
        long base = switch (verb.kind()) {
            case READ -> config.readServiceNs();
            case WRITE -> config.writeServiceNs();
            case CAS, FAA, MCAS, MFAA -> config.atomicServiceNs();
            case MCAS128, MFAA128 -> config.atomic128ServiceNs();
            case SEND, RPC -> throw new IllegalArgumentException(verb.kind() + " is not served by the NIC");
        };
        return base + (long) (verb.payloadBytes() * config.nicNsPerByte());
    }

    void countRpc(int requestBytes) {
        inbound.record(VerbKind.RPC, requestBytes);
    }

    CounterSnapshot counters() {
        return inbound.snapshot();
    }

    private void purge(long now) {
        for (Iterator<Long> it = wordBusyUntil.values().iterator(); it.hasNext(); ) {
            if (it.next() <= now) {
                it.remove();
            }
        }
    }
}
