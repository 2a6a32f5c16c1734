package io.lockfabric.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lockfabric txn}: TATP and SmallBank on the local fabric through the client API (a report in
 * each format, SmallBank's conservation check), TPC-C on the simulator through bench's txn workload,
 * every option in the help, and bad input as one line with status 2.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TxnCommandTest {
    @Test
    void tatpOnTheLocalFabricReportsEveryTypeInEveryFormat() {
        MainTest.Outcome json = MainTest.run("txn", "--workload", "tatp", "--protocol", "dslr,shiftlock,mcs", "--clients", "2",
                "--duration", "300ms", "--warmup", "50ms", "--format", "json", "--option", "lease-ns=2s",
                "--option", "shiftlock.threshold=8");
        assertEquals(Main.EXIT_OK, json.status(), json.err());
        assertEquals(3, json.out().lines().count(), "an option applies to the protocols that have it:\n" + json.out());
        assertTrue(json.out().contains("\"locker\":\"lockfabric/dslr\"") && json.out().contains("\"name\":\"UpdateLocation\"")
                && json.out().contains("\"cdf\":[[") && json.out().contains("\"conservation\":{\"checked\":false,\"ok\":true}"),
                json.out());
        MainTest.Outcome csv = MainTest.run("txn", "--workload", "tpcc", "--warehouses", "2", "--clients", "2",
                "--duration", "200ms", "--warmup", "0s", "--format", "csv");
        assertEquals(Main.EXIT_OK, csv.status(), csv.err());
        assertEquals(1 + 6, csv.out().lines().count(), "a header, 5 types and all:\n" + csv.out());
        assertTrue(csv.out().startsWith("locker,fabric,workload,clients,measured_s,type,committed,goodput,p50_us,"), csv.out());
        MainTest.Outcome table = MainTest.run("txn", "--clients", "2", "--duration", "200ms", "--warmup", "0s", "--work", "0s");
        assertEquals(Main.EXIT_OK, table.status(), table.err());
        assertTrue(table.out().contains("GetSubscriberData") && table.out().contains("lock wait")
                && table.out().contains("conservation -"), table.out());
    }

    @Test
    void smallBankOnTheLocalFabricConservesMoney() {
        MainTest.Outcome o = MainTest.run("txn", "--workload", "smallbank", "--smallbank", "declock", "--accounts", "50",
                "--clients", "4", "--duration", "300ms", "--warmup", "50ms", "--option", "lease-ns=2s");
        assertEquals(Main.EXIT_OK, o.status(), o.err());
        assertTrue(o.out().contains("conservation ok") && o.out().contains("SendPayment"), o.out());
    }

    @Test
    void tpccOnTheSimulatorIsBenchsTxnWorkload() {
        MainTest.Outcome o = MainTest.run("txn", "--workload", "tpcc", "--fabric", "sim", "--protocol", "shiftlock",
                "--clients", "8", "--warehouses", "1", "--duration", "2ms", "--warmup", "200us", "--format", "json");
        assertEquals(Main.EXIT_OK, o.status(), o.err());
        assertTrue(o.out().contains("\"fabric\":\"sim\"") && o.out().contains("\"name\":\"Delivery\"")
                && o.out().contains("\"locks_per_txn\":"), o.out());
    }

    @Test
    void theHelpExplainsEveryOption() {
        MainTest.Outcome help = MainTest.run("txn", "--help");
        assertEquals(Main.EXIT_OK, help.status());
        String text = help.out().replaceAll("\\s+", " ");
        for (String option : new String[] {"--workload", "--fabric", "--protocol", "--locks", "--redis", "--clients",
                "--duration", "--warmup", "--seed", "--smallbank", "--accounts", "--warehouses", "--work", "--slots", "--option",
                "--format", "--output", "Exit status"}) {
            assertTrue(text.contains(option), option + " not in:\n" + help.out());
        }
    }

    @Test
    void badInputIsOneLineAndStatusTwo() {
        for (String[] args : new String[][] {{"txn", "--workload", "ycsb"}, {"txn", "--format", "xml"},
                {"txn", "--protocol", "nope"}, {"txn", "--clients", "0"}, {"txn", "--duration", "0s"},
                {"txn", "--locks", "etcd"}, {"txn", "--locks", "redis"}, {"txn", "--redis", "redis://127.0.0.1:1", "--fabric", "sim"},
                {"txn", "--locks", "redis", "--redis", "http://127.0.0.1:1"},
                {"txn", "--smallbank", "tpcc", "--workload", "smallbank"}, {"txn", "--workload", "smallbank", "--fabric", "sim"},
                {"txn", "--fabric", "nowhere"}, {"txn", "--warehouses", "0"},
                {"txn", "--fabric", "sim", "--option", "nope=1"}, {"txn", "--option", "nope=1"}}) {
            MainTest.Outcome o = MainTest.run(args);
            assertEquals(Main.EXIT_BAD_INPUT, o.status(), String.join(" ", args) + ": " + o.err());
            assertEquals(1, o.err().lines().count(), String.join(" ", args) + ": " + o.err());
        }
    }
}
