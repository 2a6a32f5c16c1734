package io.lockfabric.net;

import io.lockfabric.check.LockStress;
import io.lockfabric.fabric.Fabric;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lock protocols over a memory node that requires TLS and a shared secret: the checker finds no
 * overlap and every cycle is recorded, for a protocol of plain verbs (cas), one with client-to-client
 * messages over the secret-authenticated mailboxes (declock-tf) and one with an rpc service and
 * messages (shiftlock).
 */
@Tag("stress")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TlsLockStressTest {
    @TempDir
    static Path dir;
    static TestCertificates.Pem serverCert;

    @BeforeAll
    static void certificate() throws Exception {
        serverCert = TestCertificates.generate(dir, "server");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"cas", "declock-tf", "shiftlock"})
    void aProtocolKeepsMutualExclusionOverTls(String name) {
        SharedSecret secret = SharedSecret.ofText("the secret of the tls stress test", "test");
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(64L << 20).secret(secret)
                .tls(TlsConfig.server(serverCert.certificate(), serverCert.key(), null)).start();
        try (Fabric fabric = TcpFabric.builder().embeddedServer(server).secret(secret)
                .tls(TlsConfig.client(serverCert.certificate(), null, null)).build()) {
            assertTrue(server.security().contains("TLS"), server.security());
            LockProtocol p = LockProtocols.byName(name);
            int ops = 150;
            var result = LockStress.run(fabric, p, LockStress.Config.of(8, 16, 0.99, 0.5, ops)
                    .withOptions(LockOptions.DEFAULTS.on(TcpFabric.TIMING)));
            assertTrue(result.violations().isEmpty(), result.summary());
            assertEquals(8L * ops, result.holds().size(), "every cycle recorded once");
        }
    }
}
