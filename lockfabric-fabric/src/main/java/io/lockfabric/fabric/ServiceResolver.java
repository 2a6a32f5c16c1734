package io.lockfabric.fabric;

import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Builds, on a remote memory node, the rpc service of a table a client opens. A service is Java
 * code and cannot travel, so the client sends what the service depends on instead: the table's
 * protocol name and lock count (in its shape) and the options its factory declares
 * ({@link TableSpec.ServiceFactory#options()}). A resolver looks the protocol up, asks it for the
 * table with those options, and offers the service only if the spec it gets has exactly the shape
 * the client asked for. Thread-safe.
 *
 * <p>The fabric names no protocol: the resolvers that know protocols are found at run time
 * ({@link #installed()}), as {@link ServiceLoader} providers of this interface. The protocol
 * registries provide one, so a server with the protocols on its class path serves every
 * registered protocol's tables.
 */
@FunctionalInterface
public interface ServiceResolver {
    /** The service factory for {@code requested} built with {@code options}, or empty if this resolver cannot. */
    Optional<TableSpec.ServiceFactory> resolve(TableSpec requested, List<String> options);

    /** This resolver's service, or else {@code other}'s. */
    default ServiceResolver orElse(ServiceResolver other) {
        return (requested, options) -> {
            Optional<TableSpec.ServiceFactory> mine = resolve(requested, options);
            return mine.isPresent() ? mine : other.resolve(requested, options);
        };
    }

    /** A resolver that builds no service. */
    static ServiceResolver none() {
        return (requested, options) -> Optional.empty();
    }

    /**
     * Every resolver installed on the class path ({@link ServiceLoader} providers of this
     * interface), asked in the order the class path lists them; {@link #none()} if there is none.
     */
    static ServiceResolver installed() {
        ServiceResolver all = none();
        for (ServiceResolver r : ServiceLoader.load(ServiceResolver.class, ServiceResolver.class.getClassLoader())) {
            all = all.orElse(r);
        }
        return all;
    }
}
