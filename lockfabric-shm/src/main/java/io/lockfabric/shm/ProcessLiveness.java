package io.lockfabric.shm;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Which processes are alive, by the <em>process token</em> they leave in the file's lock words and
 * endpoint slots: the pid in the low 32 bits and the low 31 bits of the process's start time in
 * milliseconds above it, so that a pid the system reused for a new process does not pass for the
 * old holder. Never 0.
 *
 * <p>A process that ended but is not yet reaped by its parent (a zombie) counts as dead.
 *
 * <p>Death is final and remembered; life is re-checked when its answer is older than
 * {@link #RECHECK_NS}, so a hot send path does not read {@code /proc} each time. Thread-safe.
 */
final class ProcessLiveness {
    /** How long a "still alive" answer is trusted. */
    static final long RECHECK_NS = 2_000_000;

    private final long self = tokenOf(ProcessHandle.current());
    private final ConcurrentHashMap<Long, Long> aliveCheckedAt = new ConcurrentHashMap<>();
    private final java.util.Set<Long> dead = ConcurrentHashMap.newKeySet();

    /** This process's token. */
    long self() {
        return self;
    }

    /** Whether the process of {@code token} is alive (this process always is). */
    boolean isAlive(long token) {
        if (token == self) {
            return true;
        }
        if (token == 0 || dead.contains(token)) {
            return false;
        }
        long now = System.nanoTime();
        Long checked = aliveCheckedAt.get(token);
        if (checked != null && now - checked < RECHECK_NS) {
            return true;
        }
        boolean alive = ProcessHandle.of(pid(token)).map(p -> p.isAlive() && tokenOf(p) == token).orElse(false)
                && !isZombie(pid(token));
        if (alive) {
            aliveCheckedAt.put(token, now);
        } else {
            aliveCheckedAt.remove(token);
            dead.add(token);
        }
        return alive;
    }

    /**
     * Whether the process has ended and waits for its parent to reap it (Linux's state Z or X), which
     * the JDK still reports alive: a process killed with SIGKILL whose parent is slow to reap it must
     * not keep its locks. False where {@code /proc} is not there.
     */
    static boolean isZombie(long pid) {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(pid), "stat"));
            int end = stat.lastIndexOf(')');
            char state = end >= 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : '?';
            return state == 'Z' || state == 'X';
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        }
    }

    static long pid(long token) {
        return token & 0xFFFF_FFFFL;
    }

    static long tokenOf(ProcessHandle p) {
        long started = p.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L) & 0x7FFF_FFFFL;
        return (started << 32) | (p.pid() & 0xFFFF_FFFFL);
    }
}
