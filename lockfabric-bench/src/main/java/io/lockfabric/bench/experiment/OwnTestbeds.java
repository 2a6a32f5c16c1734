package io.lockfabric.bench.experiment;

import io.lockfabric.sim.Testbed;

import java.util.Optional;

/**
 * The simulated testbed each paper's experiments run on unless {@code reproduce --testbed} says
 * otherwise ({@link ExperimentSettings#testbedOr}): each paper's own ({@link Testbed}); empty, the
 * simulator's defaults ({@code --testbed none} gives those for every experiment).
 */
public final class OwnTestbeds {
    /** ShiftLock (FAST'25) experiments. */
    public static final Optional<Testbed> SHIFTLOCK = Optional.of(Testbed.SHIFTLOCK);
    /** DecLock (arXiv 2505.17641) experiments. */
    public static final Optional<Testbed> DECLOCK = Optional.of(Testbed.DECLOCK);
    /** CITRON (FAST'23) experiments. */
    public static final Optional<Testbed> CITRON = Optional.of(Testbed.CITRON);
    /** The RDMA DLM designs report's experiments: its testbed is none of the profiles. */
    public static final Optional<Testbed> REPORT = Optional.empty();

    private OwnTestbeds() {
    }
}
