package io.lockfabric.shm;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
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

    @Test
    void aZombieIsDead() throws Exception {
        if (!Files.isDirectory(Path.of("/proc/self"))) {
            return; // no /proc: nothing to read the state from
        }
        Process shell = new ProcessBuilder("sh", "-c", "sleep 0 & echo $!; exec sleep 20").start();
        try {
            long pid = Long.parseLong(new BufferedReader(new InputStreamReader(shell.getInputStream())).readLine().trim());
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!ProcessLiveness.isZombie(pid) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(ProcessLiveness.isZombie(pid), "the unreaped child became a zombie");
            long token = ProcessLiveness.tokenOf(ProcessHandle.of(pid).orElseThrow());
            assertFalse(new ProcessLiveness().isAlive(token), "a zombie holds no locks");
        } finally {
            shell.destroyForcibly().waitFor();
        }
    }
}
