package io.lockfabric.net;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricAddress;
import io.lockfabric.fabric.FabricProvider;

import java.nio.file.Path;
import java.util.List;

/**
 * Opens {@code tcp://HOST:PORT[?seed=N,connections=N,threads=virtual|platform,spin=TIME,namespace=NAME,secret-file=PATH,tls-trust=PEM,tls-cert=PEM,tls-key=PEM]}:
 * a {@link TcpFabric} on the memory node there ({@code lockfabric serve}), endpoints seeded from
 * {@code seed}, sharing {@code connections} connections to it ({@link TcpFabric.Builder#connections}),
 * its clients on virtual threads or not ({@link TcpFabric.Builder#virtualThreads}; default platform),
 * the read spin of virtual-thread clients ({@link TcpFabric.Builder#readSpinNs}; a time, e.g. {@code 200us}),
 * tables in {@code namespace} ({@link TcpFabric.Builder#tableNamespace}). Found by
 * {@link io.lockfabric.fabric.Fabrics#open}.
 *
 * <p>The shared secret ({@link SharedSecret}) is read from, first found: the address's
 * {@code secret-file}, the file named by the environment variable {@value #SECRET_FILE_ENV}, the
 * value of {@value #SECRET_ENV}, the file named by the system property {@value #SECRET_FILE_PROPERTY};
 * none: no secret. {@code tls-trust} turns TLS on, trusting the server certificates that chain to
 * that PEM; {@code tls-cert} and {@code tls-key} give this client's certificate for a server that
 * requires one ({@link TlsConfig#client}).
 */
public final class TcpFabricProvider implements FabricProvider {
    /** Environment variable: a file holding the shared secret. */
    public static final String SECRET_FILE_ENV = "LOCKFABRIC_SECRET_FILE";
    /** Environment variable: the shared secret itself. */
    public static final String SECRET_ENV = "LOCKFABRIC_SECRET";
    /** System property: a file holding the shared secret. */
    public static final String SECRET_FILE_PROPERTY = "lockfabric.secret.file";
    @Override
    public String scheme() {
        return TcpFabric.SCHEME;
    }

    @Override
    public String usage() {
        return "tcp://HOST:PORT[?seed=N,connections=N,threads=virtual|platform,spin=TIME,namespace=NAME,secret-file=PATH,tls-trust=PEM,tls-cert=PEM,tls-key=PEM]";
    }

    @Override
    public List<String> parameters() {
        return List.of("seed", "connections", "threads", "spin", "namespace", "secret-file", "tls-trust", "tls-cert", "tls-key");
    }

    @Override
    public Fabric open(FabricAddress address) {
        TcpFabric.Builder b = TcpFabric.builder().uri(TcpFabric.SCHEME + "://" + address.location())
                .seed(address.longParameter("seed", TcpFabric.DEFAULT_SEED, Long.MIN_VALUE, Long.MAX_VALUE));
        if (address.parameter("connections", null) != null) {
            b.connections((int) address.longParameter("connections", TcpFabric.DEFAULT_CONNECTIONS, 1,
                    TcpFabric.MAX_CONNECTIONS));
        }
        String threads = address.parameter("threads", "platform");
        switch (threads) {
            case "virtual" -> b.virtualThreads(true);
            case "platform" -> b.virtualThreads(false);
            default -> throw new IllegalArgumentException("fabric tcp: threads is virtual or platform, got '" + threads + "'");
        }
        String spin = address.parameter("spin", null);
        if (spin != null) {
            long ns;
            try {
                ns = io.lockfabric.fabric.Durations.parseNanos(spin);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("fabric tcp: spin is a time (200us, 0), got '" + spin + "'", e);
            }
            if (ns < 0 || ns > TcpFabric.MAX_READ_SPIN_NS) {
                throw new IllegalArgumentException("fabric tcp: spin must be in [0, 100ms], got '" + spin + "'");
            }
            b.readSpinNs(ns);
        }
        String namespace = address.parameter("namespace", null);
        if (namespace != null) {
            b.tableNamespace(namespace);
        }
        SharedSecret secret = secret(address.parameter("secret-file", null), System.getenv(SECRET_FILE_ENV),
                System.getenv(SECRET_ENV), System.getProperty(SECRET_FILE_PROPERTY));
        if (secret != null) {
            b.secret(secret);
        }
        String trust = address.parameter("tls-trust", null);
        String cert = address.parameter("tls-cert", null);
        String key = address.parameter("tls-key", null);
        if (trust != null) {
            b.tls(TlsConfig.client(Path.of(trust), cert == null ? null : Path.of(cert), key == null ? null : Path.of(key)));
        } else if (cert != null || key != null) {
            throw new IllegalArgumentException("fabric tcp: tls-cert and tls-key need tls-trust (the certificate the "
                    + "server's must chain to)");
        }
        return b.build();
    }

    /**
     * The shared secret from the first of these that is set (a file given in the address, a file
     * named by the environment, the secret in the environment, a file named by a system property),
     * or null.
     *
     * @throws IllegalArgumentException if the file cannot be read or the secret is too short
     */
    public static SharedSecret secret(String fileParameter, String fileEnv, String valueEnv, String fileProperty) {
        if (fileParameter != null) {
            return SharedSecret.fromFile(Path.of(fileParameter));
        }
        if (fileEnv != null && !fileEnv.isBlank()) {
            return SharedSecret.fromFile(Path.of(fileEnv));
        }
        if (valueEnv != null && !valueEnv.isBlank()) {
            return SharedSecret.ofText(valueEnv, "from " + SECRET_ENV);
        }
        if (fileProperty != null && !fileProperty.isBlank()) {
            return SharedSecret.fromFile(Path.of(fileProperty));
        }
        return null;
    }
}
