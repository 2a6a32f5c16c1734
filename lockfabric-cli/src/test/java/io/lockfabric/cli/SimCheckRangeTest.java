package io.lockfabric.cli;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.lock.Mode;
import io.lockfabric.lock.RangeGrant;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lockfabric sim check} over range protocols: they run the range workload under faults,
 * seed by seed, and a violation is printed with the command that replays it.
 */
@Tag("seeds")
@Tag("faults")
class SimCheckRangeTest {
    @Test
    void rangeProtocolsAreSweptWithFaultsAndEachSeedReplaysAlone() {
        MainTest.Outcome sweep = MainTest.run("sim", "check", "--protocols", "citron,ss-exact,lld", "--seeds", "3",
                "--virtual-duration", "1ms", "--faults", "crash,pause", "--option", "citron.lease-ns=1ms",
                "--verbose");
        assertEquals(Main.EXIT_OK, sweep.status(), sweep.out() + sweep.err());
        assertTrue(sweep.out().startsWith("# sim check: 3 seeds from 1, faults crash=1,pause=1,"), sweep.out());
        assertTrue(sweep.out().contains(", ranges: N 4,096, L mixed, zipf 0.99, cs 1us, 1ms virtual"), sweep.out());
        assertFalse(sweep.out().contains("locks"), "no lock protocol, no lock workload in the header: " + sweep.out());
        for (String protocol : List.of("citron", "ss-exact", "lld")) {
            assertTrue(sweep.out().lines().anyMatch(l -> l.matches(protocol + " +3 .*")),
                    protocol + ": " + sweep.out());
        }
        assertTrue(sweep.out().contains("crashed clients: "), "faults were injected: " + sweep.out());
        MainTest.Outcome one = MainTest.run("sim", "check", "--protocols", "citron", "--seed", "2",
                "--virtual-duration", "1ms", "--faults", "crash,pause", "--option", "citron.lease-ns=1ms");
        assertEquals(Main.EXIT_OK, one.status(), one.err());
        String seed2 = one.out().lines().filter(l -> l.startsWith("# seed 2: ")).findFirst().orElseThrow();
        assertTrue(sweep.out().contains(seed2), "the seed alone replays what the sweep saw: " + seed2);
    }

    @Test
    void lockAndRangeProtocolsAreCheckedInOneSweep() {
        MainTest.Outcome o = MainTest.run("sim", "check", "--protocols", "cas,citron", "--seeds", "2",
                "--virtual-duration", "1ms", "--clients", "4", "--locks", "2", "--units", "1024",
                "--option", "lease-ns=1ms");
        assertEquals(Main.EXIT_OK, o.status(), o.err());
        assertTrue(o.out().contains(", 2 locks, zipf 0.99, 50% reads, cs 1, ranges: N 1,024, L mixed,"), o.out());
        assertTrue(o.out().lines().anyMatch(l -> l.matches("cas +2 .*")), o.out());
        assertTrue(o.out().lines().anyMatch(l -> l.matches("citron +2 .*")), o.out());
        for (String bad : new String[] {"nope", "juc"}) {
            MainTest.Outcome b = MainTest.run("sim", "check", "--protocols", "citron," + bad, "--seeds", "1");
            assertEquals(Main.EXIT_BAD_INPUT, b.status(), bad + ": " + b.err());
        }
        MainTest.Outcome unused = MainTest.run("sim", "check", "--protocols", "citron", "--seeds", "1",
                "--option", "no-such-option=1");
        assertEquals(Main.EXIT_BAD_INPUT, unused.status(), unused.err());
    }

    /** Grants every range at once, a little later than asked: no exclusion at all. */
    private static final class BrokenRangeLock implements RangeLockProtocol {
        private record FreeGrant(long start, long end) implements RangeGrant {
            @Override
            public Mode mode() {
                return Mode.EXCLUSIVE;
            }

            @Override
            public long fencingToken() {
                return 0;
            }
        }

        @Override
        public String name() {
            return "broken-range";
        }

        @Override
        public String description() {
            return "test only: grants every range at once";
        }

        @Override
        public boolean supportsShared() {
            return false;
        }

        @Override
        public boolean strictFencing() {
            return false;
        }

        @Override
        public TableSpec tableSpec(String tableName, LockOptions options) {
            return new TableSpec(tableName, name(), 1, 8);
        }

        @Override
        public RangeLockClient client(Endpoint endpoint, Table table, LockOptions options) {
            return new RangeLockClient() {
                @Override
                public RangeGrant acquire(long start, long end, Mode mode) {
                    endpoint.clock().sleepNanos(500);
                    return new FreeGrant(start, end);
                }

                @Override
                public void release(RangeGrant grant) {
                }
            };
        }
    }

    /** Runs {@code sim check} with the broken range lock resolvable by name; its output. */
    private static MainTest.Outcome checkWithBrokenLock(String... args) {
        SimCheckCommand command = new SimCheckCommand();
        command.extraRangeProtocols = List.of(new BrokenRangeLock());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = new CommandLine(command).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new MainTest.Outcome(status, out.toString(), err.toString());
    }

    @Test
    void aBrokenRangeLockIsCaughtAndItsReplayCommandCatchesItAgain() {
        MainTest.Outcome sweep = checkWithBrokenLock("--protocols", "broken-range", "--seeds", "2",
                "--virtual-duration", "500us", "--faults", "pause");
        assertEquals(Main.EXIT_VIOLATIONS, sweep.status(), sweep.out() + sweep.err());
        List<String> lines = sweep.out().lines().toList();
        int first = lines.indexOf(lines.stream().filter(l -> l.startsWith("VIOLATION broken-range seed 1: "))
                .findFirst().orElseThrow(() -> new AssertionError("seed 1 found nothing: " + sweep.out())));
        assertTrue(lines.get(first).contains("overlap"), lines.get(first));
        String replay = lines.get(first + 1).strip();
        assertTrue(replay.startsWith("replay: lockfabric sim check --protocols broken-range --seed 1 --faults "),
                replay);
        assertTrue(replay.contains(" --units 4096 --range-size mixed --zipf 0.99 --range-cs 1000ns"
                + " --virtual-duration 500000ns"), replay);
        assertTrue(sweep.err().contains("replay each with the command printed under it"), sweep.err());

        String[] args = replay.substring("replay: lockfabric sim check ".length()).split(" ");
        MainTest.Outcome again = checkWithBrokenLock(args);
        assertEquals(Main.EXIT_VIOLATIONS, again.status(), again.out() + again.err());
        assertTrue(again.out().contains(lines.get(first)), "the replay finds the same violation first: "
                + lines.get(first) + "\n" + again.out());
        assertTrue(Arrays.stream(args).noneMatch(a -> a.equals("--locks")), "no lock workload flag for a range lock");
    }
}
