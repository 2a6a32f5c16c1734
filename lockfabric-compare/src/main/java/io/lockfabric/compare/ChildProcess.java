package io.lockfabric.compare;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A server the comparison started in a process of its own: its output is drained and the last of
 * it kept (to say why it failed), a line it prints starting with a mark can be awaited, and so can
 * a loopback port it listens on. {@link #close()} stops it (SIGTERM, then SIGKILL after a few
 * seconds), its descendants too. Java children started by {@link #java} also end by themselves when
 * their standard input closes, so they die with this process even when it is killed.
 */
final class ChildProcess implements AutoCloseable {
    private static final int KEPT_OUTPUT_CHARS = 8_000;

    private final String name;
    private final Process process;
    private final StringBuilder output = new StringBuilder();
    /** The first of its output (where a server says why it did not start), once the rest is cut. */
    private final StringBuilder head = new StringBuilder();
    private final CompletableFuture<String> marked = new CompletableFuture<>();

    private ChildProcess(String name, List<String> command, String mark) throws IOException {
        this.name = name;
        this.process = new ProcessBuilder(command).redirectErrorStream(true).start();
        Thread.ofPlatform().daemon().name("compare-" + name + "-output").start(() -> drain(mark));
    }

    private void drain(String mark) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                synchronized (output) {
                    output.append(line).append('\n');
                    if (head.length() < KEPT_OUTPUT_CHARS / 2) {
                        head.append(line, 0, Math.min(line.length(), KEPT_OUTPUT_CHARS / 2 - head.length())).append('\n');
                    }
                    if (output.length() > 2 * KEPT_OUTPUT_CHARS) {
                        output.delete(0, output.length() - KEPT_OUTPUT_CHARS);
                    }
                }
                if (mark != null && line.startsWith(mark)) {
                    marked.complete(line.substring(mark.length()).strip());
                }
            }
        } catch (IOException e) {
            synchronized (output) {
                output.append(e).append('\n');
            }
        }
        marked.completeExceptionally(new IllegalStateException(name + " ended before it was ready"));
    }

    /** Starts {@code command}; {@code mark} (or null) is the start of the line {@link #awaitMark} waits for. */
    static ChildProcess start(String name, List<String> command, String mark) {
        try {
            return new ChildProcess(name, command, mark);
        } catch (IOException e) {
            throw new PeerUnavailableException("cannot start " + name + " (" + String.join(" ", command) + "): " + e.getMessage(), e);
        }
    }

    /**
     * Starts {@code mainClass} in a JVM of its own, on this JVM's class path and with its java,
     * with {@code jvmOptions} before the class and {@code args} after it.
     */
    static ChildProcess java(String name, List<String> jvmOptions, String mainClass, List<String> args, String mark) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xshare:auto");
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(args);
        return start(name, command, mark);
    }

    /** The rest of the first line that started with the mark, waiting at most {@code seconds}. */
    String awaitMark(long seconds) {
        try {
            return marked.get(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PeerUnavailableException(name + ": interrupted while waiting for it to start", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new PeerUnavailableException(name + " did not start in " + seconds + " s; its output:\n" + output(), e);
        }
    }

    /** Waits at most {@code seconds} until 127.0.0.1:{@code port} accepts a connection. */
    void awaitPort(int port, long seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException e) {
                if (!process.isAlive()) {
                    throw new PeerUnavailableException(name + " ended before it listened on port " + port
                            + " (exit status " + process.exitValue() + "); its output:\n" + output());
                }
                if (System.nanoTime() > deadline) {
                    throw new PeerUnavailableException(name + " did not listen on 127.0.0.1:" + port + " in " + seconds
                            + " s; its output:\n" + output());
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new PeerUnavailableException(name + ": interrupted while waiting for it to start", ie);
                }
            }
        }
    }

    /** The last of what it printed. */
    String output() {
        synchronized (output) {
            if (head.length() == output.length() || output.indexOf(head.toString()) == 0) {
                return output.length() > KEPT_OUTPUT_CHARS ? output.substring(output.length() - KEPT_OUTPUT_CHARS) : output.toString();
            }
            return head + "...\n" + output.substring(Math.max(0, output.length() - KEPT_OUTPUT_CHARS));
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    /** Stops it and its descendants: SIGTERM, and SIGKILL to whatever is left after 5 s. */
    @Override
    public void close() {
        List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
        all.add(process.toHandle());
        try (OutputStream in = process.getOutputStream()) {
            in.flush(); // closing standard input ends the Java children by themselves
        } catch (IOException ignored) {
            // it is gone already
        }
        all.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (ProcessHandle h : all) {
            try {
                h.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException e) {
                // killed below
            }
        }
        all.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }

    /** A free TCP port on loopback (bound and let go: a server started right after takes it). */
    static int freePort() {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on loopback", e);
        }
    }

    /** The executable {@code program} on the PATH, or null. */
    static Path onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, program);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }
}
