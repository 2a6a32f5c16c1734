package io.lockfabric.apps.btree;

import io.lockfabric.apps.btree.BTreeLayout.Node;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sherman's index cache: a compute node's copies of a tree's internal nodes and of its root's index,
 * shared by the node's clients (kept in its {@link Endpoint#computeNode() attachments}), so that a
 * descent READs only the leaf. A copy may be stale; the B-link tree makes that safe: a stale internal
 * node still leads to a node whose low fence is at or below the key, and the descent moves right from
 * there. A descent that had to move right drops the copy of the node that sent it there (the next one
 * reads it again), and one that moved right twice at the levels under the root reads the root word
 * again. Cached nodes are never changed in place. Thread-safe.
 */
final class IndexCache {
    /** Copies kept at most; a full cache is emptied (the tree's internal nodes are few). */
    static final int MAX_NODES = 1 << 16;

    private final ConcurrentHashMap<Long, Node> nodes = new ConcurrentHashMap<>();
    private volatile long root;

    private static final class OfNode {
        final Map<String, IndexCache> byTable = new HashMap<>();
    }

    /** The cache of {@code table} on {@code endpoint}'s compute node. */
    static IndexCache of(Endpoint endpoint, Table table) {
        OfNode node = endpoint.computeNode().computeIfAbsent(OfNode.class, OfNode::new);
        synchronized (node) {
            return node.byTable.computeIfAbsent(table.spec().name() + "@" + table.memoryNode() + ":" + table.address(),
                    k -> new IndexCache());
        }
    }

    /** The root's index as last read, or 0. */
    long root() {
        return root;
    }

    void root(long index) {
        root = index;
    }

    /** The copy of internal node {@code index}, or null. */
    Node get(long index) {
        return nodes.get(index);
    }

    /** Keeps a copy of {@code n}, an internal node just read whole (the caller no longer changes it). */
    void put(Node n) {
        if (n.level == 0) {
            return;
        }
        if (nodes.size() >= MAX_NODES) {
            nodes.clear();
        }
        nodes.put(n.index, n);
    }

    /** Drops the copy of {@code index}. */
    void invalidate(long index) {
        nodes.remove(index);
    }
}
