package io.lockfabric.apps.btree;

import java.util.List;

/**
 * What {@link BTreeClient#check()} found in a quiescent tree: its shape, every entry in key order
 * (the leaves' chain, a full scan) and the structural problems (empty when the tree checks out).
 *
 * @param levels   levels, leaves included
 * @param nodes    nodes reachable from the root
 * @param leaves   leaves in the leaf chain
 * @param keys     every key, ascending
 * @param values   the value of each key
 * @param problems what is wrong, one line each (at most {@link #MAX_PROBLEMS})
 */
public record BTreeCheck(int levels, long nodes, long leaves, long[] keys, long[] values, List<String> problems) {
    /** Problems kept beyond which a check stops listing. */
    public static final int MAX_PROBLEMS = 20;

    public BTreeCheck {
        problems = List.copyOf(problems);
    }

    /** True if the structure checks out. */
    public boolean ok() {
        return problems.isEmpty();
    }

    @Override
    public String toString() {
        return levels + " levels, " + nodes + " nodes, " + leaves + " leaves, " + keys.length + " keys"
                + (ok() ? ", structure ok" : ", problems: " + problems);
    }
}
