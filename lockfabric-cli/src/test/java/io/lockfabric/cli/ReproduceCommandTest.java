package io.lockfabric.cli;

import io.lockfabric.bench.experiment.Experiment;
import io.lockfabric.bench.experiment.Experiments;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code lockfabric reproduce}: listing, bad input, output formats and the exit status. */
@Tag("experiments")
class ReproduceCommandTest {
    /** Windows short enough for a test; the backoff case is then still in its start-up collapse. */
    private static final String[] QUICK = {"--warmup", "1ms", "--duration", "3ms"};

    private static MainTest.Outcome reproduce(String... args) {
        String[] argv = new String[args.length + 1];
        argv[0] = "reproduce";
        System.arraycopy(args, 0, argv, 1, args.length);
        return MainTest.run(argv);
    }

    private static String[] quick(String... args) {
        String[] all = new String[args.length + QUICK.length];
        System.arraycopy(args, 0, all, 0, args.length);
        System.arraycopy(QUICK, 0, all, args.length, QUICK.length);
        return all;
    }

    @Test
    void listNamesEveryExperimentWithItsPaper() {
        MainTest.Outcome o = reproduce("--list");
        assertEquals(Main.EXIT_OK, o.status(), o.err());
        for (Experiment e : Experiments.all()) {
            assertTrue(o.out().contains(e.name() + "\n"), e.name());
            assertTrue(o.out().contains(e.reference()), e.reference());
            assertTrue(o.out().contains(e.description()), e.description());
        }
        assertEquals("", o.err());
    }

    @Test
    void aTestbedIsNamedOrBadInput() {
        MainTest.Outcome none = reproduce(quick("shiftlock-2.3", "--testbed", "none", "--format", "json"));
        assertTrue(none.status() == Main.EXIT_OK || none.status() == Main.EXIT_VIOLATIONS, none.err());
        MainTest.Outcome declock = reproduce(quick("shiftlock-2.3", "--testbed", "declock", "--format", "json"));
        assertTrue(declock.status() == Main.EXIT_OK || declock.status() == Main.EXIT_VIOLATIONS, declock.err());
        assertFalse(none.out().equals(declock.out()), "declock's 100 Gb/s link moves the numbers");
        MainTest.Outcome bad = reproduce(quick("shiftlock-2.3", "--testbed", "cx9"));
        assertEquals(Main.EXIT_BAD_INPUT, bad.status());
        assertTrue(bad.err().contains("unknown testbed 'cx9'"), bad.err());
        MainTest.Outcome smallBank = reproduce("shiftlock-fig11", "--testbed", "shiftlock");
        assertEquals(Main.EXIT_BAD_INPUT, smallBank.status());
    }

