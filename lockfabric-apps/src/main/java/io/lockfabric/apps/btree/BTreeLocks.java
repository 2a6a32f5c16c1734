package io.lockfabric.apps.btree;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.lock.FailureModel;
import io.lockfabric.lock.LockClient;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.LockProtocol;
import io.lockfabric.lock.cas.CasProtocol;
import io.lockfabric.protocols.LockProtocols;

import java.util.List;

/**
 * The node lock variants of the B+-tree, by name (DecLock §6, Fig. 17 right, and beyond):
 *
 * <ul>
 *   <li>{@code sherman}: Sherman's hierarchical on-chip lock ({@link ShermanLock}: a local lock per
 *       compute node in front of the remote CAS lock, with bounded handover among local waiters);</li>
 *   <li>{@code sherman-nh}: Sherman without hierarchical locking, the remote CAS lock alone (the
 *       {@code cas} protocol);</li>
 *   <li>{@code declock}: DecLock, its phase-fair variant ({@code declock-pf}), as the paper ran it in
 *       both applications;</li>
 *   <li>{@code shiftlock}, {@code cas-rw}: beyond the paper, the registered protocols;</li>
 *   <li>any other registered protocol by its registry name ({@code cas}, {@code dslr}, {@code declock-tf}, ...).</li>
 * </ul>
 *
 * The tree takes node locks exclusive only.
 */
public final class BTreeLocks {
    /** The variants of the paper and beyond, in the order reports list them. */
    public static final List<String> VARIANTS = List.of("sherman", "sherman-nh", "declock", "shiftlock", "cas-rw");

    private BTreeLocks() {
    }

    /** The registered protocol a variant runs on (sherman's remote lock: {@code cas}). */
    public static LockProtocol protocol(String variant) {
        return LockProtocols.byName(protocolName(variant));
    }

    /** The registry name of the protocol under {@code variant}. */
    public static String protocolName(String variant) {
        return switch (variant) {
            case "sherman", "sherman-nh" -> "cas";
            case "declock" -> "declock-pf";
            default -> variant;
        };
    }

    /**
     * Checks {@code variant} names a variant or a registered protocol and that its options are its
     * protocol's; returns the parsed options.
     *
     * @throws IllegalArgumentException naming the variant and the known ones, or the bad option
     */
    public static LockOptions validate(String variant, List<String> options) {
        LockProtocol p;
        try {
            p = protocol(variant);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown lock variant '" + variant + "'; known: "
                    + String.join(", ", VARIANTS) + " or a protocol of `lockfabric protocols`", e);
        }
        return LockOptions.parse(options).validate(p.name(), p.options());
    }

    /** What the variant promises when clients crash or pause. */
    public static FailureModel failureModel(String variant, List<String> options) {
        return protocol(variant).failureModel(validate(variant, options));
    }

    /**
     * Opens {@code variant}'s client of lock table {@code tableName} ({@code locks} locks) on
     * {@code endpoint}.
     */
    public static LockClient open(String variant, Endpoint endpoint, String tableName, long locks, List<String> options,
                                  int handoverBound) {
        LockOptions parsed = validate(variant, options);
        LockProtocol protocol = protocol(variant);
        if (variant.equals("sherman")) {
            LockOptions bound = parsed.onUnlessBound(endpoint.fabric().timing());
            Table table = endpoint.openTable(protocol.tableSpec(tableName, locks, bound));
            return new ShermanLock(endpoint, table, bound.get(CasProtocol.BACKOFF_INIT_NS), handoverBound);
        }
        return protocol.open(endpoint, tableName, locks, parsed);
    }
}
