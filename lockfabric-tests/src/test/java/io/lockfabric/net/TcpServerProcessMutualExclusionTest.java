package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.Fabric;

import java.io.IOException;
import java.io.UncheckedIOException;

import org.junit.jupiter.api.AfterAll;

/**
 * The mutual-exclusion contract on the tcp fabric with the memory node in a separate process (one
 * for the class, started on first use): the clients' JVM holds no server, so every table, verb,
 * rpc service (built by the server from the protocol's name) and directory lookup crosses a
 * process boundary. Loads and options are those of {@link TcpMutualExclusionTest}. Tables do not
 * collide across tests: each stress run names its tables at random.
 */
class TcpServerProcessMutualExclusionTest extends TcpMutualExclusionTest {
    private ServerProcess server;

    @Override
    protected Fabric newFabric() {
        if (server == null) {
            try {
                server = ServerProcess.start(256L << 20);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            assertNotEquals(ProcessHandle.current().pid(), server.pid());
        }
        assertTrue(server.isAlive(), "the server process died: " + server.output());
        return TcpFabric.connect(server.uri());
    }

    @AfterAll
    void stopServer() {
        if (server != null) {
            server.close();
        }
    }
}
