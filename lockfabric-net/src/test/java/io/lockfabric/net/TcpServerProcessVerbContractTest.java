package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.VerbContractTest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;

/**
 * The verb contract on the tcp fabric with the memory node in a separate process, one for the
 * class: each test's fabric gets tables of its own there through a fresh table namespace, and
 * the suite's rpc services are rebuilt by the server process from their table names
 * ({@link VerbContractServices}).
 */
class TcpServerProcessVerbContractTest extends VerbContractTest {
    private static final AtomicInteger FABRICS = new AtomicInteger();
    private static ServerProcess server;

    @Override
    protected Fabric newFabric() {
        synchronized (FABRICS) {
            if (server == null) {
                try {
                    server = ServerProcess.start(256L << 20);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        assertTrue(server.isAlive(), "the server process died: " + server.output());
        return TcpFabric.builder().uri(server.uri()).tableNamespace("test-" + FABRICS.incrementAndGet()).build();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}
