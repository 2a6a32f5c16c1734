package io.lockfabric.lock.rpc;

import io.lockfabric.fabric.EndpointId;
import io.lockfabric.fabric.RpcCall;
import io.lockfabric.fabric.RegionAccess;
import io.lockfabric.fabric.RpcHandler;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.rpc.RpcLockFrame.Request;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server-side lock manager of the {@code rpc} protocol: the rpc service of one lock table, run
 * by its memory node's CPU (the report's "server-centric design"; ShiftLock's RPC baseline).
 *
 * <p>Per lock: the exclusive holder or the shared holders, and a FIFO queue of waiting requests,
 * each an {@link RpcCall} kept unanswered (a deferred reply). A request is granted at once only if
 * nobody waits and it is compatible with the holders (shared: no exclusive holder; exclusive: no
 * holder at all); otherwise an ACQUIRE joins the queue and a TRY_ACQUIRE is answered BUSY. A
 * release grants from the head of the queue as long as the head is compatible: a batch of shared
 * requests together, or one exclusive request. A queued exclusive request therefore blocks shared
 * requests that come after it even while readers hold the lock (FIFO fairness, no writer
 * starvation).
 *
 * <p><b>Fencing</b>: the server counts exclusive grants per lock; an exclusive grant's token is the
 * new count (strictly increasing), a shared grant's token is the current count (at least that of
 * every exclusive grant released before it). A release must present its grant's token, which
 * catches stale or forged releases.
 *
 * <p><b>Memory</b>: the table region holds only the fencing counts, so that idle locks need no
 * Java object (a lock's state object exists while someone holds or waits for it):
 * <pre>
 *  byte  8·i                                  8·i + 8
 * +--------------------------------------------+
 * |   exclusive grants of lock i so far (64)   |
 * +--------------------------------------------+
 * </pre>
 *
 * <p><b>Errors</b>: a malformed frame, a lock id outside the table, or a release of a lock the
 * caller does not hold in that mode with that token is failed with a reason
 * ({@link RpcCall#fail}) and changes nothing.
 *
 * <p><b>Failures</b>: the server learns nothing of a crashed client ({@link RpcCall} says who
 * called, not whether it is still there). A crashed holder blocks its lock forever, and a waiter
 * that crashes before its turn gets a grant nobody uses, which blocks the lock the same way.
 *
 * <p>Thread-safe: any number of threads may call {@link #handle} at once. Each lock's state is
 * guarded by its own monitor, held only to update the state (no waiting, no replies under it).
 */
public final class RpcLockServer implements RpcHandler {
    /** Bytes of the table region per lock: its fencing count. */
    public static final int FENCE_WORD_BYTES = 8;

    private final RegionAccess region;
    private final long locks;
    private final ConcurrentHashMap<Long, LockState> states = new ConcurrentHashMap<>();

    /**
     * @param region the table's region, {@code locks × FENCE_WORD_BYTES} bytes, zeroed when created
     */
    public RpcLockServer(RegionAccess region, long locks) {
        if (locks < 1) {
            throw new IllegalArgumentException("a table needs at least one lock, got " + locks);
        }
        if (region.size() < Math.multiplyExact(locks, FENCE_WORD_BYTES)) {
            throw new IllegalArgumentException("region of " + region.size() + " bytes cannot hold " + locks
                    + " fencing counts");
        }
        this.region = region;
        this.locks = locks;
    }

    @Override
    public void handle(RpcCall call) {
        Request r;
        try {
            r = RpcLockFrame.decodeRequest(call.request());
        } catch (IllegalArgumentException e) {
            call.fail("rpc lock server: bad request from " + call.caller() + ": " + e.getMessage());
            return;
        }
        if (r.lockId() < 0 || r.lockId() >= locks) {
            call.fail("rpc lock server: lock " + r.lockId() + " outside [0, " + locks + ")");
            return;
        }
        if (r.op() == RpcLockFrame.OP_RELEASE) {
            release(call, r);
        } else {
            acquire(call, r);
        }
    }

    private void acquire(RpcCall call, Request r) {
        boolean tryOnly = r.op() == RpcLockFrame.OP_TRY_ACQUIRE;
        byte[] response;
        while (true) {
            LockState s = states.computeIfAbsent(r.lockId(), LockState::new);
            synchronized (s) {
                if (s.retired) {
                    continue; // dropped as idle after we found it: its successor is in the map
                }
                if (s.waiters.isEmpty() && s.compatible(r.mode())) {
                    response = RpcLockFrame.response(RpcLockFrame.STATUS_GRANTED, r.mode(),
                            grant(s, call.caller(), r.mode()));
                } else if (tryOnly) {
                    response = RpcLockFrame.response(RpcLockFrame.STATUS_BUSY, null, 0);
                } else {
                    s.waiters.add(new Waiter(call, r.mode()));
                    return; // the release that grants it replies
                }
            }
            break;
        }
        call.reply(response);
    }

    private void release(RpcCall call, Request r) {
        EndpointId caller = call.caller();
        List<Waiter> granted = new ArrayList<>();
        List<byte[]> responses = new ArrayList<>();
        while (true) {
            LockState s = states.get(r.lockId());
            if (s == null) {
                call.fail(notHeld(caller, r, "nobody holds it"));
                return;
            }
            synchronized (s) {
                if (s.retired) {
                    continue;
                }
                long count = fenceCount(r.lockId());
                boolean holds = r.mode() == Mode.EXCLUSIVE ? caller.equals(s.writer) : s.readers.contains(caller);
                if (!holds) {
                    call.fail(notHeld(caller, r, s.describe()));
                    return;
                }
                if (r.token() != count) {
                    call.fail(notHeld(caller, r, "its grant's token is " + count));
                    return;
                }
                if (r.mode() == Mode.EXCLUSIVE) {
                    s.writer = null;
                } else {
                    s.readers.remove(caller);
                }
                while (!s.waiters.isEmpty() && s.compatible(s.waiters.peekFirst().mode())) {
                    Waiter w = s.waiters.pollFirst();
                    long token = grant(s, w.call().caller(), w.mode());
                    granted.add(w);
                    responses.add(RpcLockFrame.response(RpcLockFrame.STATUS_GRANTED, w.mode(), token));
                }
                if (s.idle()) {
                    s.retired = true;
                    states.remove(r.lockId(), s);
                }
            }
            break;
        }
        for (int i = 0; i < granted.size(); i++) {
            granted.get(i).call().reply(responses.get(i));
        }
        call.reply(RpcLockFrame.response(RpcLockFrame.STATUS_RELEASED, r.mode(), r.token()));
    }

    /** Records the grant in {@code s} (whose monitor the caller holds) and returns its fencing token. */
    private long grant(LockState s, EndpointId to, Mode mode) {
        long off = s.lockId * FENCE_WORD_BYTES;
        if (mode == Mode.EXCLUSIVE) {
            s.writer = to;
            return region.faa(off, 1) + 1;
        }
        s.readers.add(to);
        return region.read8(off);
    }

    private long fenceCount(long lockId) {
        return region.read8(lockId * FENCE_WORD_BYTES);
    }

    private static String notHeld(EndpointId caller, Request r, String why) {
        return "rpc lock server: " + caller + " released lock " + r.lockId() + " (" + r.mode() + ", token "
                + r.token() + ") that it does not hold: " + why;
    }

    /** What a lock's state looks like now: for tests and diagnostics. */
    record View(EndpointId writer, List<EndpointId> readers, List<Mode> waiting, long fencingCount) {
    }

    View view(long lockId) {
        LockState s = states.get(lockId);
        long count = fenceCount(lockId);
        if (s == null) {
            return new View(null, List.of(), List.of(), count);
        }
        synchronized (s) {
            return new View(s.writer, List.copyOf(s.readers),
                    s.waiters.stream().map(Waiter::mode).toList(), count);
        }
    }

    /** Locks that currently have a state object (someone holds or waits). */
    int liveLocks() {
        return states.size();
    }

    private record Waiter(RpcCall call, Mode mode) {
    }

    /** One lock's holders and queue; guarded by its own monitor. */
    private static final class LockState {
        final long lockId;
        EndpointId writer;
        final List<EndpointId> readers = new ArrayList<>(2);
        final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
        /** Set when dropped from the map as idle: a thread that finds it so looks again. */
        boolean retired;

        LockState(long lockId) {
            this.lockId = lockId;
        }

        boolean compatible(Mode mode) {
            return writer == null && (mode == Mode.SHARED || readers.isEmpty());
        }

        boolean idle() {
            return writer == null && readers.isEmpty() && waiters.isEmpty();
        }

        String describe() {
            return writer != null ? "held exclusive by " + writer
                    : readers.isEmpty() ? "nobody holds it" : "held shared by " + readers;
        }
    }
}
