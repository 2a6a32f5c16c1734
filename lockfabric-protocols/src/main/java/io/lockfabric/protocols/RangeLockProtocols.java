package io.lockfabric.protocols;

import io.lockfabric.lock.RangeLockProtocol;

import io.lockfabric.lock.citron.CitronProtocol;
import io.lockfabric.lock.dslr.DslrProtocol;
import io.lockfabric.lock.rpcrange.LlcProtocol;
import io.lockfabric.lock.lld.LldProtocol;
import io.lockfabric.lock.rpcrange.MtProtocol;
import io.lockfabric.lock.rpcrange.RpcRangeProtocol;
import io.lockfabric.lock.ss.SsProtocol;

import java.util.List;
import java.util.stream.Collectors;

/** The registry of range lock protocols, by name. */
public final class RangeLockProtocols {
    private static final List<RangeLockProtocol> ALL = all(new DslrProtocol());

    /** The list, static segmentation locking its segments with {@code dslr} (CITRON's SS baseline). */
    private static List<RangeLockProtocol> all(DslrProtocol dslr) {
        List<RangeLockProtocol> all = new java.util.ArrayList<>();
        all.add(new CitronProtocol());
        all.addAll(SsProtocol.all(dslr));
        all.add(new LldProtocol());
        all.add(new RpcRangeProtocol());
        all.add(new MtProtocol());
        all.add(new LlcProtocol());
        return List.copyOf(all);
    }

    private RangeLockProtocols() {
    }

    /** Every registered range protocol, in a stable order. */
    public static List<RangeLockProtocol> all() {
        return ALL;
    }

    public static List<String> names() {
        return ALL.stream().map(RangeLockProtocol::name).toList();
    }

    /**
     * The range protocol of that name.
     *
     * @throws IllegalArgumentException naming the known range protocols if there is none
     */
    public static RangeLockProtocol byName(String name) {
        for (RangeLockProtocol p : ALL) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown range protocol '" + name + "'; known: "
                + ALL.stream().map(RangeLockProtocol::name).collect(Collectors.joining(", ")));
    }
}
