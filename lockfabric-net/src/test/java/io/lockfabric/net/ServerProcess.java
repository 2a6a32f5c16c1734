package io.lockfabric.net;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A memory node in a separate JVM ({@link MemoryNodeMain}, on this JVM's class path), for tests
 * whose server must not share the clients' process. Its output is drained and kept for failure
 * messages; {@link #close()} kills it (and it exits by itself when this JVM does).
 */
final class ServerProcess implements AutoCloseable {
    private static final long START_TIMEOUT_S = 60;

    private final Process process;
    private final StringBuffer output;
    private final String uri;

    private ServerProcess(Process process, StringBuffer output, String uri) {
        this.process = process;
        this.output = output;
        this.uri = uri;
    }

    /** Starts a server process with {@code capacityBytes} of memory and waits until it listens. */
    static ServerProcess start(long capacityBytes) throws IOException {
        Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(javaBin.toString(), "--sun-misc-unsafe-memory-access=allow",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                MemoryNodeMain.class.getName(), Long.toString(capacityBytes))
                .redirectErrorStream(true).start();
        StringBuffer output = new StringBuffer();
        CompletableFuture<String> listening = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("server-process-output").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    output.append(line).append('\n');
                    if (line.startsWith("LISTENING ")) {
                        listening.complete(line.substring("LISTENING ".length()).strip());
                    }
                }
            } catch (IOException e) {
                output.append(e).append('\n');
            }
            listening.completeExceptionally(new IllegalStateException("the server process ended: " + output));
        });
        try {
            return new ServerProcess(process, output, listening.get(START_TIMEOUT_S, TimeUnit.SECONDS));
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            throw new IllegalStateException("the server process never said where it listens: " + output, e);
        }
    }

    /** Where it listens: {@code tcp://host:port}. */
    String uri() {
        return uri;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** What it printed so far. */
    String output() {
        return output.toString();
    }

    /** Kills it with SIGKILL (no goodbyes to its clients) and waits for it to end. */
    void kill() {
        close();
    }

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
