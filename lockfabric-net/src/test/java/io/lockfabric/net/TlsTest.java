package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.AuthenticationException;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.Fabrics;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.TableSpec;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS between clients and the memory node, with certificates made for the test: a short verb bench
 * over TLS (with the secret too, and mailboxes), client certificates required and given, and the
 * clear errors of a plain client at a TLS server, a TLS client at a plain server, an untrusted
 * server certificate and a missing client certificate.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsTest {
    @TempDir
    static Path dir;
    static TestCertificates.Pem serverCert;
    static TestCertificates.Pem clientCert;
    static TestCertificates.Pem strangerCert;

    @BeforeAll
    static void certificates() throws Exception {
        serverCert = TestCertificates.generate(dir, "server");
        clientCert = TestCertificates.generate(dir, "client");
        strangerCert = TestCertificates.generate(dir, "stranger");
    }

    private static TcpMemoryNode tlsServer(Path clientCa, SharedSecret secret) {
        return TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).secret(secret)
                .tls(TlsConfig.server(serverCert.certificate(), serverCert.key(), clientCa)).start();
    }

    @Test
    void aShortBenchRunsOverTlsWithTheSecretAndMailboxes() throws Exception {
        SharedSecret secret = SharedSecret.ofText("a secret for the tls bench", "test");
        try (TcpMemoryNode server = tlsServer(null, secret);
             TcpFabric fabric = TcpFabric.builder().uri(server.uri()).secret(secret)
                     .tls(TlsConfig.client(serverCert.certificate(), null, null)).build()) {
            assertTrue(server.security().contains("TLS") && server.security().contains("secret"), server.security());
            try (VerbBench bench = new VerbBench(fabric, "tls-bench", 4)) {
                ServerLimitsTest.awaitTrue(() -> bench.ops() >= 1000, "1000 add-and-read cycles over TLS");
                assertTrue(bench.stop() >= 1000);
            }
            Endpoint x = fabric.newEndpoint();
            Endpoint y = fabric.newEndpoint();
            x.mailbox().send(y.id(), 1, 2, 3, 4, 5);
            assertEquals(new Message(x.id(), 1, 2, 3, 4, 5), y.mailbox().await(System.nanoTime()
                    + TimeUnit.SECONDS.toNanos(10)));
        }
    }

    @Test
    void theAddressTurnsTlsOn() {
        try (TcpMemoryNode server = tlsServer(null, null);
             var fabric = Fabrics.open(server.uri() + "?tls-trust=" + serverCert.certificate())) {
            Endpoint e = fabric.newEndpoint();
            e.queuePair(0).write8(e.openTable(new TableSpec("t", "t", 1, 64)).at(0), 7);
        }
    }

    @Test
    void clientCertificatesWhenTheServerRequiresThem() throws InterruptedException {
        try (TcpMemoryNode server = tlsServer(clientCert.certificate(), null)) {
            try (TcpFabric with = TcpFabric.builder().uri(server.uri()).tls(TlsConfig.client(serverCert.certificate(),
                    clientCert.certificate(), clientCert.key())).build()) {
                with.newEndpoint().openTable(new TableSpec("t", "t", 1, 64));
            }
            try (TcpFabric without = TcpFabric.builder().uri(server.uri())
                    .tls(TlsConfig.client(serverCert.certificate(), null, null)).build()) {
                FabricException e = assertThrows(FabricException.class, without::newEndpoint);
                assertTrue(e.getMessage().contains("TLS") || e.getMessage().contains("certificate"), e.getMessage());
            }
            try (TcpFabric stranger = TcpFabric.builder().uri(server.uri()).tls(TlsConfig.client(
                    serverCert.certificate(), strangerCert.certificate(), strangerCert.key())).build()) {
                FabricException e = assertThrows(FabricException.class, stranger::newEndpoint);
                assertTrue(e.getMessage().contains("TLS") || e.getMessage().contains("certificate"), e.getMessage());
            }
            ServerLimitsTest.awaitTrue(() -> server.refusals("tls") >= 1, "the server logged the refusals");
        }
    }

    @Test
    void aServerCertificateTheClientDoesNotTrustIsRefused() {
        try (TcpMemoryNode server = tlsServer(null, null);
             TcpFabric c = TcpFabric.builder().uri(server.uri())
                     .tls(TlsConfig.client(strangerCert.certificate(), null, null)).build()) {
            AuthenticationException e = assertThrows(AuthenticationException.class, c::newEndpoint);
            assertTrue(e.getMessage().startsWith("TLS with the memory node"), e.getMessage());
        }
    }

    @Test
    void aPlainClientAtATlsServerGetsAClearErrorQuickly() {
        try (TcpMemoryNode server = tlsServer(null, null);
             TcpFabric plain = TcpFabric.builder().uri(server.uri()).handshakeTimeoutMs(1500).build()) {
            long start = System.nanoTime();
            FabricException e = assertThrows(FabricException.class, plain::newEndpoint);
            assertTrue(e.getMessage().contains("TLS"), e.getMessage());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "within the handshake timeout");
        }
    }

    @Test
    void aTlsClientAtAPlainServerGetsAClearError() {
        try (TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).start();
             TcpFabric c = TcpFabric.builder().uri(server.uri()).handshakeTimeoutMs(1500)
                     .tls(TlsConfig.client(serverCert.certificate(), null, null)).build()) {
            FabricException e = assertThrows(FabricException.class, c::newEndpoint);
            assertTrue(e.getMessage().contains("TLS") || e.getMessage().contains("closed"), e.getMessage());
        }
    }

    @Test
    void missingFilesAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TlsConfig.server(dir.resolve("nope.pem"), serverCert.key(), null));
        assertTrue(e.getMessage().contains("nope.pem"), e.getMessage());
    }
}
