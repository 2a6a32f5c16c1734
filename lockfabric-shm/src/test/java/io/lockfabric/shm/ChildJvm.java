package io.lockfabric.shm;

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
 * {@link ShmChild} in a JVM of its own on this JVM's class path: its output is kept, and the rest of
 * the first line that starts with a given mark can be awaited. {@link #close()} kills it with SIGKILL.
 */
final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final StringBuffer output = new StringBuffer();
    private final CompletableFuture<String> marked = new CompletableFuture<>();

    ChildJvm(String mark, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-Xmx128m", "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("java.class.path"), ShmChild.class.getName()));
        command.addAll(List.of(args));
        process = new ProcessBuilder(command).redirectErrorStream(true).start();
        Thread.ofPlatform().daemon().name("child-jvm-output").start(() -> {
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
            marked.completeExceptionally(new IllegalStateException("the child ended: " + output));
        });
    }

    String awaitMark(long seconds) {
        try {
            return marked.get(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            throw new IllegalStateException("no mark from the child: " + output, e);
        }
    }

    /** The rest of the first output line that starts with {@code prefix}, waited for up to {@code seconds}. */
    String awaitLine(String prefix, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            java.util.Optional<String> line = output().lines().filter(l -> l.startsWith(prefix)).findFirst();
            if (line.isPresent()) {
                return line.get().substring(prefix.length()).strip();
            }
            if (System.nanoTime() > deadline || !process.isAlive()) {
                throw new IllegalStateException("no line '" + prefix + "' from the child: " + output);
            }
            Thread.sleep(10);
        }
    }

    int waitFor(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("the child did not end in " + seconds + " s: " + output);
        }
        return process.exitValue();
    }

    long pid() {
        return process.pid();
    }

    String output() {
        return output.toString();
    }

    /** SIGKILL, and waits for the end. */
    @Override
    public void close() {
        kill();
    }

    /** SIGKILL, and waits for the end. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
