package io.lockfabric;

import io.lockfabric.net.TcpMemoryNode;

import java.io.IOException;

/**
 * A memory-node process for the client API's tests: starts a {@link TcpMemoryNode} on a free
 * loopback port with the registered protocols' services, prints {@code LISTENING tcp://host:port},
 * and serves until its standard input closes (the test that started it is gone) or it is killed.
 */
public final class MemoryNodeMain {
    private MemoryNodeMain() {
    }

    public static void main(String[] args) throws IOException {
        java.util.logging.Logger.getLogger(TcpMemoryNode.class.getName()).setLevel(java.util.logging.Level.WARNING);
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).start();
        System.out.println("LISTENING " + server.uri());
        System.out.flush();
        while (System.in.read() >= 0) {
            // nothing to read but the end
        }
        server.close();
    }
}
