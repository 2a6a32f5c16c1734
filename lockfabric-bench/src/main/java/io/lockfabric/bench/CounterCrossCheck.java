package io.lockfabric.bench;

import io.lockfabric.fabric.CounterSnapshot;
import io.lockfabric.fabric.VerbKind;

/**
 * The operations the clients counted sending against those the memory nodes counted serving, over
 * the whole run (warmup included). They agree when every verb and rpc was counted on both sides;
 * client-to-client messages ({@link VerbKind#SEND}) never reach a memory node and are left out.
 */
public record CounterCrossCheck(CounterSnapshot sentByClients, CounterSnapshot servedByMemoryNodes) {
    /** Total verbs and rpcs the clients sent (SEND excluded). */
    public long clientOps() {
        return total(sentByClients);
    }

    /** Total verbs and rpcs the memory nodes served. */
    public long memoryNodeOps() {
        return total(servedByMemoryNodes);
    }

    /** True if both sides counted the same, kind by kind (SEND excluded). */
    public boolean agree() {
        for (VerbKind k : VerbKind.values()) {
            if (k != VerbKind.SEND && sentByClients.ops(k) != servedByMemoryNodes.ops(k)) {
                return false;
            }
        }
        return true;
    }

    private static long total(CounterSnapshot s) {
        long sum = 0;
        for (VerbKind k : VerbKind.values()) {
            if (k != VerbKind.SEND) {
                sum += s.ops(k);
            }
        }
        return sum;
    }
}
