package io.lockfabric.sim;

/**
 * The RNIC of one compute node, shared by every client on that node: {@code cnNicUnits} processing
 * units, each pass through it (a work request going out, a completion or message coming in) holding
 * one unit for {@code cnNicServiceNs}. Passes are admitted in arrival order, so a node whose
 * clients issue many verbs at once queues them: that is how clients on the same node slow each
 * other down. Driver thread only.
 */
final class ComputeNodeNic {
    private final long[] unitFreeAt;
    private final long serviceNs;

    ComputeNodeNic(SimConfig config) {
        this.unitFreeAt = new long[config.cnNicUnits()];
        this.serviceNs = config.cnNicServiceNs();
    }

    /**
     * Admits a pass that reaches the NIC at {@code arrival}; returns when it leaves the NIC. Passes
     * are served in admission order, which callers keep (nearly) that of arrival.
     */
    long admit(long arrival) {
        if (serviceNs == 0) {
            return arrival;
        }
        int unit = 0;
        for (int i = 1; i < unitFreeAt.length; i++) {
            if (unitFreeAt[i] < unitFreeAt[unit]) {
                unit = i;
            }
        }
        long finish = Math.max(arrival, unitFreeAt[unit]) + serviceNs;
        unitFreeAt[unit] = finish;
        return finish;
    }
}
