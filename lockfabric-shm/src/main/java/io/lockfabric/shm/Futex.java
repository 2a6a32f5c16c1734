package io.lockfabric.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * Linux futexes on 32-bit words of a shared mapping, called through the FFM API: how a process
 * asleep on the file is woken by another the moment there is something for it, with no timer in the
 * path. The futexes are shared ones (no {@code FUTEX_PRIVATE_FLAG}): the kernel keys them by the
 * file's page, so every process that maps the file waits and wakes on the same word whatever address
 * its mapping has.
 *
 * <p>{@link #AVAILABLE} is false off Linux (x86-64 and aarch64), or where native access is denied
 * ({@code --illegal-native-access=deny} without {@code --enable-native-access}): callers then poll
 * as before. A wait returns on a wake, on a changed word, on its timeout or on a signal alike; the
 * caller re-checks its condition every time, so none of these can lose anything.
 *
 * <p>A waiting thread blocks its carrier: only platform threads wait here. Thread-safe.
 */
final class Futex {
    private Futex() {
    }

    private static final long FUTEX_WAIT = 0;
    private static final long FUTEX_WAKE = 1;
    private static final MethodHandle SYSCALL;
    private static final long SYS_FUTEX;
    /** Whether futexes can be used here. */
    static final boolean AVAILABLE;
    /** Why not, if not (for the message of a test that needs them). */
    static final String UNAVAILABLE_BECAUSE;

    static {
        MethodHandle handle = null;
        long number = 0;
        String why = null;
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        if (!os.startsWith("Linux")) {
            why = "not Linux (" + os + ")";
        } else if (arch.equals("amd64") || arch.equals("x86_64")) {
            number = 202;
        } else if (arch.equals("aarch64")) {
            number = 98;
        } else {
            why = "no futex syscall number known for " + arch;
        }
        if (why == null) {
            try {
                Linker linker = Linker.nativeLinker();
                Optional<MemorySegment> syscall = linker.defaultLookup().find("syscall");
                if (syscall.isEmpty()) {
                    why = "no syscall() in the C library";
                } else {
                    handle = link(linker, syscall.get());
                }
            } catch (RuntimeException | LinkageError e) { // IllegalCallerException: native access denied
                why = "native access: " + e;
                handle = null;
            }
        }
        SYSCALL = handle;
        SYS_FUTEX = number;
        AVAILABLE = handle != null;
        UNAVAILABLE_BECAUSE = why;
    }

    /** {@code long syscall(long number, ...)}, called with uaddr, op, val, timeout, uaddr2, val3. */
    @SuppressWarnings("restricted")
    private static MethodHandle link(Linker linker, MemorySegment syscall) {
        return linker.downcallHandle(syscall, FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
                Linker.Option.firstVariadicArg(1));
    }

    /** A {@code struct timespec} per platform thread that waits. */
    private static final ThreadLocal<MemorySegment> TIMESPEC = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(16, 8));

    /**
     * Sleeps while the 32-bit word at {@code word} holds {@code expected}, at most {@code timeoutNs}:
     * until a {@link #wake}, a signal or the timeout, or at once if the word holds something else.
     * Platform threads only.
     */
    static void await(MemorySegment word, int expected, long timeoutNs) {
        MemorySegment timeout = TIMESPEC.get();
        timeout.set(ValueLayout.JAVA_LONG, 0, timeoutNs / 1_000_000_000L);
        timeout.set(ValueLayout.JAVA_LONG, 8, timeoutNs % 1_000_000_000L);
        call(word, FUTEX_WAIT, expected & 0xFFFF_FFFFL, timeout);
    }

    /** Wakes at most {@code count} threads asleep on the word at {@code word}, of any process. */
    static void wake(MemorySegment word, int count) {
        call(word, FUTEX_WAKE, count, MemorySegment.NULL);
    }

    private static void call(MemorySegment word, long op, long value, MemorySegment timeout) {
        try {
            long ignored = (long) SYSCALL.invokeExact(SYS_FUTEX, word, op, value, timeout, 0L, 0L);
        } catch (Throwable t) {
            throw new IllegalStateException("futex: " + t, t);
        }
    }
}
