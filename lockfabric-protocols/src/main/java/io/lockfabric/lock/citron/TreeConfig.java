package io.lockfabric.lock.citron;

import io.lockfabric.fabric.Batch;
import io.lockfabric.fabric.QueuePair;
import io.lockfabric.fabric.RpcException;
import io.lockfabric.fabric.Table;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One client's view of the lock tree's configuration (FAST'23 §3.9.1): which {@link CitronTree}
 * its requests use, the index arithmetic of that tree ({@link #layout()}) and the range splitter
 * over it (Step 1).
 *
 * <p>The configuration word in the table header (offset {@link CitronLayout#CONFIG_OFFSET}) names
 * the levels of every generation; the expansions' addresses come from the table's
 * {@link CitronService} (the paper's metadata service: "Alice updates the metadata service with a
 * renewed configuration"). A client installs a newer configuration when it meets one: a marked
 * root in step (b), a newer word behind the spillover mutex, the scale poller's READ. Node
 * indices stay valid across scale-ups ("offset by the number of old nodes ahead in level order",
 * §3.9.1): a grant releases in the configuration it was taken in. A release that follows a carry
 * into a generation newer than its own looks that generation up ({@link #at}) and keeps it until
 * the next install.
 *
 * <p>Not thread-safe: one thread at a time, like the endpoint.
 */
final class TreeConfig {
    private final QueuePair qp;
    private final Table table;
    /** Generation 0: the table's own tree, from the {@code units} option. */
    private final CitronLayout base;
    private final long configAddress;
    /** Configurations newer than ours fetched from the service while following carries (by generation). */
    private final Map<Integer, CitronTree> lookedUp = new HashMap<>();
    /** The tree configuration this client uses (refreshed when it meets Exp or a new generation). */
    private CitronTree cur;
    /** {@code cur.layout()}: the index arithmetic of the current tree. */
    private CitronLayout layout;
    private RangeSplitter splitter;
    private long refetches;

    TreeConfig(QueuePair qp, Table table, CitronLayout base) {
        this.qp = qp;
        this.table = table;
        this.base = base;
        this.configAddress = table.at(CitronLayout.CONFIG_OFFSET);
        install(new CitronTree(new int[] {base.levels()}, new long[] {table.at(CitronLayout.TREE_OFFSET)}));
    }

    /** The configuration in use. */
    CitronTree current() {
        return cur;
    }

    /** The index arithmetic of the configuration in use. */
    CitronLayout layout() {
        return layout;
    }

    /** Step 1's splitter over the configuration in use. */
    RangeSplitter splitter() {
        return splitter;
    }

    /** Memory address of node {@code x} of the configuration in use. */
    long address(long x) {
        return cur.address(x);
    }

    /** Address of the configuration word. */
    long wordAddress() {
        return configAddress;
    }

    /** Configurations this client fetched after a scale-up. */
    long refetches() {
        return refetches;
    }

    private void install(CitronTree t) {
        lookedUp.clear();
        cur = t;
        layout = t.layout();
        splitter = new RangeSplitter(layout);
    }

    /** READs the configuration word; installs it if newer. Returns whether it was newer. */
    boolean refresh() {
        return refresh(qp.read8(configAddress));
    }

    /** Installs the configuration {@code word} names if it is not ours. Returns whether it was newer. */
    boolean refresh(long word) {
        if (word == cur.word()) {
            return false;
        }
        int[] levels = CitronTree.decode(word, base.levels());
        CitronTree t;
        if (levels.length == 1) {
            t = new CitronTree(levels, new long[] {table.at(CitronLayout.TREE_OFFSET)});
        } else {
            // The metadata query (§3.9.1): the expansions' addresses come from the table's service.
            t = CitronService.decodeConfig(qp.rpc(table.service(), CitronService.lookupRequest(levels.length - 1)));
            if (!Arrays.equals(t.levels(), levels)) {
                throw new IllegalStateException("citron table " + table.spec().name() + ": the configuration word says "
                        + Arrays.toString(levels) + ", its service " + Arrays.toString(t.levels()));
            }
        }
        install(t);
        refetches++;
        return true;
    }

    /**
     * Configuration of generation {@code g}: a prefix of ours, or (newer) the service's record,
     * published or not; null if the service has none (a dropped tree's retired root).
     */
    CitronTree at(int g) {
        if (g <= cur.generation()) {
            return cur.upTo(g);
        }
        CitronTree t = lookedUp.get(g);
        if (t == null) {
            try {
                t = CitronService.decodeConfig(qp.rpc(table.service(), CitronService.lookupRequest(g)));
            } catch (RpcException unknown) {
                return null;
            }
            lookedUp.put(g, t);
        }
        return t;
    }

    /**
     * The words of each block {@code {first node, count}} of consecutive nodes of one level, in
     * one round trip: one READ per memory run (a block is one run unless it straddles the old tree
     * and an expansion, §3.9.1 "Impact to Step 2(d)").
     */
    long[][] read(List<long[]> blocks) {
        Batch b = new Batch();
        List<List<long[]>> runsOf = new ArrayList<>();
        for (long[] block : blocks) {
            List<long[]> runs = cur.runs(block[0], block[1]);
            runsOf.add(runs);
            for (long[] run : runs) {
                b.read(run[0], Math.toIntExact(run[1] * CitronLayout.WORD_BYTES));
            }
        }
        qp.execute(b);
        long[][] out = new long[blocks.size()][];
        int resultIndex = 0;
        for (int i = 0; i < blocks.size(); i++) {
            long[] words = new long[Math.toIntExact(blocks.get(i)[1])];
            int filled = 0;
            for (long[] run : runsOf.get(i)) {
                ByteBuffer bytes = ByteBuffer.wrap(b.bytesResult(resultIndex++)).order(ByteOrder.LITTLE_ENDIAN);
                for (int j = 0; j < run[1]; j++) {
                    words[filled++] = bytes.getLong(j * CitronLayout.WORD_BYTES);
                }
            }
            out[i] = words;
        }
        return out;
    }
}
