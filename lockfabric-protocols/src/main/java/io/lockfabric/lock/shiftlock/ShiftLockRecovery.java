package io.lockfabric.lock.shiftlock;

import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.RpcCall;
import io.lockfabric.fabric.RegionAccess;
import io.lockfabric.fabric.RpcHandler;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The memory node's side of ShiftLock's recovery (§3.6): the rpc service of a ShiftLock table.
 *
 * <pre>
 * request  (24 bytes, little-endian): lockId (8) | era the client read (8) | RelCnt it saw stuck (8)
 * response (1 byte): {@link #RECOVERED} | {@link #STALE_ERA} | {@link #PROGRESSED}
 * </pre>
 *
 * A request is served only if its era is the lock's current era (the paper's once-per-era rule,
 * which defeats the ABA of one-sided resets: a client that decided to recover long ago, then
 * paused, cannot reset an entry that others have recovered and used since). In addition — a
 * strengthening over the paper — the entry is reset only if its RelCnt still equals the value the
 * requester saw stuck: a release that landed while the request was on its way means the lock is
 * alive. The reset is one 128-bit masked CAS (atomic with every verb on the entry): word 0 ← 0
 * (no writer queued, no reader, epoch 0) and RelCnt ← RelCnt + 2^63, so every waiter sees the leap
 * and restarts, and every late release guarded by its RelCnt fails. Then the era is bumped. The
 * handler is serialized, so check-and-bump of an era is atomic among rpcs.
 */
final class ShiftLockRecovery implements RpcHandler {
    static final int REQUEST_BYTES = 24;
    static final byte RECOVERED = 0;
    static final byte STALE_ERA = 1;
    static final byte PROGRESSED = 2;

    private final RegionAccess region;
    private final long locks;
    private final int eras;
    private long recoveries;

    ShiftLockRecovery(RegionAccess region, long locks, int eras) {
        this.region = region;
        this.locks = locks;
        this.eras = eras;
    }

    static byte[] request(long lockId, long era, long stuckRelCnt) {
        return ByteBuffer.allocate(REQUEST_BYTES).order(ByteOrder.LITTLE_ENDIAN)
                .putLong(lockId).putLong(era).putLong(stuckRelCnt).array();
    }

    @Override
    public synchronized void handle(RpcCall call) {
        byte[] req = call.request();
        if (req.length != REQUEST_BYTES) {
            call.fail("shiftlock recovery: request of " + req.length + " bytes, expected " + REQUEST_BYTES);
            return;
        }
        ByteBuffer in = ByteBuffer.wrap(req).order(ByteOrder.LITTLE_ENDIAN);
        long lockId = in.getLong();
        long era = in.getLong();
        long stuck = in.getLong();
        if (lockId < 0 || lockId >= locks) {
            call.fail("shiftlock recovery: lock " + lockId + " outside [0, " + locks + ")");
            return;
        }
        long eraOff = ShiftLockLayout.eraOffset(locks, ShiftLockLayout.eraOf(lockId, eras));
        long current = region.read8(eraOff);
        if (current != era) {
            call.reply(new byte[] {STALE_ERA});
            return;
        }
        Int128 old = region.maskedCas128(ShiftLockLayout.entryOffset(lockId), Int128.of(0, stuck), Int128.of(0, -1L),
                Int128.of(0, stuck + ShiftLockLayout.LEAP), Int128.ONES);
        if (old.hi() != stuck) {
            call.reply(new byte[] {PROGRESSED});
            return;
        }
        region.write8(eraOff, era + 1);
        recoveries++;
        call.reply(new byte[] {RECOVERED});
    }

    synchronized long recoveries() {
        return recoveries;
    }
}