    @Test
    void anUnknownExperimentIsBadInputAndListsTheKnownOnes() {
        MainTest.Outcome o = reproduce("nope");
        assertEquals(Main.EXIT_BAD_INPUT, o.status());
        assertEquals("lockfabric: unknown experiment 'nope'; known: " + String.join(", ", Experiments.names()),
                o.err().strip());
        assertEquals("", o.out());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "--list shiftlock-2.3", "--format xml shiftlock-2.3", "--duration 5 shiftlock-2.3",
            "--duration 0ms shiftlock-2.3", "--warmup -1ms shiftlock-2.3", "--seed x shiftlock-2.3",
            "shiftlock-2.3 another", "--bogus", "--all", "--report target/never", "--all shiftlock-2.3 --report target/never",
            "shiftlock-fig11 --report target/never", "--all --report target/never --format json",
            "--list --all --report target/never"})
    void badInputIsOneLineAndStatusTwo(String args) {
        MainTest.Outcome o = reproduce(args.isEmpty() ? new String[0] : args.split(" "));
        assertEquals(Main.EXIT_BAD_INPUT, o.status(), args + " -> " + o.err());
        assertEquals(1, o.err().strip().lines().count(), o.err());
        assertTrue(o.err().startsWith("lockfabric: "), o.err());
        assertFalse(o.err().contains("Exception") || o.err().contains("\tat "), o.err());
        assertEquals("", o.out());
    }

    @Test
    void helpExplainsTheOptionsAndTheExitStatus() {
        MainTest.Outcome o = reproduce("--help");
        assertEquals(Main.EXIT_OK, o.status());
        for (String option : List.of("EXPERIMENT", "--list", "--format", "--seed", "--warmup", "--duration", "--all", "--report")) {
            assertTrue(o.out().contains(option), option);
        }
        String flat = o.out().replaceAll("\\s+", " ");
        assertTrue(flat.contains("Exit status: 0 every number within its band; 1 some number outside its band"), flat);
        assertTrue(flat.contains("3 a run failed (with --report: some experiment failed, which wins over 1"), flat);
        assertTrue(flat.contains("--format, --protocols, --accounts, --threads and --processes do not apply"), flat);
        assertTrue(MainTest.run("--help").out().contains("reproduce"), "listed by lockfabric --help");
    }

    @Test
    void jsonIsOneObjectWithEveryRowAndStatusOneWhenARowIsOutsideItsBand() {
        MainTest.Outcome o = reproduce(quick("shiftlock-2.3", "--format", "json"));
        assertEquals(Main.EXIT_VIOLATIONS, o.status(), "cas in its start-up collapse is far from the paper: "
                + o.out());
        List<String> lines = o.out().lines().toList();
        assertEquals(1, lines.size(), o.out());
        String json = lines.get(0);
        assertTrue(json.startsWith("{\"experiment\":\"shiftlock-2.3\",\"reference\":\"ShiftLock (FAST'25) §2.3\","),
                json);
        assertTrue(json.contains("\"within_bands\":false,\"tables\":[{\"title\":\"cas (SMART backoff) over its run\","
                + "\"columns\":[\"from\",\"to\",\"goodput Kops/s\",\"retries among CAS received %\","
                + "\"goodput of a run ending here Kops/s\"],"
                + "\"rows\":[[\"0 ms\",\"0.3 ms\","), json);
        assertTrue(json.contains("\"rows\":[{\"case\":\"ideal (no retries)\","
                + "\"metric\":\"goodput\",\"unit\":\"Kops/s\",\"paper\":278.3,\"sim\":"), json);
        assertEquals(6, json.split("\"within_band\":").length - 1, "six rows");
        assertEquals("", o.err(), "no progress noise when stderr is not a terminal");
    }

    @Test
    void tableShowsPaperAndSimulationSideBySide() {
        MainTest.Outcome o = reproduce(quick("shiftlock-2.3"));
        assertEquals(Main.EXIT_VIOLATIONS, o.status(), o.out());
        List<String> lines = o.out().lines().toList();
        assertEquals("# shiftlock-2.3: ShiftLock (FAST'25) §2.3", lines.get(0));
        assertTrue(lines.get(2).contains("measured ideal 3 ms after 1 ms"), lines.get(2));
        assertEquals("## cas (SMART backoff) over its run", lines.get(4));
        int header = lines.indexOf(lines.stream().filter(l -> l.startsWith("case ")).findFirst().orElseThrow());
        assertTrue(lines.get(header).matches("case +metric +paper +sim +unit +diff +band +verdict"), lines.get(header));
        assertTrue(lines.get(header + 1).startsWith("ideal (no retries)") && lines.get(header + 1).contains("278.3"),
                lines.get(header + 1));
        assertTrue(lines.stream().anyMatch(l -> l.endsWith("OUTSIDE")), o.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("\\d of 6 numbers OUTSIDE their bands \\(simulated in .* s\\)")),
                o.out());
        assertTrue(lines.get(lines.size() - 1).startsWith("The cas case is averaged"), "the discussion ends it");
    }

    /** Two experiments at tiny windows into a report: the summary on stdout, the page and plots in DIR. */
    @Test
    void reportRunsTheNamedExperimentsAndWritesThePage(@TempDir Path dir) throws IOException {
        MainTest.Outcome o = reproduce("shiftlock-2.3", "citron-fig10", "--report", dir.toString(),
                "--warmup", "300us", "--duration", "1ms");
        assertTrue(o.status() == Main.EXIT_OK || o.status() == Main.EXIT_VIOLATIONS, o.status() + ": " + o.err());
        assertTrue(o.out().startsWith("| experiment | paper | in band | out of band | wall time | status |"), o.out());
        assertTrue(o.out().contains("| [shiftlock-2.3](#shiftlock-2-3) |"), o.out());
        assertTrue(o.out().contains("| [citron-fig10](#citron-fig10) |"), o.out());
        assertTrue(o.out().contains("| **total** (2 experiments) |"), o.out());
        assertTrue(o.err().contains("[1/2] shiftlock-2.3: running") && o.err().contains("[2/2] citron-fig10: "),
                o.err());
        String page = Files.readString(dir.resolve("README.md"));
        assertTrue(page.contains("![shiftlock-2.3-goodput.png](shiftlock-2.3-goodput.png)"), page);
        assertTrue(Files.size(dir.resolve("shiftlock-2.3-goodput.png")) > 0);
        assertTrue(Files.size(dir.resolve("citron-fig10-fig10.png")) > 0);
    }
}
