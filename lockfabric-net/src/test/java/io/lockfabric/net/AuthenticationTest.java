package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.AuthenticationException;
import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Message;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.net.wire.ErrorCode;
import io.lockfabric.net.wire.Frame;
import io.lockfabric.net.wire.HandshakeLayout;

import java.io.DataInputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared-secret handshake: a client with the server's secret gets in and its endpoints message
 * each other; a wrong secret, no secret, a server without the client's secret, another wire version
 * and an unauthenticated sender at a mailbox are all refused with a clear error, and cost the server
 * nothing it keeps.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AuthenticationTest {
    private static final SharedSecret SECRET = SharedSecret.ofText("correct horse battery staple 42", "test");
    private static final SharedSecret WRONG = SharedSecret.ofText("incorrect horse battery staple 42", "test");

    private static TcpMemoryNode server(SharedSecret secret) {
        return TcpMemoryNode.builder().port(0).capacityBytes(16L << 20).secret(secret).start();
    }

    @Test
    void theRightSecretLetsAClientInAndItsEndpointsMessageEachOther() {
        try (TcpMemoryNode server = server(SECRET);
             TcpFabric a = TcpFabric.builder().uri(server.uri()).secret(SECRET).build();
             TcpFabric b = TcpFabric.builder().uri(server.uri()).secret(SECRET).build()) {
            Endpoint x = a.newEndpoint();
            Endpoint y = b.newEndpoint();
            var t = x.openTable(new TableSpec("t", "t", 1, 64));
            x.queuePair(0).write8(t.at(0), 42);
            assertEquals(42, y.queuePair(0).read8(y.openTable(new TableSpec("t", "t", 1, 64)).at(0)));
            x.mailbox().send(y.id(), 1, 2, 3, 4, 5);
            assertEquals(new Message(x.id(), 1, 2, 3, 4, 5), y.mailbox().await(System.nanoTime()
                    + TimeUnit.SECONDS.toNanos(10)));
            assertTrue(server.security().contains("shared secret"), server.security());
        }
    }

    @Test
    void aWrongSecretIsRefusedOnBothSidesAndCostsTheServerNothing() throws Exception {
        try (TcpMemoryNode server = server(SECRET);
             TcpFabric wrong = TcpFabric.builder().uri(server.uri()).secret(WRONG).build()) {
            AuthenticationException e = assertThrows(AuthenticationException.class, wrong::newEndpoint);
            assertTrue(e.getMessage().contains("wrong shared secret"), e.getMessage());
            assertEquals(1, server.refusals("secret"));
            for (int i = 0; i < 200; i++) {
                try (Socket s = new Socket("127.0.0.1", server.port())) {
                    Frame answer = RawHandshake.open(s, WRONG, TcpMemoryNode.HANDSHAKE_CONTEXT);
                    assertEquals(ErrorCode.AUTH_FAILED, assertInstanceOf(Frame.ErrorReply.class, answer).code());
                    assertEquals(-1, s.getInputStream().read(), "then the server closes the connection");
                }
            }
            assertEquals(201, server.refusals("secret"));
            ServerLimitsTest.awaitTrue(() -> server.openConnections() == 0, "no connection is left open");
            assertTrue(server.liveEndpoints().isEmpty());
            try (TcpFabric right = TcpFabric.builder().uri(server.uri()).secret(SECRET).build()) {
                right.newEndpoint();
            }
        }
    }

    @Test
    void noSecretAtAServerThatRequiresOneIsRefused() {
        try (TcpMemoryNode server = server(SECRET); TcpFabric none = TcpFabric.connect(server.uri())) {
            AuthenticationException e = assertThrows(AuthenticationException.class, none::newEndpoint);
            assertTrue(e.getMessage().contains("requires a shared secret") && e.getMessage().contains("LOCKFABRIC_SECRET"),
                    e.getMessage());
        }
    }

    @Test
    void aClientWithASecretRefusesAServerThatCannotProveIt() {
        try (TcpMemoryNode server = server(null);
             TcpFabric c = TcpFabric.builder().uri(server.uri()).secret(SECRET).build()) {
            AuthenticationException e = assertThrows(AuthenticationException.class, c::newEndpoint);
            assertTrue(e.getMessage().contains("does not ask for the shared secret"), e.getMessage());
        }
    }

    @Test
    void framesBeforeTheAnswerAndAnotherWireVersionAreRefused() throws Exception {
        try (TcpMemoryNode server = server(null)) {
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                assertInstanceOf(Frame.Challenge.class, RawHandshake.readFrame(in));
                s.getOutputStream().write(RawHandshake.encode(new Frame.Hello(1, 7, "127.0.0.1", 1)));
                Frame.ErrorReply e = assertInstanceOf(Frame.ErrorReply.class, RawHandshake.readFrame(in));
                assertTrue(e.message().contains("before authenticating"), e.message());
            }
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                assertInstanceOf(Frame.Challenge.class, RawHandshake.readFrame(in));
                s.getOutputStream().write(RawHandshake.encode(new Frame.Auth(0, HandshakeLayout.WIRE_VERSION + 1,
                        SharedSecret.nonce(), new byte[0])));
                Frame.ErrorReply e = assertInstanceOf(Frame.ErrorReply.class, RawHandshake.readFrame(in));
                assertTrue(e.message().contains("wire version"), e.message());
            }
        }
    }

    @Test
    void aMailboxRefusesASenderWithoutTheSecret() throws Exception {
        try (TcpMemoryNode server = server(SECRET);
             TcpFabric a = TcpFabric.builder().uri(server.uri()).secret(SECRET).build()) {
            TcpEndpoint x = (TcpEndpoint) a.newEndpoint();
            var listener = x.mailboxAddress();
            try (Socket s = new Socket(listener.getAddress(), listener.getPort())) {
                Frame answer = RawHandshake.open(s, null, TcpFabric.MAILBOX_CONTEXT);
                assertEquals(ErrorCode.AUTH_FAILED, assertInstanceOf(Frame.ErrorReply.class, answer).code());
            }
            try (Socket s = new Socket(listener.getAddress(), listener.getPort())) {
                // a proof made for the memory node is no good at a mailbox
                Frame answer = RawHandshake.open(s, SECRET, TcpMemoryNode.HANDSHAKE_CONTEXT);
                assertEquals(ErrorCode.AUTH_FAILED, assertInstanceOf(Frame.ErrorReply.class, answer).code());
                assertEquals(-1, s.getInputStream().read());
            }
            try (Socket s = new Socket(listener.getAddress(), listener.getPort())) {
                assertInstanceOf(Frame.AuthOk.class, RawHandshake.open(s, SECRET, TcpFabric.MAILBOX_CONTEXT));
                s.getOutputStream().write(RawHandshake.encode(new Frame.PeerMessage(x.id().pack(),
                        new Message(x.id(), 9, 9, 9, 9, 9))));
                s.getOutputStream().flush();
                assertEquals(9, x.mailbox().await(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)).type(),
                        "with the secret, a message is delivered");
            }
            assertNull(x.mailbox().poll(), "nothing else was delivered");
        }
    }

    @Test
    void secretsComeFromTheAddressTheEnvironmentOrAProperty(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("secret");
        Files.writeString(file, "correct horse battery staple 42\n", StandardCharsets.UTF_8);
        assertEquals(SECRET, TcpFabricProvider.secret(file.toString(), null, null, null));
        assertEquals(SECRET, TcpFabricProvider.secret(null, file.toString(), "ignored-because-the-file-wins", null));
        assertEquals(SECRET, TcpFabricProvider.secret(null, null, "correct horse battery staple 42", null));
        assertEquals(SECRET, TcpFabricProvider.secret(null, null, null, file.toString()));
        assertNull(TcpFabricProvider.secret(null, null, null, null));
        IllegalArgumentException shortOne = assertThrows(IllegalArgumentException.class,
                () -> SharedSecret.ofText("short", "test"));
        assertTrue(shortOne.getMessage().contains("at least 16"), shortOne.getMessage());
        assertTrue(!SECRET.toString().contains("horse"), "toString never shows the secret");
    }
}
