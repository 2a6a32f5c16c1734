package io.lockfabric.bench.experiment;

import io.lockfabric.lock.LockOption;
import io.lockfabric.protocols.LockProtocols;

import java.util.ArrayList;
import java.util.List;

/**
 * Protocol options under which the reproductions run each baseline as the papers' authors ran it:
 * with its artifact's waiting behaviour where our protocols' library defaults differ on purpose.
 * The library defaults stay ours (they suit real deployments: fewer polls against a busy memory
 * node); only the reproductions take these. Each paper's experiments take its own artifact's.
 *
 * <p><b>ShiftLock's artifact</b> ({@code thustorage/shiftlock}, {@code src/bin/client.rs}: one
 * {@code --backoff}, 1862 ns by default, for every lock):
 * <ul>
 *   <li>{@code shiftlock}: its waiting reader (for the epoch flip) and waiting writer (for the
 *       readers to leave) READ the entry every {@code remote_wait} = 1862 ns, a fixed gap. Our
 *       default doubles the gap up to 20 us: at cs 32 of DecLock's Figure 12, 2.6 READs per
 *       acquisition against the 15.6 the DecLock paper counts, 12.1 with the fixed gap.</li>
 *   <li>{@code dslr}: {@code DslrAcquirePolicy::DynamicWait { nanos: 1862 }}, a wait of 1862 ns per
 *       holder or waiter ahead before each READ ({@code src/baselines/dslr.rs}); ours waits 20 us
 *       per client ahead, the DSLR paper's value.</li>
 *   <li>{@code rmarw}: a waiting writer's and a refused reader's polls READ again at once, with only
 *       a coroutine yield between them ({@code src/baselines/rma_rw.rs}: {@code check_marker},
 *       {@code acquire_sh}); ours backs off exponentially from 1862 ns.</li>
 *   <li>{@code drtm}: a failed CAS is retried at once ({@code src/baselines/drtm.rs}); ours backs
 *       off after meeting a write lock.</li>
 *   <li>{@code cas}: SMART's truncated exponential backoff from 1862 ns: our default already.</li>
 *   <li>{@code rpc}: a refused request is retried ({@code retry-on-fail}).</li>
 * </ul>
 *
 * <p><b>DecLock's artifact</b> ({@code dracit7/declock}):
 * <ul>
 *   <li>{@code dslr} runs as DSLR+ ({@code waiting=backoff}): {@code lock/dslr/lc.cc} backs off
 *       exponentially from 100 ns to at most 3.2 us, adapting to the retry rate.</li>
 *   <li>{@code cas-rw} is CASLock: {@code lock/caslock/lc.cc} retries a writer's CAS and a reader's
 *       READ at once ({@code while (!granted) {;}}); ours backs a writer off from 1862 ns.</li>
 *   <li>{@code shiftlock}: its artifact's fixed 1862 ns gap, as above.</li>
 * </ul>
 */
public final class ArtifactOptions {
    public static final String SHIFTLOCK = "shiftlock";
    public static final String POLL_OPTION = "poll-ns";
    public static final String MAX_POLL_OPTION = "max-poll-ns";
    /** The ShiftLock artifact's {@code --backoff} default, its fixed gap between a waiter's READs. */
    public static final String SHIFTLOCK_POLL_NS = "1862";
    /** The ShiftLock artifact's baselines, beyond ShiftLock's own poll gap (see the class comment). */
    public static final List<String> SHIFTLOCK_BASELINES = List.of("dslr.omega-ns=1862", "rpc.retry-on-fail=1",
            "rmarw.backoff-init-ns=0", "drtm.backoff-init-ns=0");
    /** The DecLock artifact's baselines, beyond ShiftLock's poll gap (see the class comment). */
    public static final List<String> DECLOCK_BASELINES = List.of("dslr.waiting=backoff", "cas-rw.backoff-init-ns=0");
    /** What a ShiftLock experiment's setup line says of these settings. */
    public static final String SETUP_NOTE = "baselines waiting as in the ShiftLock artifact: shiftlock polling at a "
            + "fixed " + SHIFTLOCK_POLL_NS + " ns, dslr 1862 ns per client ahead, rmarw and drtm retrying at once";
    /** What a DecLock experiment's setup line says of these settings. */
    public static final String DECLOCK_SETUP_NOTE = "baselines waiting as in the DecLock artifact: dslr as DSLR+ "
            + "(truncated exponential backoff), cas-rw (CASLock) retrying at once, shiftlock polling at a fixed "
            + SHIFTLOCK_POLL_NS + " ns";

    private ArtifactOptions() {
    }

    /**
     * {@code options} ({@code protocol.key=value} pairs) plus, for {@code protocol}, the ShiftLock
     * artifact's settings not set there: ShiftLock's fixed poll gap and {@link #SHIFTLOCK_BASELINES}.
     */
    public static List<String> shiftLock(String protocol, List<String> options) {
        return with(protocol, options, SHIFTLOCK_BASELINES);
    }

    /**
     * {@code options} plus, for {@code protocol}, the DecLock artifact's settings not set there:
     * ShiftLock's fixed poll gap and {@link #DECLOCK_BASELINES}.
     */
    public static List<String> decLock(String protocol, List<String> options) {
        return with(protocol, options, DECLOCK_BASELINES);
    }

    private static List<String> with(String protocol, List<String> options, List<String> baselines) {
        List<String> out = new ArrayList<>(options);
        if (protocol.equals(SHIFTLOCK) && hasOption(protocol, POLL_OPTION)) {
            addUnlessSet(out, protocol, POLL_OPTION, SHIFTLOCK_POLL_NS);
            addUnlessSet(out, protocol, MAX_POLL_OPTION, SHIFTLOCK_POLL_NS);
        }
        String prefix = protocol + ".";
        for (String pair : baselines) {
            if (pair.startsWith(prefix)) {
                int eq = pair.indexOf('=');
                String option = pair.substring(prefix.length(), eq);
                if (hasOption(protocol, option)) {
                    addUnlessSet(out, protocol, option, pair.substring(eq + 1));
                }
            }
        }
        return List.copyOf(out);
    }

    public static boolean hasOption(String protocol, String option) {
        return LockProtocols.names().contains(protocol) && LockProtocols.byName(protocol).options().stream()
                .map(LockOption::name).anyMatch(option::equals);
    }

    /** Adds {@code protocol.option=value} to {@code out} unless {@code out} sets that option already. */
    public static void addUnlessSet(List<String> out, String protocol, String option, String value) {
        String key = protocol + "." + option + "=";
        if (out.stream().noneMatch(o -> o.startsWith(key))) {
            out.add(key + value);
        }
    }
}
