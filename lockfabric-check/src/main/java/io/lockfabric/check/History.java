package io.lockfabric.check;

import io.lockfabric.lock.Grant;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;

/**
 * Records grants and releases of many clients, in observer time, without contention: each client
 * writes to its own {@link Recorder}. Record the grant right after {@code acquire} returns and the
 * release right before {@code release} is called, so a recorded hold lies inside the real one and
 * any recorded overlap is a real overlap. Optionally, {@link Recorder#requesting()} right before
 * {@code acquire} records when the grant was asked for.
 */
public final class History {
    private final LongSupplier observerTime;
    private final ConcurrentLinkedQueue<Recorder> recorders = new ConcurrentLinkedQueue<>();

    /** @param observerTime the fabric's {@code observerNanoTime} */
    public History(LongSupplier observerTime) {
        this.observerTime = observerTime;
    }

    /** A recorder for one client (one thread). */
    public Recorder recorder(int client) {
        Recorder r = new Recorder(client);
        recorders.add(r);
        return r;
    }

    /** Every hold recorded so far; grants still open are reported as never released. */
    public List<Hold> holds() {
        List<Hold> all = new ArrayList<>();
        for (Recorder r : recorders) {
            r.drainTo(all);
        }
        return all;
    }

    /** One client's part of the history. Not thread-safe. */
    public final class Recorder {
        private final int client;
        private final List<Hold> closed = new ArrayList<>();
        private final List<Hold> open = new ArrayList<>();
        private long requestedAt = -1;

        private Recorder(int client) {
            this.client = client;
        }

        public void granted(Grant grant) {
            long start = grant instanceof RangeGrant r ? r.start() : grant.lockId();
            long end = grant instanceof RangeGrant r ? r.end() : grant.lockId() + 1;
            granted(start, end, grant.mode(), grant.fencingToken());
        }

        /** The client is about to call {@code acquire}: the next grant was asked for now. */
        public void requesting() {
            requestedAt = observerTime.getAsLong();
        }

        public void granted(long start, long end, Mode mode, long token) {
            long now = observerTime.getAsLong();
            open.add(new Hold(client, start, end, mode, token, requestedAt < 0 ? now : requestedAt, now, Hold.NEVER));
            requestedAt = -1;
        }

        public void releasing(Grant grant) {
            long start = grant instanceof RangeGrant r ? r.start() : grant.lockId();
            long now = observerTime.getAsLong();
            for (int i = open.size() - 1; i >= 0; i--) {
                Hold h = open.get(i);
                if (h.start() == start && h.token() == grant.fencingToken() && h.mode() == grant.mode()) {
                    open.remove(i);
                    closed.add(h.releasedAt(now));
                    return;
                }
            }
            throw new IllegalStateException("client " + client + " releases " + grant + " which it was not recorded holding");
        }

        private synchronized void drainTo(List<Hold> out) {
            out.addAll(closed);
            out.addAll(open);
        }
    }
}
