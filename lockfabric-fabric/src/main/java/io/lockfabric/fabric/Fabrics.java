package io.lockfabric.fabric;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Any fabric from its address: {@code local}, {@code sim:cns=5,clients-per-cn=48,seed=7},
 * {@code tcp://host:port} (later {@code shm:...}). The fabrics on the class path are found through
 * their {@link FabricProvider}s ({@link ServiceLoader}), so this class names none of them.
 *
 * <pre>{@code
 * try (Fabric fabric = Fabrics.open("sim:cns=2,clients-per-cn=4,seed=7")) {
 *     Endpoint client = fabric.newEndpoint();
 *     ...
 * }
 * }</pre>
 *
 * Thread-safe.
 */
public final class Fabrics {
    private Fabrics() {
    }

    /**
     * Opens the fabric at {@code address}.
     *
     * @throws IllegalArgumentException for an unknown scheme, an unknown parameter or a bad value,
     *                                  with a message that says what is expected
     * @throws FabricException          if the fabric cannot be reached or built
     */
    public static Fabric open(String address) {
        return open(address, Map.of());
    }

    /**
     * Opens the fabric at {@code address}, with {@code defaults} for the parameters the address
     * does not give, where the fabric has them (a tool's {@code --seed} for every fabric; a default
     * a fabric does not read, such as {@code cns} for tcp, is ignored).
     *
     * @throws IllegalArgumentException for an unknown scheme, an unknown parameter or a bad value
     * @throws FabricException          if the fabric cannot be reached or built
     */
    public static Fabric open(String address, Map<String, String> defaults) {
        FabricAddress parsed = FabricAddress.parse(address);
        FabricProvider provider = provider(parsed.scheme());
        parsed.checkParameters(provider.parameters());
        Map<String, String> applicable = new java.util.LinkedHashMap<>();
        defaults.forEach((name, value) -> {
            if (provider.parameters().contains(name)) {
                applicable.put(name, value);
            }
        });
        return provider.open(parsed.withDefaults(applicable));
    }

    /**
     * The provider of {@code scheme}.
     *
     * @throws IllegalArgumentException if no fabric on the class path has that scheme
     */
    public static FabricProvider provider(String scheme) {
        List<FabricProvider> all = providers();
        for (FabricProvider p : all) {
            if (p.scheme().equals(scheme)) {
                return p;
            }
        }
        List<String> usages = all.stream().map(FabricProvider::usage).toList();
        throw new IllegalArgumentException("unknown fabric '" + scheme + "': give "
                + (usages.isEmpty() ? "(no fabric is installed)" : String.join(", ", usages)));
    }

    /** Every fabric provider on the class path, in the order the class path lists them. */
    public static List<FabricProvider> providers() {
        List<FabricProvider> all = new ArrayList<>();
        ServiceLoader.load(FabricProvider.class, Fabrics.class.getClassLoader()).forEach(all::add);
        return all;
    }
}
