package io.lockfabric.net;

import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableInUseException;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.fabric.memory.MemoryNode;
import io.lockfabric.net.wire.Frame;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Which client endpoints have which tables of a {@link TcpMemoryNode} open, and when a table
 * goes: a table is created by its first opener and kept while any endpoint that opened it is open
 * (its BYE, or the close of the connection it was opened on, ends that; messages call each such
 * opener a "client connection", as each endpoint is one to the table), plus a grace period after
 * the last one closes (so a client that reconnects, or the next process of a script, finds its
 * locks as they were); then it is dropped and its memory freed. {@link #drop} drops one at once:
 * refused while an endpoint has it open, unless forced.
 *
 * <p>Tables created by a table's rpc service (CITRON's expansions) are not tracked here: they
 * belong to their owner and go with it ({@link MemoryNode#dropTable}).
 *
 * <p>Thread-safe: every change is made under this object's lock, so an expiring grace and a new
 * open of the same table cannot cross (an open that comes first keeps the table; one that comes
 * after creates it anew).
 */
final class TableLifecycle {
    private static final Logger LOG = System.getLogger(TcpMemoryNode.class.getName());

    /** Runs a task after a delay: the server's event loop. */
    @FunctionalInterface
    interface Scheduler {
        void schedule(Runnable task, long delayNs);
    }

    private final MemoryNode memory;
    private final long graceNs;
    private final Scheduler scheduler;
    private final LongSupplier nanoClock;
    private final Map<String, Lease> leases = new LinkedHashMap<>();
    private final Map<Object, Set<String>> openedBy = new HashMap<>();

    /** Who has one table open, and since when nobody has. */
    private static final class Lease {
        final Set<Object> openers = new HashSet<>();
        long idleSinceNs;
        /** Counts the times the table became idle, so that a grace timer of an earlier idle spell does nothing. */
        long idleSpell;
    }

    TableLifecycle(MemoryNode memory, long graceNs, Scheduler scheduler, LongSupplier nanoClock) {
        this.memory = memory;
        this.graceNs = graceNs;
        this.scheduler = scheduler;
        this.nanoClock = nanoClock;
    }

    /** Opens (creating if needed) the table of {@code spec} for {@code opener}, which keeps it until {@link #closeAll}. */
    synchronized Table open(TableSpec spec, Object opener) {
        Table table = memory.openTable(spec);
        leases.computeIfAbsent(spec.name(), n -> new Lease()).openers.add(opener);
        openedBy.computeIfAbsent(opener, o -> new HashSet<>()).add(spec.name());
        return table;
    }

    /** {@code opener} (a closed endpoint) has none of its tables open any more; each left idle starts its grace. */
    synchronized void closeAll(Object opener) {
        Set<String> names = openedBy.remove(opener);
        if (names == null) {
            return;
        }
        for (String name : names) {
            Lease lease = leases.get(name);
            if (lease != null && lease.openers.remove(opener) && lease.openers.isEmpty()) {
                lease.idleSinceNs = nanoClock.getAsLong();
                long spell = ++lease.idleSpell;
                scheduler.schedule(() -> expire(name, spell), graceNs);
            }
        }
    }

    private synchronized void expire(String name, long spell) {
        Lease lease = leases.get(name);
        if (lease == null || !lease.openers.isEmpty() || lease.idleSpell != spell) {
            return; // dropped meanwhile, opened again, or idle again since (a later timer decides)
        }
        leases.remove(name);
        long bytes = memory.dropTable(name);
        LOG.log(Level.INFO, "dropped table ''{0}'' ({1} bytes): no client had it open for {2} ms", name, bytes,
                TimeUnit.NANOSECONDS.toMillis(graceNs));
    }

    /**
     * Drops table {@code name} at once.
     *
     * @return the table as it was, or empty if there is none
     * @throws TableInUseException      if a connection has it open and {@code force} is false
     * @throws IllegalArgumentException if another table's service created it
     */
    synchronized Optional<Frame.TableRow> drop(String name, boolean force) {
        return drop(name, force, opener -> false);
    }

    /**
     * {@link #drop(String, boolean)}, where the connections {@code mine} accepts (the dropper's own)
     * do not count as having the table open.
     */
    synchronized Optional<Frame.TableRow> drop(String name, boolean force, java.util.function.Predicate<Object> mine) {
        if (memory.table(name) == null) {
            return Optional.empty();
        }
        Frame.TableRow row = row(name);
        Lease open = leases.get(name);
        long others = open == null ? 0 : open.openers.stream().filter(o -> !mine.test(o)).count();
        if (others > 0 && !force) {
            throw new TableInUseException("table '" + name + "' is open by " + others + " " + (row.openers() > others
                    ? "other " : "") + "client connection" + (others == 1 ? "" : "s") + "; a forced drop drops it under "
                    + "them (their later verbs on it fail: table dropped)");
        }
        memory.dropTable(name);
        Lease lease = leases.remove(name);
        if (lease != null) {
            for (Object opener : lease.openers) {
                Set<String> names = openedBy.get(opener);
                if (names != null) {
                    names.remove(name);
                }
            }
        }
        LOG.log(Level.INFO, "dropped table ''{0}'' ({1} bytes){2}", name, row.bytes(),
                row.openers() > 0 ? ", forced, under " + row.openers() + " open client connections" : "");
        return Optional.of(row);
    }

    /** Every table a client created (not those its service created), in creation order. */
    synchronized List<Frame.TableRow> list() {
        List<Frame.TableRow> rows = new ArrayList<>();
        for (Table t : memory.tables()) {
            if (memory.parentOf(t.spec().name()) == null) {
                rows.add(row(t.spec().name()));
            }
        }
        return rows;
    }

    private Frame.TableRow row(String name) {
        Table t = memory.table(name);
        Lease lease = leases.get(name);
        int openers = lease == null ? 0 : lease.openers.size();
        long idleMs = openers > 0 ? -1 : lease == null ? 0
                : TimeUnit.NANOSECONDS.toMillis(Math.max(0, nanoClock.getAsLong() - lease.idleSinceNs));
        return new Frame.TableRow(name, t.spec().protocol(), memory.footprintBytes(name), openers, idleMs);
    }

    /** The grace a table without open connections is kept for, in nanoseconds. */
    long graceNs() {
        return graceNs;
    }
}
