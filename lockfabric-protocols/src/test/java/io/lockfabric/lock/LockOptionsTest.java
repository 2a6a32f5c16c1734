package io.lockfabric.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @Test
    void laterPairsOverrideEarlierOnes() {
        assertEquals(7, LockOptions.parse(List.of("max-retries=3", "max-retries=7")).get(RETRIES),
                "the last value of a repeated option wins");
    }
}
