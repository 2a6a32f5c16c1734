package io.lockfabric.fabric;

import java.util.List;

/**
 * Opens the fabrics of one address scheme ({@code local}, {@code sim}, {@code tcp}, later
 * {@code shm}) for {@link Fabrics#open}. Each fabric module registers one as a
 * {@link java.util.ServiceLoader} provider (a line in
 * {@code META-INF/services/io.lockfabric.fabric.FabricProvider}), so the SPI names no
 * implementation and a fabric on the class path is found by its scheme. Implementations are
 * stateless and thread-safe, with a public no-argument constructor.
 */
public interface FabricProvider {
    /** The scheme this provider opens, lower case: {@code sim} for {@code sim:...}. */
    String scheme();

    /** The address form with its parameters, for help and errors: {@code sim[:cns=N,...]}. */
    String usage();

    /** The names of the parameters this provider reads; any other is an error. */
    List<String> parameters();

    /**
     * Opens a fabric at {@code address}, whose scheme is this provider's and whose parameters are
     * among {@link #parameters()}.
     *
     * @throws IllegalArgumentException if a parameter's value or the location is bad
     * @throws FabricException          if the fabric cannot be reached or built
     */
    Fabric open(FabricAddress address);
}
