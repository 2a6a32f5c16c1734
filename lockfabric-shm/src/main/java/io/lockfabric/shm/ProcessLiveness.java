package io.lockfabric.shm;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Which processes are alive, by the <em>process token</em> they leave in the file's lock words and
 * endpoint slots: the pid in the low 32 bits and the low 31 bits of the process's start time above
 * it, so that a pid the system reused for a new process does not pass for the old holder. Never 0.
 *
 * <p>The start time is the kernel's own, {@code starttime} of {@code /proc/PID/stat} (clock ticks
 * since boot), which every process reads alike. The JDK's {@code ProcessHandle.Info.startInstant}
 * adds it to the boot time each JVM reads once from {@code /proc/stat} (wall clock minus uptime), so
 * a JVM started after the wall clock was stepped (NTP, a VM's clock sync) computes another start
 * time for the same process: a live process would pass for dead to it, for good, and its endpoint
 * slots would be taken from it. Where there is no {@code /proc}, the JDK's start time is used.
 *
 * <p>A process that ended but is not yet reaped by its parent (a zombie) counts as dead.
 *
 * <p>Death is final and remembered; life is re-checked when its answer is older than
 * {@link #RECHECK_NS}, so a hot send path does not read {@code /proc} each time, and by one thread
 * at a time: the others take the process for alive meanwhile. Thread-safe.
 */
final class ProcessLiveness {
    /** How long a "still alive" answer is trusted. */
    static final long RECHECK_NS = 2_000_000;

    private final long self = PROC ? procToken(ProcessHandle.current().pid(), false) : tokenOf(ProcessHandle.current());
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
        if (checked != null && (now - checked < RECHECK_NS || !aliveCheckedAt.replace(token, checked, now))) {
            return true; // fresh, or another thread is reading /proc for it now: alive until that says otherwise
        }
        boolean alive = PROC ? procToken(pid(token), true) == token
                : ProcessHandle.of(pid(token)).map(p -> p.isAlive() && tokenOf(p) == token).orElse(false);
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

    /** The token of process {@code p}; 0 if it is not running (Linux: or a zombie). */
    static long tokenOf(ProcessHandle p) {
        if (PROC) {
            return procToken(p.pid(), true);
        }
        long started = p.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L) & 0x7FFF_FFFFL;
        return (started << 32) | (p.pid() & 0xFFFF_FFFFL);
    }

    /** Whether this host has {@code /proc} to read start times and states from. */
    static final boolean PROC = java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/self/stat"));

    /**
     * The token of process {@code pid} from {@code /proc/PID/stat}: its {@code starttime} (field 22,
     * clock ticks since boot) above the pid; 0 if there is no such process, or if
     * {@code zombieIsDead} and it has ended unreaped (state Z or X).
     */
    static long procToken(long pid, boolean zombieIsDead) {
        String stat;
        try {
            stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(pid), "stat"));
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
        // the command (field 2) is in parentheses and may hold anything: fields are counted after the last ')'
        int end = stat.lastIndexOf(')');
        String[] fields = end < 0 ? new String[0] : stat.substring(end + 1).trim().split(" +");
        if (fields.length < 20) {
            return 0;
        }
        char state = fields[0].isEmpty() ? '?' : fields[0].charAt(0); // field 3
        if (zombieIsDead && (state == 'Z' || state == 'X')) {
            return 0;
        }
        long started;
        try {
            started = Long.parseLong(fields[19]); // field 22
        } catch (NumberFormatException e) {
            return 0;
        }
        return ((started & 0x7FFF_FFFFL) << 32) | (pid & 0xFFFF_FFFFL);
    }
}
