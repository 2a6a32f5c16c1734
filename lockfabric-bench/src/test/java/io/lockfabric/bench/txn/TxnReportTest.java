package io.lockfabric.bench.txn;

import io.lockfabric.bench.ReportFormat;
import io.lockfabric.txn.SmallBank;
import io.lockfabric.txn.TxnMetrics;
import io.lockfabric.txn.TxnResult;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The txn command's report: a row per type and one for all, and a conservation check that can fail. */
class TxnReportTest {
    private static TxnResult result() {
        TxnMetrics m = new TxnMetrics(SmallBank.TYPES);
        m.committed(SmallBank.SEND_PAYMENT, 20_000, 5_000, 2, 0, 2, 0);
        m.committed(SmallBank.BALANCE, 10_000, 1_000, 2, 2, 0, 0);
        m.committed(SmallBank.DEPOSIT_CHECKING, 12_000, 2_000, 1, 0, 1, 130);
        return m.result("smallbank", "lockfabric/shiftlock", 2, 1_000_000_000L);
    }

    @Test
    void everyFormatHasEveryTypeAndTheConservationCheck() {
        TxnResult r = result();
        TxnReport.Run ok = new TxnReport.Run("local", r, new TxnReport.Conservation(true, 130, 130));
        TxnReport.Run lost = new TxnReport.Run("local", r, new TxnReport.Conservation(true, 130, -370));
        assertTrue(ok.conservation().ok());
        assertFalse(lost.conservation().ok());
        assertEquals("VIOLATED (total -370, expected 130: -500)", lost.conservation().summary());
        String table = TxnReport.render(ReportFormat.TABLE, List.of(ok, lost));
        assertTrue(table.contains("SendPayment") && table.contains("conservation ok")
                && table.contains("conservation VIOLATED"), table);
        String csv = TxnReport.render(ReportFormat.CSV, List.of(ok));
        assertEquals(1 + SmallBank.TYPES.size() + 1, csv.lines().count(), "a header, a row per type, all:\n" + csv);
        assertTrue(csv.lines().skip(1).allMatch(l -> l.endsWith(",ok")), csv);
        String json = TxnReport.render(ReportFormat.JSON, List.of(ok, lost));
        assertEquals(2, json.lines().count(), json);
        assertTrue(json.contains("\"conservation\":{\"checked\":true,\"expected_total\":130,\"total\":-370,"
                + "\"balances_checked\":0,\"balances_differing\":0,\"ok\":false}"), json);
        // a transfer applied twice: the total is right, two balances are not
        TxnReport.Conservation twice = new TxnReport.Conservation(true, 130, 130, 40, 2,
                "account 3 checking: expected 100, found 600, account 7 checking: expected 900, found 400");
        assertFalse(twice.ok());
        assertEquals("VIOLATED (total ok; 2 of 40 balances differ, first: account 3 checking: expected 100, found 600, "
                + "account 7 checking: expected 900, found 400)", twice.summary());
        assertTrue(json.contains("\"all\":{\"name\":\"all\",\"committed\":3,"), json);
        assertEquals("", TxnReport.render(ReportFormat.TABLE, List.of()));
    }
}
