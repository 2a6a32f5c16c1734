package io.lockfabric.fabric;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A fabric's address, as {@link Fabrics#open} reads it: a scheme, then either parameters
 * ({@code local}, {@code sim:cns=5,clients-per-cn=48,seed=7}) or a location and parameters
 * ({@code tcp://host:port}, {@code tcp://host:port?seed=7}, or an absolute file path:
 * {@code shm:/dev/shm/locks?capacity=N}). Parameters are {@code name=value}
 * pairs separated by {@code ,} (or {@code &} after {@code ?}); the values are left for the fabric's
 * {@link FabricProvider} to read, with {@link #longParameter} and {@link #intParameter} giving
 * errors that name the fabric and the parameter. Immutable.
 *
 * @param text       the address as given
 * @param scheme     lower case: {@code local}, {@code sim}, {@code tcp}
 * @param location   what follows {@code scheme://} up to {@code ?}, or empty
 * @param parameters by name, in the order given
 */
public record FabricAddress(String text, String scheme, String location, Map<String, String> parameters) {
    public FabricAddress {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(location, "location");
        parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
    }

    /**
     * Reads {@code text}.
     *
     * @throws IllegalArgumentException if it has no scheme, or a parameter is not {@code name=value}
     *                                  or is given twice
     */
    public static FabricAddress parse(String text) {
        Objects.requireNonNull(text, "fabric address");
        String t = text.trim();
        int colon = t.indexOf(':');
        String scheme = (colon < 0 ? t : t.substring(0, colon)).toLowerCase(Locale.ROOT);
        if (scheme.isEmpty() || !scheme.matches("[a-z][a-z0-9+.-]*")) {
            throw new IllegalArgumentException("'" + text + "' is not a fabric address: give local, sim[:NAME=VALUE,...]"
                    + " or tcp://HOST:PORT");
        }
        String rest = colon < 0 ? "" : t.substring(colon + 1);
        String location = "";
        String query = rest;
        if (rest.startsWith("//")) {
            int q = rest.indexOf('?');
            location = q < 0 ? rest.substring(2) : rest.substring(2, q);
            query = q < 0 ? "" : rest.substring(q + 1);
        } else if (rest.startsWith("/")) {
            // a file path as the location: shm:/dev/shm/locks?capacity=N
            int q = rest.indexOf('?');
            location = q < 0 ? rest : rest.substring(0, q);
            query = q < 0 ? "" : rest.substring(q + 1);
        }
        Map<String, String> parameters = new LinkedHashMap<>();
        if (!query.isBlank()) {
            for (String pair : query.split("[,&]", -1)) {
                int eq = pair.indexOf('=');
                if (eq < 0) {
                    throw new IllegalArgumentException("fabric " + scheme + ": '" + pair + "' in '" + text
                            + "' is not NAME=VALUE" + (location.isEmpty() && pair.indexOf(':') >= 0
                            ? " (a location is written " + scheme + "://HOST:PORT)" : ""));
                }
                String name = pair.substring(0, eq).trim().toLowerCase(Locale.ROOT);
                String value = pair.substring(eq + 1).trim();
                if (name.isEmpty() || value.isEmpty()) {
                    throw new IllegalArgumentException("fabric " + scheme + ": '" + pair + "' in '" + text
                            + "' is not NAME=VALUE");
                }
                if (parameters.putIfAbsent(name, value) != null) {
                    throw new IllegalArgumentException("fabric " + scheme + ": parameter '" + name + "' is given twice in '"
                            + text + "'");
                }
            }
        }
        return new FabricAddress(text, scheme, location, parameters);
    }

    /** This address with {@code defaults} added where it sets no value of that name. */
    public FabricAddress withDefaults(Map<String, String> defaults) {
        Map<String, String> all = new LinkedHashMap<>(parameters);
        defaults.forEach(all::putIfAbsent);
        return new FabricAddress(text, scheme, location, all);
    }

    /**
     * Checks that every parameter is one of {@code known} (the provider's).
     *
     * @throws IllegalArgumentException naming the unknown parameter and the known ones
     */
    public FabricAddress checkParameters(List<String> known) {
        for (String name : parameters.keySet()) {
            if (!known.contains(name)) {
                throw new IllegalArgumentException("fabric " + scheme + " has no parameter '" + name + "' (its parameters: "
                        + (known.isEmpty() ? "none" : String.join(", ", known)) + ")");
            }
        }
        return this;
    }

    /** The value of {@code name}, or {@code otherwise} if not given. */
    public String parameter(String name, String otherwise) {
        return parameters.getOrDefault(name, otherwise);
    }

    /**
     * The whole number given for {@code name} (with optional {@code _} separators), or
     * {@code otherwise}.
     *
     * @throws IllegalArgumentException if it is not a whole number in [min, max]
     */
    public long longParameter(String name, long otherwise, long min, long max) {
        String v = parameters.get(name);
        if (v == null) {
            return otherwise;
        }
        long n;
        try {
            n = Long.parseLong(v.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("fabric " + scheme + ": " + name + "=" + v + " is not a whole number", e);
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException("fabric " + scheme + ": " + name + "=" + v + " is not in [" + min + ", " + max
                    + "]");
        }
        return n;
    }

    /** {@link #longParameter} for an int. */
    public int intParameter(String name, int otherwise, int min, int max) {
        return (int) longParameter(name, otherwise, min, max);
    }

    @Override
    public String toString() {
        return text;
    }
}
