package io.lockfabric.client;

import java.nio.charset.StandardCharsets;

/**
 * The stable hash that maps a lock space's keys to its lock slots, the same in every process, on
 * every JVM version and platform: 64-bit FNV-1a over the key's UTF-8 bytes (offset basis
 * {@code 0xcbf29ce484222325}, prime {@code 0x100000001b3}), then MurmurHash3's 64-bit finalizer
 * ({@code fmix64}) so that every bit of the key reaches the low bits, then the unsigned remainder by
 * the number of slots. A {@code long} key is hashed as its decimal string ({@code 42L} is the key
 * {@code "42"}).
 *
 * <p>{@link String#hashCode()} is not used: it is stable too, but its 32 bits mix short keys that
 * differ in their last characters poorly, which a remainder by a power of two exposes.
 *
 * <p>Stateless and thread-safe.
 */
public final class KeyHash {
    /** FNV-1a's 64-bit offset basis. */
    public static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
    /** FNV-1a's 64-bit prime. */
    public static final long FNV_PRIME = 0x100000001b3L;

    private KeyHash() {
    }

    /** The 64-bit hash of {@code key}: FNV-1a of its UTF-8 bytes, then {@link #fmix64}. */
    public static long hash(String key) {
        long h = FNV_OFFSET_BASIS;
        int n = key.length();
        for (int i = 0; i < n; i++) {
            char c = key.charAt(i);
            if (c >= 0x80) {
                return hashUtf8(key); // not ASCII: the UTF-8 bytes differ from the chars
            }
            h ^= c; // an ASCII char is its own UTF-8 byte: no byte array is made
            h *= FNV_PRIME;
        }
        return fmix64(h);
    }

    private static long hashUtf8(String key) {
        long h = FNV_OFFSET_BASIS;
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= FNV_PRIME;
        }
        return fmix64(h);
    }

    /** The slot of {@code key} among {@code slots}: {@code hash(key) mod slots}, unsigned. */
    public static long slot(String key, long slots) {
        if (slots <= 0) {
            throw new IllegalArgumentException("slots must be positive, got " + slots);
        }
        long h = hash(key);
        // the same value either way; a mask spares a power-of-two table (the usual one) a 64-bit division
        return (slots & (slots - 1)) == 0 ? h & (slots - 1) : Long.remainderUnsigned(h, slots);
    }

    /** MurmurHash3's 64-bit finalizer: a bijection that spreads every input bit over the output. */
    public static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }
}
