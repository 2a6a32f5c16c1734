package io.lockfabric.net;

import io.lockfabric.fabric.ServiceResolver;

import java.io.IOException;

/**
 * A memory-node process for tests: starts a {@link TcpMemoryNode} on a free loopback port with
 * {@code args[0]} bytes of memory, builds the services of registered protocols and of the verb
 * contract suite's tables ({@link VerbContractServices}), prints {@code LISTENING tcp://host:port}, and serves until its
 * standard input closes (the test that started it ended, however it ended) or it is killed.
 */
public final class MemoryNodeMain {
    private MemoryNodeMain() {
    }

    public static void main(String[] args) throws IOException {
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(Long.parseLong(args[0]))
                .serviceResolver(ServiceResolver.installed().orElse(new VerbContractServices())).start();
        System.out.println("LISTENING " + server.uri());
        System.out.flush();
        // the parent holds the other end of stdin: EOF means it is gone, and so should this be
        while (System.in.read() >= 0) {
            // nothing to read but the end
        }
        server.close();
    }
}
