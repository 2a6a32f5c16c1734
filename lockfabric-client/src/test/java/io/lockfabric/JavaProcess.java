package io.lockfabric;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A test's main class run in a JVM of its own on this JVM's class path: its output is drained and
 * kept, and a line it prints that starts with a given prefix can be awaited. {@link #close()} kills
 * it; it ends by itself when this JVM does if its main reads standard input to the end.
 */
final class JavaProcess implements AutoCloseable {
    private final Process process;
    private final StringBuffer output = new StringBuffer();
    private final CompletableFuture<String> marked = new CompletableFuture<>();

    private JavaProcess(Class<?> main, String mark, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-Xshare:auto", "--sun-misc-unsafe-memory-access=allow",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        process = new ProcessBuilder(command).redirectErrorStream(true).start();
        Thread.ofPlatform().daemon().name("java-process-output").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    output.append(line).append('\n');
                    if (mark != null && line.startsWith(mark)) {
                        marked.complete(line.substring(mark.length()).strip());
                    }
                }
            } catch (IOException e) {
                output.append(e).append('\n');
            }
            marked.completeExceptionally(new IllegalStateException(main.getSimpleName() + " ended: " + output));
        });
    }

    /** Starts {@code main} with {@code args}. */
    static JavaProcess start(Class<?> main, String... args) throws IOException {
        return new JavaProcess(main, null, args);
    }

    /** Starts {@link MemoryNodeMain} and waits until it says where it listens. */
    static JavaProcess memoryNode() throws IOException {
        JavaProcess p = new JavaProcess(MemoryNodeMain.class, "LISTENING ");
        p.awaitMark(60);
        return p;
    }

    /** The rest of the first line that started with the mark. */
    String awaitMark(long seconds) {
        try {
            return marked.get(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            throw new IllegalStateException("no mark from the process: " + output, e);
        }
    }

    /** Waits for the process to end; its exit status. */
    int waitFor(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("the process did not end in " + seconds + " s: " + output);
        }
        return process.exitValue();
    }

    String output() {
        return output.toString();
    }

    /** Kills it with SIGKILL (no goodbyes on its connections) and waits for it to end. */
    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
