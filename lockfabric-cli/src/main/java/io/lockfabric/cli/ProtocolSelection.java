package io.lockfabric.cli;

import io.lockfabric.lock.LockProtocol;
import io.lockfabric.protocols.LockProtocols;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The protocols a command line names with {@code --protocols}, checked against the fabric. */
final class ProtocolSelection {
    private ProtocolSelection() {
    }

    /**
     * The named protocols in order, without repeats; every registered one (that can run there) when
     * none is named.
     *
     * @param onSimulator whether they will run on the simulator or over tcp, where protocols that
     *                    need their clients in one JVM cannot run
     * @throws BadInputException if the list names nothing or a protocol that cannot run there
     */
    static List<LockProtocol> select(List<String> names, boolean onSimulator) {
        if (names == null || names.isEmpty()) {
            return LockProtocols.all().stream().filter(p -> !onSimulator || !p.requiresInProcessFabric()).toList();
        }
        Set<String> distinct = new LinkedHashSet<>();
        for (String n : names) {
            if (!n.isBlank()) {
                distinct.add(n.trim());
            }
        }
        if (distinct.isEmpty()) {
            throw new BadInputException("--protocols names no protocol; known: "
                    + String.join(", ", LockProtocols.names()));
        }
        List<LockProtocol> selected = distinct.stream().map(LockProtocols::byName).toList();
        for (LockProtocol p : selected) {
            if (onSimulator && p.requiresInProcessFabric()) {
                throw new BadInputException("protocol " + p.name() + " needs its clients in one JVM and cannot run "
                        + "on the sim or tcp fabric");
            }
        }
        return selected;
    }
}
