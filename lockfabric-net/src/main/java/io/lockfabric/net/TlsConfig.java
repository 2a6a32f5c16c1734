package io.lockfabric.net;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * TLS for the connections between clients and a memory node (Netty's {@code SslHandler} on the
 * JDK's TLS, 1.3 and 1.2), from PEM files:
 * <ul>
 *   <li>a server: its certificate chain and PKCS#8 private key, and optionally the CA certificates
 *       that client certificates must chain to (then every client must present one);</li>
 *   <li>a client: the certificates it trusts the server's chain to (the server's own self-signed
 *       certificate, or its CA), and optionally its own certificate and key. The server's
 *       certificate must name the host the client connects to (a DNS or IP subject alternative
 *       name): the client checks it, as HTTPS does.</li>
 * </ul>
 * Built once, checked when built (a missing or unreadable file is an {@link IllegalArgumentException}
 * naming it); immutable and thread-safe.
 */
public final class TlsConfig {
    private final SslContext context;
    private final boolean server;
    private final String summary;

    private TlsConfig(SslContext context, boolean server, String summary) {
        this.context = context;
        this.server = server;
        this.summary = summary;
    }

    /**
     * A server's TLS.
     *
     * @param certificate its certificate chain (PEM)
     * @param key         its private key (PEM, PKCS#8 unencrypted: {@code BEGIN PRIVATE KEY})
     * @param clientCa    if not null, the CA certificates (PEM) client certificates must chain to;
     *                    clients without such a certificate are refused
     */
    public static TlsConfig server(Path certificate, Path key, Path clientCa) {
        readable(certificate, "TLS certificate");
        readable(key, "TLS key");
        try {
            SslContextBuilder b = SslContextBuilder.forServer(certificate.toFile(), key.toFile())
                    .sslProvider(SslProvider.JDK);
            if (clientCa != null) {
                readable(clientCa, "TLS client CA");
                b.trustManager(clientCa.toFile()).clientAuth(ClientAuth.REQUIRE);
            }
            return new TlsConfig(b.build(), true, "TLS (certificate " + certificate + (clientCa == null ? ""
                    : "; client certificates from " + clientCa + " required") + ")");
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot use the TLS certificate " + certificate + " and key " + key
                    + (clientCa == null ? "" : " and client CA " + clientCa) + ": " + oneLine(e), e);
        }
    }

    /**
     * A client's TLS.
     *
     * @param trust       the certificates (PEM) the server's chain must lead to
     * @param certificate if not null, this client's certificate chain (PEM), for a server that asks for one
     * @param key         this client's private key (PEM, PKCS#8), with {@code certificate}
     */
    public static TlsConfig client(Path trust, Path certificate, Path key) {
        readable(trust, "TLS trust");
        if ((certificate == null) != (key == null)) {
            throw new IllegalArgumentException("a client certificate needs its key and a key its certificate: give "
                    + "both tls-cert and tls-key, or neither");
        }
        try {
            SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).trustManager(trust.toFile())
                    .endpointIdentificationAlgorithm("HTTPS");
            if (certificate != null) {
                readable(certificate, "TLS client certificate");
                readable(key, "TLS client key");
                b.keyManager(certificate.toFile(), key.toFile());
            }
            return new TlsConfig(b.build(), false, "TLS (trusting " + trust + (certificate == null ? ""
                    : "; client certificate " + certificate) + ")");
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot use the TLS files " + trust + (certificate == null ? ""
                    : ", " + certificate + ", " + key) + ": " + oneLine(e), e);
        }
    }

    /** A handler for a new connection: a server's, or a client's to {@code host:port}. */
    SslHandler newHandler(ByteBufAllocator alloc, String host, int port, long handshakeTimeoutNs) {
        SslHandler h = server ? context.newHandler(alloc) : context.newHandler(alloc, host, port);
        h.setHandshakeTimeout(handshakeTimeoutNs, TimeUnit.NANOSECONDS);
        return h;
    }

    @Override
    public String toString() {
        return summary;
    }

    private static void readable(Path p, String what) {
        if (p == null) {
            throw new IllegalArgumentException("the " + what + " file is missing");
        }
        if (!Files.isReadable(p)) {
            throw new IllegalArgumentException("the " + what + " file " + p + " does not exist or cannot be read");
        }
    }

    static String oneLine(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return m.replaceAll("\\s+", " ");
    }
}
