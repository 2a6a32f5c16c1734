package io.lockfabric.sim;

import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.Counters;
import io.lockfabric.fabric.Verb;
import io.lockfabric.fabric.VerbKind;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The memory node's RNIC: {@code nicUnits} processing units serve verbs in arrival order; a verb's
 * service time depends on its kind and payload. Accesses to one 8-byte word that an RNIC cannot run
 * in parallel queue in arrival order (ShiftLock §4.6: "the RNIC queues up non-parallelizable
 * accesses to the same memory address", the reason retries on one hot lock collapse throughput):
 * atomics and writes on a word are serialized, each holding it for {@code sameWordSerialNs}; a READ
 * waits for the atomics and writes queued on its words before it, and an atomic or write waits for
 * the READs before it, but READs of one word run in parallel with each other. Requests queue when
 * every unit is busy, so latency grows with load. Counts every verb it serves. With
 * {@link SimConfig#mnLinkGbps()} on, the memory node's port is a {@link MemoryNodeLink}: a request
 * crosses its inbound link before it queues for a unit ({@link #admit}), a reply its outbound link
 * once served ({@link #replyLeaves}); off, both cost nothing and nothing else changes. Driver
 * thread only.
 */
final class SimulatedRnic {
    private static final int MAX_SERIALIZED_WORDS = 64;
    private static final int PURGE_THRESHOLD = 1 << 16;

    private final SimConfig config;
    private final long[] unitFreeAt;
    /** Per word: until when the atomics and writes admitted so far hold it. */
    private final Map<Long, Long> wordBusyUntil = new HashMap<>();
    /** Per word: until when the READs admitted so far read it. */
    private final Map<Long, Long> wordReadUntil = new HashMap<>();
    private final Counters inbound = new Counters();
    private final PauseWindows pauses;
    /** The port's links, or null when bandwidth is not modelled. */
    private final MemoryNodeLink link;
    /** Per word while tracking: {exclusive verbs, reads, word wait ns, delayed verbs}; null when not tracking. */
    private Map<Long, long[]> tracked;
    private long trackedVerbs;
    private long trackedExclusive;
    private long trackedUnitWaitNs;
    private long trackedWordWaitNs;
    private long trackedServiceNs;
    private long trackedSinceNs;
    /** The link's {@link MemoryNodeLink#totals()} when tracking began (zeros without a link). */
    private long[] linkAtTrackStart = new long[4];

    SimulatedRnic(SimConfig config, PauseWindows pauses) {
        this.config = config;
        this.pauses = pauses;
        this.unitFreeAt = new long[config.nicUnits()];
        this.link = config.mnLinkModelled() ? new MemoryNodeLink(config.mnLinkGbps()) : null;
    }

    /**
     * Admits a verb that arrived at {@code arrival} and may not start before {@code notBefore}
     * (the previous verb of its batch); returns the virtual time its execution completes.
     */
    long admit(Verb verb, long arrival, long notBefore) {
        if (link != null) {
            arrival = link.receive(arrival, MemoryNodeLink.requestBytes(verb));
        }
        long start = pauses.firstFreeAt(Math.max(arrival, notBefore));
        long ready = start;
        int unit = 0;
        for (int i = 1; i < unitFreeAt.length; i++) {
            if (unitFreeAt[i] < unitFreeAt[unit]) {
                unit = i;
            }
        }
        start = pauses.firstFreeAt(Math.max(start, unitFreeAt[unit]));
        long unitStart = start;
        long decidingWord = -1;
        boolean exclusive = verb.kind().isAtomic() || verb.kind() == VerbKind.WRITE;
        long firstWord = verb.address() & ~7L;
        int words = touchedWords(verb);
        for (int w = 0; w < words; w++) {
            long word = firstWord + 8L * w;
            long until = busyUntil(wordBusyUntil, word);
            if (exclusive) {
                until = Math.max(until, busyUntil(wordReadUntil, word));
            }
            if (until > start) {
                start = until;
                decidingWord = word;
            }
        }
        long finish = start + serviceNs(verb);
        if (tracked != null) {
            track(exclusive, firstWord, words, ready, unitStart, start, decidingWord, finish - start);
        }
        unitFreeAt[unit] = finish;
        for (int w = 0; w < words; w++) {
            long word = firstWord + 8L * w;
            if (exclusive) {
                wordBusyUntil.put(word, start + Math.max(config.sameWordSerialNs(), finish - start));
            } else {
                wordReadUntil.merge(word, finish, Math::max);
            }
        }
        if (wordBusyUntil.size() + wordReadUntil.size() > PURGE_THRESHOLD) {
            purge(wordBusyUntil, arrival);
            purge(wordReadUntil, arrival);
        }
        inbound.recordAll(verb);
        return finish;
    }

    /** The words a verb orders against (the first {@link #MAX_SERIALIZED_WORDS} of a long READ or WRITE). */
    private static int touchedWords(Verb verb) {
        return switch (verb.kind()) {
            case MCAS128, MFAA128 -> 2;
            case WRITE, READ -> Math.min(MAX_SERIALIZED_WORDS,
                    Math.max(1, (int) (((verb.address() & 7) + verb.payloadBytes() + 7) / 8)));
            default -> 1;
        };
    }

    private static long busyUntil(Map<Long, Long> words, long word) {
        Long until = words.get(word);
        return until == null ? Long.MIN_VALUE : until;
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

    /**
     * When the reply of {@code verb}, which completed at {@code completedNs} (now: replies enter the
     * outbound link in completion order), has left the memory node: then, without a link.
     */
    long replyLeaves(Verb verb, long completedNs) {
        return link == null ? completedNs : link.transmit(completedNs, MemoryNodeLink.replyBytes(verb));
    }

    /** When an rpc request of {@code bytes} that reaches the port at {@code arrivalNs} (now) is in. */
    long rpcArrives(int bytes, long arrivalNs) {
        return link == null ? arrivalNs : link.receive(arrivalNs, MemoryNodeLink.sendBytes(bytes));
    }

    /** When an rpc response of {@code bytes} sent at {@code sentNs} (now) has left the memory node. */
    long rpcReplyLeaves(int bytes, long sentNs) {
        return link == null ? sentNs : link.transmit(sentNs, MemoryNodeLink.sendBytes(bytes));
    }

    private void track(boolean exclusive, long firstWord, int words, long ready, long unitStart, long start,
                       long decidingWord, long serviceNs) {
        trackedVerbs++;
        trackedExclusive += exclusive ? 1 : 0;
        trackedUnitWaitNs += unitStart - ready;
        trackedWordWaitNs += start - unitStart;
        trackedServiceNs += serviceNs;
        for (int w = 0; w < words; w++) {
            long[] s = tracked.computeIfAbsent(firstWord + 8L * w, k -> new long[4]);
            s[exclusive ? 0 : 1]++;
        }
        if (decidingWord >= 0) {
            long[] s = tracked.get(decidingWord);
            s[2] += start - unitStart;
            s[3]++;
        }
    }

    /** Starts (or restarts from zero) at {@code nowNs} tracking where verbs wait; {@code false} stops it. */
    void track(boolean on, long nowNs) {
        tracked = on ? new HashMap<>() : null;
        trackedSinceNs = nowNs;
        linkAtTrackStart = link == null ? new long[4] : link.totals();
        trackedVerbs = 0;
        trackedExclusive = 0;
        trackedUnitWaitNs = 0;
        trackedWordWaitNs = 0;
        trackedServiceNs = 0;
    }

    /**
     * Where verbs waited since tracking began, until {@code nowNs}; the {@code top} words with the
     * most word wait; the link's use meanwhile.
     */
    NicQueueing queueing(int top, long nowNs) {
        if (tracked == null) {
            throw new IllegalStateException("queueing is not tracked: call SimFabric.trackMemoryNodeQueueing first");
        }
        List<NicQueueing.Word> all = new ArrayList<>();
        for (Map.Entry<Long, long[]> e : tracked.entrySet()) {
            long[] s = e.getValue();
            all.add(new NicQueueing.Word(e.getKey(), s[0], s[1], s[2], s[3]));
        }
        all.sort(Comparator.comparingLong(NicQueueing.Word::wordWaitNs).reversed()
                .thenComparing(Comparator.comparingLong(NicQueueing.Word::exclusiveVerbs).reversed())
                .thenComparingLong(NicQueueing.Word::address));
        long[] linkNow = link == null ? new long[4] : link.totals();
        NicQueueing.Link linkUse = link == null ? NicQueueing.Link.NONE
                : new NicQueueing.Link(config.mnLinkGbps(), (linkNow[0] - linkAtTrackStart[0]) / 1_000,
                (linkNow[1] - linkAtTrackStart[1]) / 1_000, linkNow[2] - linkAtTrackStart[2],
                linkNow[3] - linkAtTrackStart[3]);
        return new NicQueueing(trackedVerbs, trackedExclusive, trackedUnitWaitNs, trackedWordWaitNs, trackedServiceNs,
                all.subList(0, Math.min(Math.max(0, top), all.size())), config.nicUnits(), nowNs - trackedSinceNs,
                linkUse);
    }

    CounterSnapshot counters() {
        return inbound.snapshot();
    }

    private static void purge(Map<Long, Long> words, long now) {
        for (Iterator<Long> it = words.values().iterator(); it.hasNext(); ) {
            if (it.next() <= now) {
                it.remove();
            }
        }
    }
}
