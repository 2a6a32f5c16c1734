package io.lockfabric.protocols;

import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Protocol options for the tcp fabric: the waits of protocols tuned for RDMA's microsecond round
 * trips, stretched for TCP's. On loopback a round trip takes tens of microseconds, and on a loaded
 * machine a client thread can be descheduled for tens of milliseconds; with their RDMA defaults
 * DSLR and ShiftLock take live holders for crashed (10 ms leases) and give up after their restart
 * limits, CQL and DecLock reset locks dozens of times a run (10 ms acquisition timeout), DrTM
 * writers wait out readers' 500 us leases that TCP readers cannot meet, and CITRON aborts every
 * request (15 us T_wait). The values are those the tcp test suites run with; {@code lockfabric
 * bench --fabric tcp://…} applies them unless {@code --option} sets the same names.
 *
 * <p>Only the names a protocol actually has are applied (see {@link #pairs(String, Collection)}),
 * so a protocol whose options change does not break here.
 */
public final class TcpProtocolDefaults {
    private static final List<String> CQL = List.of("timeout-ns=200ms", "lease-ns=400ms");
    private static final Map<String, List<String>> PAIRS = Map.of(
            "dslr", List.of("lease-ns=200ms"),
            "shiftlock", List.of("lease-ns=200ms"),
            "drtm", List.of("lease-ns=20ms", "tx-time-ns=15ms"),
            "cql", CQL,
            "declock-tf", CQL,
            "declock-pf", CQL,
            // citron's own lease (1 s) already outlasts TCP stalls: a shorter one here would only
            // take more live, slow requests for dead
            "citron", List.of("t-wait-ns=2ms", "poll-ns=20us", "starve-ns=5ms", "hold-wait-ns=50ms"));

    private TcpProtocolDefaults() {
    }

    /** The name=value pairs for {@code protocol} among {@code options} (empty if it needs none). */
    public static List<String> pairs(String protocol, Collection<LockOption> options) {
        Set<String> names = options.stream().map(LockOption::name).collect(Collectors.toSet());
        return PAIRS.getOrDefault(protocol, List.of()).stream()
                .filter(pair -> names.contains(pair.substring(0, pair.indexOf('='))))
                .toList();
    }

    /** The options for {@code protocol} on tcp, validated against its {@code options}. */
    public static LockOptions options(String protocol, Collection<LockOption> options) {
        return LockOptions.parse(pairs(protocol, options)).validate(protocol, List.copyOf(options));
    }
}
