package io.lockfabric.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.FabricTiming;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class LockOptionsTest {
    private static final LockOption BACKOFF = new LockOption("backoff-init-ns", 1_000, "initial backoff");
    private static final LockOption RETRIES = new LockOption("max-retries", 8, "retries");

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource({
            "backoff-init-ns=10ms, 10000000",
            "backoff-init-ns=1862ns, 1862",
            "backoff-init-ns=1862, 1862",
            "backoff-init-ns=3us, 3000",
            "backoff-init-ns=2s, 2000000000",
            "backoff-init-ns=inf, 9223372036854775807",
            "backoff-init-ns=INF, 9223372036854775807",
            "backoff-init-ns= 5 MS , 5000000",
            "max-retries=1_000, 1000",
            "max-retries=inf, 9223372036854775807",
            "max-retries=-3, -3",
    })
    void parsesValuesAndUnits(String pair, long expected) {
        LockOptions o = LockOptions.parse(List.of(pair));
        String name = pair.substring(0, pair.indexOf('=')).trim();
        assertEquals(expected, o.asMap().get(name), "parse(\"" + pair + "\")");
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"max-retries=10ms", "backoff-init-ns=ten", "noequals", "=5", "max-retries=",
            "backoff-init-ns=10000000000000s", "max-retries=1.5"})
    void rejectsMalformedPairs(String pair) {
        assertThrows(IllegalArgumentException.class, () -> LockOptions.parse(List.of(pair)),
                "\"" + pair + "\" must be rejected (units only on -ns options, numbers only, no overflow)");
    }

    @Test
    void defaultsApplyToOptionsNotGiven() {
        LockOptions o = LockOptions.parse(List.of("max-retries=3"));
        assertEquals(3, o.get(RETRIES), "given");
        assertEquals(1_000, o.get(BACKOFF), "default");
        assertTrue(o.isSet("max-retries"), "isSet for a given option");
        assertFalse(o.isSet("backoff-init-ns"), "isSet for an option not given");
        assertEquals(1_000, LockOptions.DEFAULTS.get(BACKOFF), "DEFAULTS gives defaults");
    }

    @Test
    void validateAcceptsKnownAndRejectsUnknownOptions() {
        LockOptions ok = LockOptions.parse(List.of("max-retries=3", "backoff-init-ns=1us"));
        assertSame(ok, ok.validate("cas", List.of(RETRIES, BACKOFF)), "validate returns this");
        LockOptions typo = LockOptions.parse(List.of("max-retrys=3"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> typo.validate("cas", List.of(RETRIES, BACKOFF)), "a misspelt option");
        assertTrue(e.getMessage().contains("max-retrys") && e.getMessage().contains("max-retries"),
                "the error names the unknown option and the known ones: " + e.getMessage());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> typo.validate("juc", List.of()), "any option for a protocol with none");
        assertTrue(none.getMessage().contains("none"), "says the protocol has no options: " + none.getMessage());
    }

    private static final LockOption POLICY = LockOption.choice("policy", "a choice", "first", "second-one");
    private static final FabricTiming SLOW = new FabricTiming(40_000, 2_000_000);
    private static final LockOption LEASE = LockOption.wait("lease-ns", t -> t.scaled(10_000_000), "a lease");
    private static final LockOption T_WAIT = LockOption.wait("t-wait-ns", t -> t.scaled(15_000, 1), "a bound");

    /**
     * Parsing needs no protocol (no registry): a word is kept as given, and the option it is for
     * resolves it, with the error the CLI has always printed for a bad choice.
     */
    @Test
    void choiceNamesAreResolvedByTheirOwnOption() {
        LockOptions o = LockOptions.parse(List.of("policy=Second-One"));
        assertTrue(o.isSet("policy"));
        assertSame(o, o.validate("p", List.of(POLICY, RETRIES)), "a known choice validates");
        assertEquals(1, o.get(POLICY), "and reads as its index");
        LockOptions bad = LockOptions.parse(List.of("policy=third"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> bad.validate("p", List.of(POLICY)), "an unknown choice");
        assertEquals("option policy: 'third' is not one of [first, second-one]", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> bad.get(POLICY), "also when read without validating");
        IllegalArgumentException word = assertThrows(IllegalArgumentException.class,
                () -> LockOptions.parse(List.of("max-retries=many")).validate("cas", List.of(RETRIES)),
                "a word for an option without choices");
        assertEquals("option max-retries: 'many' is not a number", word.getMessage());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> LockOptions.parse(List.of("colour=red")).validate("cas", List.of(RETRIES)), "an unknown option");
        assertTrue(unknown.getMessage().contains("has no option 'colour'"), unknown.getMessage());
        assertEquals(7, LockOptions.parse(List.of("policy=first", "policy=7")).get(POLICY), "the last pair wins");
        assertEquals(0, LockOptions.parse(List.of("policy=7", "policy=first")).get(POLICY), "either way");
        IllegalArgumentException duration = assertThrows(IllegalArgumentException.class,
                () -> LockOptions.parse(List.of("backoff-init-ns=soon")), "-ns options have no choices");
        assertEquals("option backoff-init-ns: 'soon' is not a number or a duration", duration.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LockOption.choice("wait-ns", "no", "a"),
                "a duration cannot have choices");
    }

    @Test
    void waitsTakeTheDefaultOfTheFabricTheOptionsAreBoundTo() {
        assertEquals(10_000_000, LEASE.defaultValue(), "the reference (RDMA) default");
        assertTrue(LEASE.isTimed() && !RETRIES.isTimed());
        assertEquals(10_000_000, LockOptions.DEFAULTS.get(LEASE), "unbound: the reference");
        assertEquals(10_000_000, LockOptions.DEFAULTS.on(FabricTiming.RDMA).get(LEASE), "RDMA: the reference, exactly");
        LockOptions slow = LockOptions.DEFAULTS.on(SLOW);
        assertEquals(200_000_000, slow.get(LEASE), "20 x the round trip");
        assertEquals(2_300_000, slow.get(T_WAIT), "and a stall");
        assertEquals(8, slow.get(RETRIES), "a fixed default stays");
        assertSame(SLOW, slow.timing());
        LockOptions given = LockOptions.parse(List.of("lease-ns=3ms")).on(SLOW);
        assertEquals(3_000_000, given.get(LEASE), "a value given wins");
        assertSame(slow, slow.onUnlessBound(FabricTiming.RDMA), "bound options keep their timing");
        assertEquals(FabricTiming.RDMA, LockOptions.DEFAULTS.onUnlessBound(FabricTiming.RDMA).timing());
        assertThrows(IllegalArgumentException.class,
                () -> new LockOption("x-ns", 5, "d", List.of(), t -> 6), "a timed default is its default on RDMA");
    }

    @Test
    void timedDefaultsListTheWaitsAFabricMovesAsPairsThatParseBack() {
        List<LockOption> options = List.of(RETRIES, LEASE, T_WAIT, BACKOFF);
        assertEquals(List.of(), LockOptions.timedDefaults(FabricTiming.RDMA, options), "nothing moves on RDMA");
        List<String> pairs = LockOptions.timedDefaults(SLOW, options);
        assertEquals(List.of("lease-ns=200ms", "t-wait-ns=2.3ms"), pairs);
        LockOptions back = LockOptions.parse(pairs);
        assertEquals(LockOptions.DEFAULTS.on(SLOW).get(T_WAIT), back.get(T_WAIT), "they parse back to the same value");
        LockOption odd = LockOption.wait("odd-ns", t -> t.scaled(1_000_001), "not a round number");
        assertEquals(List.of("odd-ns=20000020"), LockOptions.timedDefaults(SLOW, List.of(odd)),
                "a value no unit writes exactly is given in ns");
    }

    @Test
    void laterPairsOverrideEarlierOnes() {
        assertEquals(7, LockOptions.parse(List.of("max-retries=3", "max-retries=7")).get(RETRIES),
                "the last value of a repeated option wins");
    }
}
