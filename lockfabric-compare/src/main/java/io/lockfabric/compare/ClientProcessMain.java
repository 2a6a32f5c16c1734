package io.lockfabric.compare;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * One client process of a comparison run from several ({@code lockfabric compare --client-processes}):
 * it connects to the peer ({@link PeerSpec}), maps the run's {@link ExclusionCheck}, says it is ready
 * there and waits for the parent's go, runs its share of the workload's threads (their seeds those
 * the threads have in one process), prints one line {@code RESULT } and its {@link
 * WorkloadRunner.Part} ({@link WorkloadRunner.Part#encode}), and exits. A failure prints
 * {@code RESULT failed=WHY}. It ends by itself when its parent goes.
 *
 * <p>Arguments: {@code CHECK_FILE FIRST_THREAD THREADS LOCKS ZIPF READ_RATIO WARMUP_NS
 * DURATION_NS SEED virtual|platform ROW PEER...} (the peer's words, {@link PeerSpec#words}).
 */
public final class ClientProcessMain {
    /** The start of the line with the result. */
    static final String RESULT = "RESULT ";
    /** The start of a result that is a failure. */
    static final String FAILED = "failed=";

    private ClientProcessMain() {
    }

    /** Runs one client process; see the class's javadoc for the arguments. */
    public static void main(String[] args) {
        Servers.exitWhenParentGone();
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        PrintStream out = System.out;
        try {
            run(Arrays.asList(args), out);
            System.exit(0);
        } catch (Throwable t) {
            out.println(RESULT + FAILED + String.valueOf(t).replace('\n', ' '));
            t.printStackTrace(out);
            out.flush();
            System.exit(1);
        }
    }

    /** Prints the result as soon as it is measured, before the client disconnects (which may take a while). */
    private static void run(List<String> a, PrintStream out) throws Exception {
        if (a.size() < 12) {
            throw new IllegalArgumentException("expected CHECK_FILE FIRST_THREAD THREADS LOCKS ZIPF READ_RATIO "
                    + "WARMUP_NS DURATION_NS SEED virtual|platform ROW PEER..., got " + a);
        }
        Path checkFile = Path.of(a.get(0));
        int first = Integer.parseInt(a.get(1));
        int threads = Integer.parseInt(a.get(2));
        int locks = Integer.parseInt(a.get(3));
        CompareWorkload w = new CompareWorkload(threads, locks, Double.parseDouble(a.get(4)), Double.parseDouble(a.get(5)),
                Long.parseLong(a.get(6)), Long.parseLong(a.get(7)), Long.parseLong(a.get(8)), a.get(9).equals("virtual"));
        String row = a.get(10);
        PeerSpec spec = PeerSpec.parse(a.subList(11, a.size()));
        ExclusionCheck.Mapped check = ExclusionCheck.Mapped.map(checkFile, locks, false);
        try (PeerClient client = spec.open(w)) {
            check.ready();
            while (!check.gone()) {
                Thread.sleep(1);
            }
            out.println(RESULT + WorkloadRunner.runPart(row, client, w, check, first, threads, null).encode());
            out.flush();
        }
    }
}
