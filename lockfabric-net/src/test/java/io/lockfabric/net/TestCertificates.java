package io.lockfabric.net;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/**
 * Self-signed certificates for the TLS tests, made with the JDK's {@code keytool} (EC P-256, valid
 * for 10 years, subject alternative names {@code localhost} and {@code 127.0.0.1}) and written as
 * the PEM files {@link TlsConfig} reads: the certificate, and the private key as unencrypted
 * PKCS#8. (Netty's {@code SelfSignedCertificate} needs BouncyCastle or JDK internals that Java 25
 * does not open; {@code keytool} is in every JDK.)
 */
final class TestCertificates {
    /** A certificate and its key, as PEM files. */
    record Pem(Path certificate, Path key) {
    }

    private TestCertificates() {
    }

    static Pem generate(Path dir, String name) throws IOException, InterruptedException {
        Path store = dir.resolve(name + ".p12");
        char[] password = "changeit".toCharArray();
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname",
                "secp256r1", "-validity", "3650", "-dname", "CN=" + name, "-ext", "SAN=dns:localhost,ip:127.0.0.1",
                "-keystore", store.toString(), "-storetype", "PKCS12", "-storepass", "changeit")
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool failed: " + output);
        }
        try (InputStream in = Files.newInputStream(store)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, password);
            Certificate cert = ks.getCertificate(name);
            PrivateKey key = (PrivateKey) ks.getKey(name, password);
            Path certPem = dir.resolve(name + ".crt.pem");
            Path keyPem = dir.resolve(name + ".key.pem");
            Files.writeString(certPem, pem("CERTIFICATE", cert.getEncoded()), StandardCharsets.US_ASCII);
            Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded()), StandardCharsets.US_ASCII);
            return new Pem(certPem, keyPem);
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException("cannot read the key store keytool made", e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
