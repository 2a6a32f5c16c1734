package io.lockfabric.cli;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricAddress;
import io.lockfabric.fabric.FabricProvider;
import io.lockfabric.fabric.Fabrics;

import java.util.Map;
import java.util.Objects;

/**
 * The {@code --fabric} option of the commands that run benchmarks: a fabric address as
 * {@link Fabrics#open} reads it ({@code local}, {@code sim}, {@code sim:cns=5,clients-per-cn=48},
 * {@code tcp://HOST:PORT}), checked when the command line is read (a scheme no fabric on the class
 * path has, or a parameter its fabric does not read, is bad input), and opened for each run with the
 * command line's flags ({@code --seed}; on the simulator the cluster's shape) as the address's
 * defaults: what the address itself says wins. The command knows no fabric implementation: only
 * that {@code sim} runs in virtual time (the simulator's driver) and that a {@code tcp} memory node
 * must answer before the runs start. Immutable.
 */
final class FabricChoice {
    static final String LOCAL = "local";
    static final String SIM = "sim";
    static final String TCP = "tcp";

    private final FabricAddress address;

    private FabricChoice(FabricAddress address) {
        this.address = address;
    }

    /**
     * Reads {@code text}.
     *
     * @param command how an unknown fabric is reported: "" for {@code bench}, " for range-bench"
     * @throws BadInputException if it is not an address of an installed fabric, with the parameters
     *                            that fabric reads
     */
    static FabricChoice parse(String text, String command) {
        Objects.requireNonNull(text, "text");
        String unknown = "unknown fabric '" + text + "'" + command + ": give local, sim or tcp://HOST:PORT";
        FabricAddress address;
        try {
            address = FabricAddress.parse(text);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(text.isBlank() || !text.contains(":") ? unknown : e.getMessage());
        }
        FabricProvider provider;
        try {
            provider = Fabrics.provider(address.scheme());
        } catch (IllegalArgumentException e) {
            throw new BadInputException(unknown);
        }
        if (address.scheme().equals(TCP) && address.location().isEmpty()) {
            throw new BadInputException(unknown);
        }
        try {
            address.checkParameters(provider.parameters());
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
        return new FabricChoice(address);
    }

    /** The address as given: what reports name the fabric by. */
    String text() {
        return address.text();
    }

    FabricAddress address() {
        return address;
    }

    /** The simulator: virtual time, faults, a cluster shaped by {@code --cns}, {@code --clients-per-cn}, {@code --mns}. */
    boolean isSim() {
        return address.scheme().equals(SIM);
    }

    /** A memory node over TCP, which must answer before any run starts. */
    boolean isTcp() {
        return address.scheme().equals(TCP);
    }

    /**
     * A fabric whose memory node several processes share (tcp, shm): bench processes may contend for
     * one table there ({@code --shared-table}).
     */
    boolean isShared() {
        return isTcp() || address.scheme().equals("shm");
    }

    /**
     * Opens the fabric, with {@code defaults} for the parameters the address does not give.
     *
     * @throws IllegalArgumentException for a bad value in the address
     * @throws io.lockfabric.fabric.FabricException if the fabric cannot be reached or built
     */
    Fabric open(Map<String, String> defaults) {
        return Fabrics.open(address.text(), defaults);
    }

    @Override
    public String toString() {
        return address.text();
    }
}
