package io.lockfabric.examples;

import io.lockfabric.net.TcpMemoryNode;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link OrdersExample} run as an application runs it: its {@code main} in a JVM of its own, on the
 * in-process fabric and against a tcp memory node in this JVM, exiting 0 with its checks passed.
 */
class OrdersExampleTest {
    /** What one run of the example printed and how it ended. */
    private record Outcome(int status, String output) {
    }

    private static Outcome runMain(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                // the tcp fabric's Netty, as the launcher allows it
                "--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED",
                OrdersExample.class.getName()));
        command.addAll(List.of(args));
        Path log = Files.createTempFile("orders-example", ".log");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new AssertionError("OrdersExample did not end within 90 s:\n" + Files.readString(log));
            }
            return new Outcome(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static void assertRanOk(Outcome o, String address) {
        System.out.println(o.output());
        assertEquals(0, o.status(), "exit status; output:\n" + o.output());
        assertTrue(o.output().contains(OrdersExample.OK_LINE + address), o.output());
        long expected = 2L * OrdersExample.THREADS_OF_EACH_KIND * OrdersExample.INCREMENTS;
        assertTrue(o.output().contains("stock counter: " + expected + " increments"), o.output());
        assertTrue(o.output().contains("a stale token was refused"), o.output());
        assertTrue(o.output().contains("LockSpaceStats["), o.output());
    }

    @Test
    void runsOnTheInProcessFabricByDefault() throws Exception {
        assertRanOk(runMain(), "local");
    }

    @Test
    void runsAgainstATcpMemoryNode() throws Exception {
        java.util.logging.Logger.getLogger(TcpMemoryNode.class.getName()).setLevel(java.util.logging.Level.WARNING);
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start()) {
            assertRanOk(runMain(server.uri()), server.uri());
        }
    }

    @Test
    void anUnreachableServerExitsNonZero() throws Exception {
        Outcome o = runMain("tcp://127.0.0.1:1");
        assertTrue(o.status() != 0, "exit status " + o.status() + "; output:\n" + o.output());
        assertTrue(!o.output().contains(OrdersExample.OK_LINE), o.output());
    }
}
