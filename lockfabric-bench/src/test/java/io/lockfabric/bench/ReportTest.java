package io.lockfabric.bench;

import io.lockfabric.bench.point.PointWorkload;

import io.lockfabric.fabric.VerbKind;
import io.lockfabric.local.LocalFabric;
import io.lockfabric.lock.juc.JucProtocol;
import io.lockfabric.protocols.LockProtocols;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReportTest {
    private static RunResult result;

    @BeforeAll
    static void run() {
        PointWorkload config = PointWorkload.builder().clients(2).locks(8).operations(500).warmupNs(0)
                .cs(2).readRatio(0).check(true).build();
        try (LocalFabric fabric = LocalFabric.builder().build()) {
            result = new Runner(RunDriver.threads(fabric), false, new PrintStream(OutputStream.nullOutputStream()))
                    .run(LockProtocols.byName(JucProtocol.NAME), config);
        }
    }

    @Test
    void jsonIsOneParsableObjectPerRunWithTheDocumentedKeys() {
        String text = new JsonReport().render(List.of(result, result));
        String[] lines = text.split("\n");
        assertEquals(2, lines.length);
        Map<String, Object> o = MiniJson.object(MiniJson.parse(lines[0]));
        assertEquals("juc", o.get("protocol"));
        assertEquals("local", o.get("fabric"));
        Map<String, Object> params = MiniJson.object(o.get("parameters"));
        assertEquals(2.0, params.get("clients"));
        assertEquals(8.0, params.get("locks"));
        assertEquals(500.0, params.get("ops"));
        assertEquals(result.goodput(), (Double) o.get("goodput"), 1e-9 * result.goodput());
        for (String latency : List.of("latency_us", "acquire_latency_us")) {
            assertEquals(java.util.Set.of("p50", "p99", "p999"), MiniJson.object(o.get(latency)).keySet());
        }
        List<String> kinds = List.of("read", "write", "cas", "faa", "mcas", "mfaa", "mcas128", "mfaa128", "send", "rpc");
        Map<String, Object> lockOps = MiniJson.object(o.get("ops_per_cycle"));
        Map<String, Object> csOps = MiniJson.object(o.get("cs_ops_per_cycle"));
        assertEquals(kinds, List.copyOf(lockOps.keySet()));
        assertEquals(kinds, List.copyOf(csOps.keySet()));
        assertEquals(3.0, csOps.get("write"));
        assertEquals(1.0, csOps.get("read"));
        assertEquals(0.0, lockOps.get("cas"));
        assertEquals(0.0, o.get("retries"));
        assertEquals(0.0, o.get("aborts"));
        Map<String, Object> check = MiniJson.object(o.get("check"));
        assertEquals(Boolean.TRUE, check.get("clean"));
        assertEquals(List.of(), check.get("violations"));
        assertEquals(Boolean.TRUE, MiniJson.object(o.get("cross_check")).get("agree"));
    }

    @Test
    void jsonStringsAreEscaped() {
        StringBuilder sb = new StringBuilder();
        String nasty = "a\"b\\c\nd\te\u0001f\u2028g/é";
        new JsonWriter(sb).beginObject().name("k\"").value(nasty).name("n").value(Double.NaN)
                .name("a").beginArray().value(1.5).value(2).value(true).endArray().endObject();
        Map<String, Object> o = MiniJson.object(MiniJson.parse(sb.toString()));
        assertEquals(nasty, o.get("k\""));
        assertTrue(o.containsKey("n") && o.get("n") == null, "NaN is written as null");
        assertEquals(List.of(1.5, 2.0, true), o.get("a"));
    }

    @Test
    void csvHasAHeaderAndOneRowPerRunOfEqualWidth() {
        String[] lines = new CsvReport().render(List.of(result)).split("\n");
        assertEquals(2, lines.length);
        String[] header = lines[0].split(",");
        String[] row = lines[1].split(",");
        assertEquals(header.length, row.length);
        assertEquals("protocol", header[0]);
        assertEquals("juc", row[0]);
        int csWrite = List.of(header).indexOf("cs_ops_" + VerbKind.WRITE.label());
        assertEquals("3.0", row[csWrite]);
        assertEquals("ok", row[List.of(header).indexOf("check")]);
        assertEquals("\"a,b\"", CsvReport.quote("a,b"));
        assertEquals("\"say \"\"hi\"\"\"", CsvReport.quote("say \"hi\""));
    }

    @Test
    void tableIsAlignedAndCompact() {
        String[] lines = new TableReport().render(List.of(result, result)).split("\n");
        assertEquals(3, lines.length);
        assertTrue(lines[0].startsWith("protocol"));
        assertTrue(lines[1].startsWith("juc "));
        assertTrue(lines[1].contains("3.00 write + 1.00 read") || lines[1].contains("1.00 read + 3.00 write"), lines[1]);
        assertTrue(lines[1].endsWith("ok"), lines[1]);
        int goodputEnd = lines[0].indexOf("goodput Kops/s") + "goodput Kops/s".length();
        assertEquals(' ', lines[1].charAt(goodputEnd), "numbers right-aligned under their header");
        assertTrue(Character.isDigit(lines[1].charAt(goodputEnd - 1)), lines[1]);
    }
}
