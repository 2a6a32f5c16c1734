package io.lockfabric.cli;

import io.lockfabric.protocols.LockProtocols;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MainTest {
    /** What one in-process run of the command printed, and its exit status. */
    record Outcome(int status, String out, String err) {
    }

    static Outcome run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Outcome(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "bench", "range-bench", "sim check", "reproduce", "protocols", "serve", "tables",
        "tables list", "api-bench"})
    void everyCommandPrintsTheVersion(String command) {
        List<String> args = new java.util.ArrayList<>(command.isEmpty() ? List.of() : List.of(command.split(" ")));
        args.add("-V");
        Outcome o = run(args.toArray(String[]::new));
        assertEquals(0, o.status(), o.err());
        assertEquals(Main.VERSION, o.out().strip(), "'" + command + " -V'");
    }

    @Test
    void benchJsonIsOneObjectPerProtocol() {
        Outcome o = run("bench", "--protocols", "juc", "--ops", "1000", "--clients", "2", "--format", "json", "--check");
        assertEquals(0, o.status(), o.err());
        String[] lines = o.out().strip().split("\n");
        assertEquals(1, lines.length, o.out());
        String json = lines[0];
        assertTrue(json.startsWith("{\"protocol\":\"juc\",\"fabric\":\"local\",\"parameters\":{"), json);
        assertTrue(json.endsWith("}"), json);
        assertTrue(json.contains("\"measured_ops\":1000,"), json);
        assertTrue(json.contains("\"ops\":1000,"), json);
        assertTrue(json.contains("\"ops_per_cycle\":{\"read\":0,\"write\":0,\"cas\":0,\"faa\":0,\"mcas\":0,\"mfaa\":0,"
                + "\"mcas128\":0,\"mfaa128\":0,\"send\":0,\"rpc\":0}"), json);
        assertTrue(json.contains("\"check\":{\"enabled\":true,\"clean\":true,"), json);
        assertTrue(json.contains("\"latency_us\":{\"p50\":"), json);
        assertTrue(json.contains("\"acquire_latency_us\":{\"p50\":"), json);
        assertEquals("", o.err(), "no progress noise when not on a terminal");
    }

    @Test
    void benchWithoutProtocolsRunsEveryRegisteredOne() {
        Outcome o = run("bench", "--ops", "400", "--clients", "2", "--locks", "10", "--format", "csv");
        assertEquals(0, o.status(), o.err());
        List<String> lines = o.out().strip().lines().toList();
        assertEquals(1 + LockProtocols.all().size(), lines.size(), o.out());
        assertTrue(lines.get(0).startsWith("protocol,fabric,clients,locks,"));
        for (int i = 0; i < LockProtocols.all().size(); i++) {
            assertTrue(lines.get(i + 1).startsWith(LockProtocols.all().get(i).name() + ",local,2,10,"), lines.get(i + 1));
        }
    }

    @Test
    void benchTableHasAHeaderAndARowPerProtocol() {
        Outcome o = run("bench", "--protocols", "juc", "--duration", "200ms", "--warmup", "50ms", "--clients", "2");
        assertEquals(0, o.status(), o.err());
        List<String> lines = o.out().lines().toList();
        assertTrue(lines.get(0).startsWith("# local fabric: 2 clients"), lines.get(0));
        assertTrue(lines.get(1).startsWith("protocol"), lines.get(1));
        assertTrue(lines.get(2).startsWith("juc"), lines.get(2));
        assertTrue(lines.get(2).endsWith("off"), lines.get(2));
    }

    @Test
    void outputGoesToTheFileWhenAsked(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("r.json");
        Outcome o = run("bench", "--protocols", "juc", "--ops", "100", "--format", "json", "--output", file.toString());
        assertEquals(0, o.status(), o.err());
        assertEquals("", o.out());
        assertTrue(Files.readString(file).startsWith("{\"protocol\":\"juc\""));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "--protocols nope",
            "--clients -3",
            "--clients 0",
            "--locks 0",
            "--read-ratio 1.5",
            "--read-ratio -0.1",
            "--zipf -1",
            "--cs -1",
            "--ops -5",
            "--duration 5",
            "--duration -1s",
            "--ops 10 --duration 1s",
            "--fabric tcp",
            "--format xml",
            "--option nosuch=1",
            "--option juc.nosuch=1",
            "--option nosuch.x=1",
            "--option novalue",
            "--clients many",
            "--bogus"})
    void badInputIsOneLineAndStatusTwo(String args) {
        String[] argv = ("bench " + args).split(" ");
        Outcome o = run(argv);
        assertEquals(Main.EXIT_BAD_INPUT, o.status(), args + " -> " + o.err());
        assertEquals(1, o.err().strip().lines().count(), o.err());
        assertTrue(o.err().startsWith("lockfabric: "), o.err());
        assertFalse(o.err().contains("Exception") || o.err().contains("\tat "), o.err());
        assertEquals("", o.out());
    }

    @Test
    void unknownFabricSaysWhatExists() {
        Outcome o = run("bench", "--fabric", "tcp");
        assertEquals("lockfabric: unknown fabric 'tcp': give local, sim or tcp://HOST:PORT", o.err().strip());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "--fabric sim --duration 1s",
            "--cns 2",
            "--faults crash",
            "--virtual-duration 5ms",
            "--fabric sim --faults bogus",
            "--fabric sim --faults pause=-1",
            "--fabric sim --faults crash --ops 100",
            "--fabric sim --protocols juc",
            "--fabric sim --clients 3 --cns 2",
            "--fabric sim --clients 4 --cns 2 --clients-per-cn 3",
            "--fabric sim --mns 0"})
    void badSimInputIsOneLineAndStatusTwo(String args) {
        Outcome o = run(("bench " + args).split(" "));
        assertEquals(Main.EXIT_BAD_INPUT, o.status(), args + " -> " + o.err());
        assertEquals(1, o.err().strip().lines().count(), o.err());
        assertTrue(o.err().startsWith("lockfabric: "), o.err());
    }

    @Test
    void benchOnTheSimulatorIsVirtualAndReplaysExactly() {
        String[] args = {"bench", "--fabric", "sim", "--cns", "2", "--clients-per-cn", "2", "--mns", "2",
                "--protocols", "cas,dslr", "--locks", "4", "--virtual-duration", "2ms", "--warmup", "0s",
                "--format", "json", "--seed", "3"};
        Outcome first = run(args);
        Outcome again = run(args);
        assertEquals(0, first.status(), first.err());
        List<String> lines = first.out().strip().lines().toList();
        assertEquals(2, lines.size(), first.out());
        assertTrue(lines.get(0).startsWith("{\"protocol\":\"cas\",\"fabric\":\"sim\""), lines.get(0));
        assertTrue(lines.get(0).contains("\"clients\":4,"), lines.get(0));
        assertTrue(lines.get(0).contains("\"faults\":{\"plan\":\"none\",\"scheduled\":[],"), lines.get(0));
        assertEquals(first.out(), again.out(), "virtual time and one seed: the same report byte for byte");
    }

    @Test
    void benchWithFaultsDescribesThem() {
        Outcome o = run("bench", "--fabric", "sim", "--clients", "4", "--protocols", "dslr", "--locks", "1",
                "--virtual-duration", "3ms", "--warmup", "0s", "--faults", "crash=2,pause@1ms", "--seed", "2",
                "--option", "lease-ns=1ms", "--option", "max-wait-ns=100us");
        assertEquals(0, o.status(), o.err());
        assertTrue(o.out().contains("faults crash=2,pause=1@1ms"), o.out());
        assertTrue(o.out().contains("# dslr faults crash=2,pause=1@1ms: "), o.out());
        assertTrue(o.out().contains("crashed clients: "), o.out());
    }

    @Test
    void simCheckSweepsSeedsAndEachSeedReplaysAlone() {
        Outcome sweep = run("sim", "check", "--protocols", "cas,dslr", "--seeds", "5", "--virtual-duration", "2ms",
                "--clients", "4", "--locks", "2", "--verbose", "--option", "dslr.lease-ns=1ms",
                "--option", "dslr.max-wait-ns=100us");
        assertEquals(0, sweep.status(), sweep.err());
        assertTrue(sweep.out().startsWith("# sim check: 5 seeds from 1, faults crash=1,pause=1,"), sweep.out());
        assertTrue(sweep.out().lines().anyMatch(l -> l.matches("cas +5 .*")), sweep.out());
        assertTrue(sweep.out().lines().anyMatch(l -> l.matches("dslr +5 .*")), sweep.out());
        Outcome one = run("sim", "check", "--protocols", "dslr", "--seed", "4", "--virtual-duration", "2ms",
                "--clients", "4", "--locks", "2", "--option", "dslr.lease-ns=1ms",
                "--option", "dslr.max-wait-ns=100us");
        assertEquals(0, one.status(), one.err());
        String seed4 = one.out().lines().filter(l -> l.startsWith("# seed 4: ")).findFirst().orElseThrow();
        assertTrue(sweep.out().contains(seed4), "the seed alone replays what the sweep saw: " + seed4);
    }

    @ParameterizedTest
    @ValueSource(strings = {"--seeds 0", "--protocols juc", "--faults nope", "--clients 3", "--virtual-duration 0s",
            "--option dslr.lease-ns=1ms"})
    void badSimCheckInputIsStatusTwo(String args) {
        Outcome o = run(("sim check " + args).split(" "));
        assertEquals(Main.EXIT_BAD_INPUT, o.status(), args + " -> " + o.err());
        assertTrue(o.err().startsWith("lockfabric: "), o.err());
    }

    @Test
    void helpExplainsEveryOption() {
        Outcome o = run("bench", "--help");
        assertEquals(0, o.status());
        for (String option : List.of("--fabric", "--protocols", "--clients", "--locks", "--zipf", "--read-ratio", "--cs",
                "--duration", "--ops", "--warmup", "--seed", "--format", "--check", "--option", "--output", "--cns",
                "--clients-per-cn", "--mns", "--virtual-duration", "--faults")) {
            assertTrue(o.out().contains(option), option);
        }
        assertTrue(o.out().contains("Default: 8 (sim"), "clients default");
        assertTrue(o.out().contains("Default: 0.99."), "zipf default");
        assertTrue(o.out().replaceAll("\\s+", " ").contains("Registered protocols: " + String.join(", ", LockProtocols.names())),
                o.out());
        Outcome top = run("--help");
        assertEquals(0, top.status());
        assertTrue(top.out().contains("bench") && top.out().contains("protocols") && top.out().contains("sim"));
        Outcome check = run("sim", "check", "--help");
        assertEquals(0, check.status());
        for (String option : List.of("--protocols", "--seeds", "--first-seed", "--seed", "--faults", "--cns",
                "--clients-per-cn", "--mns", "--virtual-duration", "--option", "Exit status")) {
            assertTrue(check.out().contains(option), option);
        }
    }

    @Test
    void serveHelpNamesEveryServiceAndHowToStop() {
        Outcome o = run("serve", "--help");
        assertEquals(0, o.status(), o.err());
        String help = o.out().replaceAll("\\s+", " ");
        for (String service : List.of("rpc:", "shiftlock:", "citron:", "rpc-range:", "mt:", "llc:")) {
            assertTrue(help.contains(service), service + " in\n" + o.out());
        }
        assertFalse(help.contains(" dslr:"), "dslr tables have no service");
        assertTrue(help.contains("kill %1"), "how to stop a server started in the background");
    }

    @Test
    void protocolsListsEveryRegisteredProtocol() {
        Outcome o = run("protocols");
        assertEquals(0, o.status());
        for (var p : LockProtocols.all()) {
            assertTrue(o.out().contains(p.name() + "\n") || o.out().contains(p.name() + System.lineSeparator()), p.name());
            assertTrue(o.out().contains(p.description()), p.description());
            assertTrue(o.out().contains("failure model: " + p.failureModel(io.lockfabric.lock.LockOptions.DEFAULTS)
                    .describe()), p.name());
        }
        assertTrue(o.out().contains("failure model: waiters skip a crashed writer after 2 x lease"), o.out());
        assertTrue(o.out().contains("(lease 10ms, recovery bound 23.5ms per crashed client)"), o.out());
        assertTrue(o.out().contains("learns of it at release (readers hold at most 500us)"), "drtm's read lease");
        for (var p : io.lockfabric.protocols.RangeLockProtocols.all()) {
            assertTrue(o.out().contains(p.name() + "\n") || o.out().contains(p.name() + System.lineSeparator()), p.name());
            assertTrue(o.out().contains(p.description()), p.description());
            assertTrue(o.out().contains("failure model: " + p.failureModel(io.lockfabric.lock.LockOptions.DEFAULTS)
                    .describe()), p.name());
        }
        assertTrue(o.out().contains("(lease 1s, recovery bound 33.034s per crashed client)"), "citron's bound");
        // the bound once per protocol, as a duration: no raw nanoseconds, no second "recovers within"
        List<String> models = o.out().lines().filter(l -> l.contains("failure model:")).toList();
        assertEquals(LockProtocols.all().size() + io.lockfabric.protocols.RangeLockProtocols.all().size(), models.size());
        for (String line : models) {
            assertFalse(line.matches(".*\\d{4,} ?ns\\b.*"), "raw nanoseconds: " + line);
            assertFalse(line.contains("within"), "a bound in the summary: " + line);
            assertTrue(line.indexOf("recovery bound") == line.lastIndexOf("recovery bound"), line);
        }
        String[] blocks = o.out().split("\\R(?=\\S)");
        for (String block : blocks) {
            assertTrue(block.split("recovery bound", -1).length <= 2, "one recovery bound per protocol: " + block);
        }
        assertTrue(o.out().contains("--option declock-tf.policy=VALUE   (default timestamp)"), "choices by name");
        assertTrue(o.out().contains("--option dslr.lease-ns=VALUE   (default 10ms)"), "durations with a unit");
        assertTrue(o.out().contains("--option ss.lease-ns=VALUE   (default inf)"), "no limit as inf");
        assertTrue(o.out().contains("--option citron.units=VALUE   (default 268435456)"), o.out());
    }
}
