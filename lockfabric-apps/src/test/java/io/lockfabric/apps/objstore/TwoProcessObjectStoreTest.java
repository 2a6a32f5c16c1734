package io.lockfabric.apps.objstore;

import io.lockfabric.LockFabric;
import io.lockfabric.net.TcpMemoryNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The object store on tcp with two client processes: two JVMs ({@link ObjectStoreProcessMain})
 * open one store on a memory node in this JVM and get and set its three hot objects at once; every
 * get in either process is whole, each process reads values the other wrote, and the objects read
 * back from this JVM afterwards are whole.
 */
@Tag("stress")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TwoProcessObjectStoreTest {
    private static final Pattern FOREIGN = Pattern.compile("(\\d+) gets read the other process's value");

    private static Process start(String uri, String protocol, int process) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-Xshare:auto", "--sun-misc-unsafe-memory-access=allow",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                ObjectStoreProcessMain.class.getName(), uri, "shared-objs", protocol, Integer.toString(process), "2", "100"));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    @Test
    void twoProcessesShareOneStoreAndNeverReadATornValue() throws Exception {
        java.util.logging.Logger.getLogger(TcpMemoryNode.class.getName()).setLevel(java.util.logging.Level.WARNING);
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start()) {
            List<Process> processes = List.of(start(server.uri(), "declock-tf", 1), start(server.uri(), "declock-tf", 2));
            StringBuilder outputs = new StringBuilder();
            long foreign = 0;
            try {
                for (Process p : processes) {
                    boolean ended = p.waitFor(90, TimeUnit.SECONDS);
                    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                    outputs.append(out).append("---\n");
                    assertTrue(ended, "a process did not end: " + outputs);
                    assertEquals(0, p.exitValue(), outputs.toString());
                    Matcher m = FOREIGN.matcher(out);
                    assertTrue(m.find(), out);
                    foreign += Long.parseLong(m.group(1));
                }
            } finally {
                processes.forEach(Process::destroyForcibly);
            }
            System.out.print(outputs);
            assertTrue(foreign > 0, "the processes shared the objects: " + outputs);
            try (LockFabric lf = LockFabric.open(server.uri())) {
                ObjectStore store = ObjectStore.open(lf, "shared-objs", ObjectStoreOptions.DEFAULTS
                        .withProtocol("declock-tf").withObjects(16).withMaxValueBytes(4000));
                for (long k = 0; k < 3; k++) {
                    byte[] v = store.get(k);
                    assertTrue(v != null, "key " + k + " was set");
                    assertNull(ObjectStoreStress.verify(v), "key " + k);
                }
            }
        }
    }
}
