package io.lockfabric.compare;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The comparison's server harness for code outside this package (SmallBank on Redis): a
 * {@code redis-server} from the PATH, a tcp memory node ({@link MemoryNodeMain}) and any Java main
 * class, each in a process of its own on loopback, stopped by {@code close()} (SIGTERM, then SIGKILL),
 * their Java children also when this JVM dies (their standard input closes). A server that is missing
 * or does not start is a {@link PeerUnavailableException} naming it: never a silent skip.
 */
public final class Servers {
    private Servers() {
    }

    /** A process this harness started. */
    public static final class Running implements AutoCloseable {
        private final ChildProcess process;
        private final String address;
        private final String version;

        private Running(ChildProcess process, String address, String version) {
            this.process = process;
            this.address = address;
            this.version = version;
        }

        /** Where it listens ({@code redis://127.0.0.1:PORT}, {@code tcp://127.0.0.1:PORT}), or null. */
        public String address() {
            return address;
        }

        /** What it is, for reports ({@code redis-server 7.0.15}). */
        public String version() {
            return version;
        }

        /** The rest of the first line it printed starting with the mark it was started with. */
        public String awaitMark(long seconds) {
            return process.awaitMark(seconds);
        }

        /** Waits at most {@code seconds} for it to end by itself; whether it ended. */
        public boolean awaitExit(long seconds) {
            ProcessHandle.of(process.pid()).ifPresent(h -> {
                try {
                    h.onExit().get(seconds, TimeUnit.SECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    // still running
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            return !process.isAlive();
        }

        /** The last of what it printed. */
        public String output() {
            return process.output();
        }

        /** Whether it still runs. */
        public boolean isAlive() {
            return process.isAlive();
        }

        @Override
        public void close() {
            process.close();
        }

        @Override
        public String toString() {
            return process + (address == null ? "" : " at " + address);
        }
    }

    /**
     * Starts {@code redis-server} from the PATH on a free loopback port, memory only ({@code --save ''
     * --appendonly no}), and waits until it accepts connections.
     *
     * @throws PeerUnavailableException if it is not installed or does not start
     */
    public static Running redis() {
        Path binary = ChildProcess.onPath("redis-server");
        if (binary == null) {
            throw new PeerUnavailableException("redis-server is not on the PATH (Debian/Ubuntu: apt-get install redis-server)");
        }
        int port = ChildProcess.freePort();
        ChildProcess p = ChildProcess.start("redis-server", List.of(binary.toString(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--daemonize", "no",
                "--loglevel", "warning"), null);
        try {
            p.awaitPort(port, 30);
        } catch (RuntimeException e) {
            p.close();
            throw e;
        }
        return new Running(p, "redis://127.0.0.1:" + port, "redis-server " + redisVersion(binary));
    }

    /** Starts a tcp memory node ({@code lockfabric serve}) of {@code memoryBytes} in a JVM of its own on loopback. */
    public static Running memoryNode(long memoryBytes) {
        ChildProcess p = ChildProcess.java("memory node", List.of("-Xmx2g", "-XX:+UseParallelGC",
                        "--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED"),
                MemoryNodeMain.class.getName(), List.of(Long.toString(memoryBytes)), "LISTENING ");
        try {
            return new Running(p, p.awaitMark(60), "lockfabric serve");
        } catch (RuntimeException e) {
            p.close();
            throw e;
        }
    }

    /**
     * Starts {@code mainClass} in a JVM of its own on this JVM's class path; {@code mark} (or null) is
     * the start of the line {@link Running#awaitMark} waits for.
     */
    public static Running java(String name, List<String> jvmOptions, String mainClass, List<String> args, String mark) {
        return new Running(ChildProcess.java(name, jvmOptions, mainClass, args, mark), null, name);
    }

    /**
     * For a main this harness starts: exits this JVM (status 0) once its standard input ends, that is
     * once the process that started it is gone.
     */
    public static void exitWhenParentGone() {
        StdinWatch.exitAtEndOfInput();
    }

    private static String redisVersion(Path binary) {
        try {
            Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            p.waitFor();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("v=(\\S+)").matcher(out);
            return m.find() ? m.group(1) : "?";
        } catch (java.io.IOException e) {
            return "?";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "?";
        }
    }
}
