package io.lockfabric.shm;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Process tokens: this process is alive, a dead or never-seen one is not, nor a zombie. */
class ProcessLivenessTest {
    @Test
    void thisProcessLivesAndDeadOnesDoNot() throws Exception {
        ProcessLiveness liveness = new ProcessLiveness();
        assertTrue(liveness.isAlive(liveness.self()));
        assertFalse(liveness.isAlive(0));
        Process p = new ProcessBuilder("sleep", "30").start();
        long token = ProcessLiveness.tokenOf(p.toHandle());
        assertTrue(liveness.isAlive(token), "a running process");
        p.destroyForcibly().waitFor();
        Thread.sleep(5); // past the cached answer
        assertFalse(new ProcessLiveness().isAlive(token), "a killed process");
        assertFalse(liveness.isAlive(token ^ (1L << 40)), "a pid with another start time is another process");
    }

    /**
     * On Linux the token is the kernel's start time of the process ({@code /proc/PID/stat}), read
     * past the command, which may hold spaces and parentheses: the same in every process whatever
     * the wall clock did between their starts (the JDK's start instant adds a boot time each JVM
     * reads once from the wall clock).
     */
    @Test
    void theTokenIsTheKernelsStartTimeWhateverTheCommandIsCalled(@TempDir Path dir) throws Exception {
        if (!ProcessLiveness.PROC) {
            return; // no /proc: the JDK's start time is used
        }
        Path odd = dir.resolve("a) b (c");
        Files.copy(Path.of("/bin/sleep"), odd);
        odd.toFile().setExecutable(true);
        Process p = new ProcessBuilder(odd.toString(), "30").start();
        try {
            long token = ProcessLiveness.tokenOf(p.toHandle());
            assertEquals(p.pid(), ProcessLiveness.pid(token));
            long ticks = token >>> 32;
            long uptimeTicks = (long) (Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]) * 100);
            assertTrue(ticks > 0 && ticks <= uptimeTicks + 100, "a start time in ticks since boot: " + ticks);
            assertTrue(new ProcessLiveness().isAlive(token), "a running process");
            assertEquals(token, ProcessLiveness.procToken(p.pid(), false), "read alike every time");
        } finally {
            p.destroyForcibly().waitFor();
        }
        Thread.sleep(5);
        assertFalse(new ProcessLiveness().isAlive(ProcessLiveness.procToken(p.pid(), false)), "gone");
    }

    @Test
    void aZombieIsDead() throws Exception {
        if (!Files.isDirectory(Path.of("/proc/self"))) {
            return; // no /proc: nothing to read the state from
        }
        // the child outlives the shell's exec by a second: a child that ended before it could be reaped
        // by the shell itself (dash reaps finished jobs), and never become a zombie (CI saw that once)
        Process shell = new ProcessBuilder("sh", "-c", "sleep 1 & echo $!; exec sleep 20").start();
        try {
            long pid = Long.parseLong(new BufferedReader(new InputStreamReader(shell.getInputStream())).readLine().trim());
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!ProcessLiveness.isZombie(pid) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(ProcessLiveness.isZombie(pid), "the unreaped child became a zombie");
            long token = ProcessLiveness.procToken(pid, false);
            assertNotEquals(0, token, "the zombie is still in /proc");
            assertFalse(new ProcessLiveness().isAlive(token), "a zombie holds no locks");
        } finally {
            shell.destroyForcibly().waitFor();
        }
    }
}
