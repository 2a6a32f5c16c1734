package io.lockfabric.protocols;

import io.lockfabric.lock.LockProtocol;

import io.lockfabric.lock.cas.CasProtocol;
import io.lockfabric.lock.cas.CasRwProtocol;
import io.lockfabric.lock.drtm.DrTmProtocol;
import io.lockfabric.lock.declock.CqlProtocol;
import io.lockfabric.lock.declock.DecLockProtocol;
import io.lockfabric.lock.dslr.DslrProtocol;
import io.lockfabric.lock.juc.JucProtocol;
import io.lockfabric.lock.mcs.McsProtocol;
import io.lockfabric.lock.rmarw.RmaRwProtocol;
import io.lockfabric.lock.rpc.RpcLockProtocol;
import io.lockfabric.lock.shiftlock.ShiftLockProtocol;

import java.util.List;
import java.util.stream.Collectors;

/** The registry of lock protocols, by name. */
public final class LockProtocols {
    private static final List<LockProtocol> ALL = List.of(
            new JucProtocol(),
            CasProtocol.noBackoff(),
            CasProtocol.withBackoff(),
            new CasRwProtocol(),
            new DslrProtocol(),
            new McsProtocol(),
            new RmaRwProtocol(),
            new DrTmProtocol(),
            new RpcLockProtocol(),
            new ShiftLockProtocol(),
            new CqlProtocol(),
            DecLockProtocol.taskFair(),
            DecLockProtocol.phaseFair());

    private LockProtocols() {
    }

    /** Every registered protocol, in a stable order (the reference first, then the baselines). */
    public static List<LockProtocol> all() {
        return ALL;
    }

    public static List<String> names() {
        return ALL.stream().map(LockProtocol::name).toList();
    }

    /**
     * The protocol of that name.
     *
     * @throws IllegalArgumentException naming the known protocols if there is none
     */
    public static LockProtocol byName(String name) {
        for (LockProtocol p : ALL) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown protocol '" + name + "'; known: "
                + ALL.stream().map(LockProtocol::name).collect(Collectors.joining(", ")));
    }
}
