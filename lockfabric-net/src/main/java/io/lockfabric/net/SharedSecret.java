package io.lockfabric.net;

import io.lockfabric.net.wire.HandshakeLayout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret a memory node and its clients share, and the HMAC-SHA256 proofs made with it. A
 * connector proves it knows the secret by answering the listener's random nonce with
 * {@code HMAC(secret, listener nonce || connector nonce || context)}, and the listener proves it
 * back over the nonces in the other order; the secret itself never crosses the wire, and a proof
 * is good for one connection only (fresh nonces) and one purpose only ({@code context}).
 *
 * <p>A secret is at least {@value #MIN_BYTES} bytes. From a file, surrounding whitespace (a
 * trailing newline) is not part of it, so {@code head -c 32 /dev/urandom | base64 > secret} makes a
 * good one. {@link #toString()} never shows it. Immutable and thread-safe.
 */
public final class SharedSecret {
    public static final int MIN_BYTES = 16;
    private static final String HMAC = "HmacSHA256";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] key;
    private final String origin;

    private SharedSecret(byte[] key, String origin) {
        this.key = key;
        this.origin = origin;
    }

    /**
     * The secret {@code bytes}; {@code origin} says where it came from, for messages.
     *
     * @throws IllegalArgumentException if it is shorter than {@value #MIN_BYTES} bytes
     */
    public static SharedSecret of(byte[] bytes, String origin) {
        if (bytes.length < MIN_BYTES) {
            throw new IllegalArgumentException("the shared secret " + origin + " has " + bytes.length
                    + " bytes; it needs at least " + MIN_BYTES + " (make one with: head -c 32 /dev/urandom | base64 > FILE)");
        }
        return new SharedSecret(bytes.clone(), origin);
    }

    /** The secret in {@code text} (UTF-8, surrounding whitespace stripped). */
    public static SharedSecret ofText(String text, String origin) {
        return of(text.strip().getBytes(StandardCharsets.UTF_8), origin);
    }

    /**
     * The secret in {@code file} (its bytes, surrounding whitespace stripped).
     *
     * @throws IllegalArgumentException if the file cannot be read or holds too short a secret
     */
    public static SharedSecret fromFile(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the shared secret file " + file + ": " + e.getMessage(), e);
        }
        return of(text.strip().getBytes(StandardCharsets.ISO_8859_1), "in " + file);
    }

    /** Where the secret came from ("in /etc/lockfabric/secret", "from LOCKFABRIC_SECRET"). */
    public String origin() {
        return origin;
    }

    /** {@value HandshakeLayout#NONCE_BYTES} fresh random bytes. */
    static byte[] nonce() {
        byte[] n = new byte[HandshakeLayout.NONCE_BYTES];
        RANDOM.nextBytes(n);
        return n;
    }

    /** HMAC-SHA256 of the secret over {@code first || second || context}. */
    byte[] proof(byte[] first, byte[] second, String context) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(key, HMAC));
            mac.update(first);
            mac.update(second);
            return mac.doFinal(context.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available in this JDK", e);
        }
    }

    /** Whether {@code claimed} is the proof over those inputs; in constant time. */
    boolean verify(byte[] claimed, byte[] first, byte[] second, String context) {
        return claimed.length > 0 && MessageDigest.isEqual(claimed, proof(first, second, context));
    }

    @Override
    public String toString() {
        return "shared secret " + origin;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SharedSecret s && MessageDigest.isEqual(key, s.key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key);
    }
}
