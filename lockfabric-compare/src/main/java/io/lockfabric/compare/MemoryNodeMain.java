package io.lockfabric.compare;

import io.lockfabric.net.TcpMemoryNode;

/**
 * The tcp fabric's memory node as {@code lockfabric compare} runs it, in a process of its own: what
 * {@code lockfabric serve --port 0} runs (a {@link TcpMemoryNode} on loopback with the registered
 * protocols' services), printing {@code LISTENING tcp://127.0.0.1:PORT} when it listens. It serves
 * until its standard input closes (the comparison is gone) or it is stopped.
 *
 * <p>Arguments: the node's memory in bytes.
 */
public final class MemoryNodeMain {
    private MemoryNodeMain() {
    }

    /** Runs the node; {@code args[0]} is its memory in bytes, {@code args[1]} (optional) its spin in ns. */
    public static void main(String[] args) {
        java.util.logging.Logger.getLogger(TcpMemoryNode.class.getName()).setLevel(java.util.logging.Level.WARNING);
        TcpMemoryNode.Builder b = TcpMemoryNode.builder().port(0).bind("127.0.0.1").capacityBytes(Long.parseLong(args[0]));
        if (args.length > 1) {
            b.spinNs(Long.parseLong(args[1]));
        }
        TcpMemoryNode server = b.start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close));
        System.out.println("LISTENING " + server.uri());
        System.out.flush();
        try {
            while (System.in.read() >= 0) {
                // nothing to read but the end
            }
        } catch (java.io.IOException ignored) {
            // the pipe broke: the comparison is gone as well
        }
        System.exit(0);
    }
}
