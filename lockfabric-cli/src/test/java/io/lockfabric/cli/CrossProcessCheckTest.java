package io.lockfabric.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mutual exclusion checked across processes: a {@code lockfabric serve} process and three bench
 * processes on one shared table, each writing its history to one directory; the last to finish
 * checks all three together, and {@code lockfabric check} on the directory says the same. A
 * correct protocol passes; a lock that skips its CAS is caught, though each process's own history
 * (one client each) is clean.
 */
@Tag("stress")
class CrossProcessCheckTest {
    private static final Pattern LISTENING = Pattern.compile("listening on (tcp://\\S+)");

    /** A JVM on this test's class path, its output (stdout and stderr) kept. */
    private record Child(Process process, StringBuffer output, CompletableFuture<Void> drained) {
        static Child start(Class<?> main, String... args) throws IOException {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:TieredStopAtLevel=1", "-Xshare:auto", "--sun-misc-unsafe-memory-access=allow",
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), main.getName()));
            command.addAll(List.of(args));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            StringBuffer out = new StringBuffer();
            CompletableFuture<Void> drained = new CompletableFuture<>();
            Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                        out.append(line).append('\n');
                    }
                } catch (IOException e) {
                    out.append(e).append('\n');
                }
                drained.complete(null);
            });
            return new Child(p, out, drained);
        }

        int waitFor() throws Exception {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("a child did not end: " + output);
            }
            drained.get(10, TimeUnit.SECONDS);
            return process.exitValue();
        }
    }

    private static String serve(Child server) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && server.process().isAlive()) {
            Matcher m = LISTENING.matcher(server.output());
            if (m.find()) {
                return m.group(1);
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the server never said where it listens: " + server.output());
    }

    /** Starts three children at once and waits for them; their exit statuses and outputs. */
    private static List<Child> three(java.util.function.IntFunction<String[]> argsOf, Class<?> main) throws Exception {
        List<Child> children = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            children.add(Child.start(main, argsOf.apply(i)));
        }
        for (Child c : children) {
            c.waitFor();
        }
        return children;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void threeProcessesPassACorrectLockAndCatchABrokenOne(@TempDir Path tmp) throws Exception {
        Child server = Child.start(Main.class, "serve", "--port", "0", "--memory", "64m");
        try {
            String uri = serve(server);

            Path ok = tmp.resolve("ok");
            List<Child> correct = three(i -> new String[] {"bench", "--fabric", uri, "--protocols", "cas-rw",
                    "--clients", "2", "--locks", "4", "--read-ratio", "0.5", "--duration", "1s", "--warmup", "0s",
                    "--seed", Integer.toString(i), "--shared-table", "ok", "--check", "--history-dir", ok.toString(),
                    "--processes", "3", "--format", "csv"}, Main.class);
            List<String> checkedBy = new ArrayList<>();
            for (Child c : correct) {
                assertEquals(Main.EXIT_OK, c.process().exitValue(), c.output().toString());
                if (c.output().toString().contains("checking them together")) {
                    checkedBy.add(c.output().toString());
                }
            }
            assertEquals(1, checkedBy.size(), "exactly one process checks the set: " + correct);
            assertTrue(checkedBy.getFirst().contains("3 process(es) on 1 clock(s)")
                    && checkedBy.getFirst().contains("check: ok"), checkedBy.getFirst());
            MainTest.Outcome again = MainTest.run("check", ok.toString());
            assertEquals(Main.EXIT_OK, again.status(), again.out() + again.err());
            assertTrue(again.out().contains("table bench-cas-rw-ok: cas-rw, point, 3 process(es) on 1 clock(s)"),
                    again.out());

            Path broken = tmp.resolve("broken");
            List<Child> skipping = three(i -> new String[] {uri, "broken", Integer.toString(i), broken.toString(), "3"},
                    BrokenBenchMain.class);
            int caught = 0;
            for (Child c : skipping) {
                String out = c.output().toString();
                if (out.contains("checking them together")) {
                    assertEquals(Main.EXIT_VIOLATIONS, c.process().exitValue(), out);
                    caught++;
                } else {
                    assertEquals(Main.EXIT_OK, c.process().exitValue(), "its own history is clean: " + out);
                }
            }
            assertEquals(1, caught, "the last process catches it: " + skipping);
            MainTest.Outcome merged = MainTest.run("check", broken.toString());
            assertEquals(Main.EXIT_VIOLATIONS, merged.status(), merged.out() + merged.err());
            String overlap = merged.out().lines().filter(l -> l.startsWith("violation: table bench-skipping-broken: "
                    + "conflicting grants overlap")).findFirst().orElseThrow(() -> new AssertionError(merged.out()));
            Matcher files = Pattern.compile("(broken-\\d+\\.lfh)").matcher(overlap);
            assertTrue(files.find(), overlap);
            String first = files.group(1);
            assertTrue(files.find() && !files.group(1).equals(first), "between two processes: " + overlap);
            for (Path f : CheckCommand.historyFiles(broken)) {
                MainTest.Outcome alone = MainTest.run("check", f.toString());
                assertEquals(Main.EXIT_OK, alone.status(), "one process alone is clean: " + alone.out());
            }
        } finally {
            server.process().destroyForcibly();
        }
    }
}
