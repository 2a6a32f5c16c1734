package io.lockfabric.shm;

import io.lockfabric.fabric.Int128;
import io.lockfabric.fabric.RemoteAddress;
import io.lockfabric.fabric.memory.MemoryRegion;

/** What the tests reach inside the file: offsets, and a 128-bit update stopped half way. */
final class ShmTestAccess {
    private ShmTestAccess() {
    }

    /** The file offset of a remote address of a table of {@code file}. */
    static long fileOffset(ShmFile file, long address) {
        int region = RemoteAddress.region(address);
        return file.control().read8(ShmLayout.dirEntry(ShmLayout.indexOf(region)) + ShmLayout.DIR_OFFSET) + RemoteAddress.offset(address);
    }

    /**
     * Does what {@link StripeGuard#update} does up to the middle: takes the entry's stripe, logs
     * {@code next}, stores its word 0, and returns without storing word 1 or freeing the stripe, as a
     * process killed there leaves them.
     */
    static void stopInsideUpdate(ShmFile file, long entry, Int128 next) {
        MemoryRegion f = file.control();
        long stripe = ShmLayout.stripe(ShmLayout.stripeOf(entry));
        file.locks().lock(stripe + ShmLayout.STRIPE_LOCK);
        f.write8(stripe + ShmLayout.STRIPE_LOG_LO, next.lo());
        f.write8(stripe + ShmLayout.STRIPE_LOG_HI, next.hi());
        f.write8(stripe + ShmLayout.STRIPE_LOG_ENTRY, entry + 1);
        f.write8(entry, next.lo());
    }
}
