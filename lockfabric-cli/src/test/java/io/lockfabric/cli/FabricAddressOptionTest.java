package io.lockfabric.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --fabric} takes any address {@code Fabrics.open} reads: a sim address's parameters are the
 * cluster flags' twins (the same cluster, the same report byte for byte), the flags are the
 * address's defaults, and a bad address is one line of bad input.
 */
class FabricAddressOptionTest {
    private static final List<String> SIM_RUN = List.of("--protocols", "cas,dslr", "--locks", "4",
            "--virtual-duration", "2ms", "--warmup", "0s", "--format", "json", "--seed", "3");

    private static MainTest.Outcome bench(String... args) {
        List<String> argv = new ArrayList<>(List.of("bench"));
        argv.addAll(List.of(args));
        argv.addAll(SIM_RUN);
        return MainTest.run(argv.toArray(String[]::new));
    }

    @Test
    void aSimAddressDescribesTheSameClusterAsTheFlags() {
        MainTest.Outcome flags = bench("--fabric", "sim", "--cns", "2", "--clients-per-cn", "2", "--mns", "2");
        assertEquals(Main.EXIT_OK, flags.status(), flags.err());
        for (String[] same : List.of(
                new String[] {"--fabric", "sim:cns=2,clients-per-cn=2,mns=2"},
                new String[] {"--fabric", "sim:cns=2,mns=2", "--clients", "4"},
                new String[] {"--fabric", "sim:clients=4,cns=2", "--mns", "2"},
                new String[] {"--fabric", "sim:cns=2,clients-per-cn=2,mns=2,seed=3", "--cns", "2"})) {
            MainTest.Outcome o = bench(same);
            assertEquals(Main.EXIT_OK, o.status(), String.join(" ", same) + ": " + o.err());
            assertEquals(flags.out(), o.out(), String.join(" ", same));
        }
        assertTrue(flags.out().contains("\"fabric\":\"sim\""), flags.out());
    }

    @Test
    void theMemoryNodesLinkIsAFlagOrAnAddressParameter() {
        MainTest.Outcome flag = bench("--fabric", "sim", "--cns", "2", "--clients-per-cn", "2", "--mn-link-gbps", "100");
        assertEquals(Main.EXIT_OK, flag.status(), flag.err());
        MainTest.Outcome address = bench("--fabric", "sim:cns=2,clients-per-cn=2,mn-link-gbps=100");
        assertEquals(Main.EXIT_OK, address.status(), address.err());
        assertEquals(flag.out(), address.out());
        MainTest.Outcome table = MainTest.run("bench", "--fabric", "sim", "--mn-link-gbps", "100", "--protocols", "cas",
                "--virtual-duration", "1ms", "--warmup", "0s");
        assertEquals(Main.EXIT_OK, table.status(), table.err());
        assertTrue(table.out().startsWith("# sim fabric: 1 CN x 8 clients, 1 MN, MN link 100 Gb/s, "), table.out());
        MainTest.Outcome off = MainTest.run("bench", "--fabric", "sim", "--mn-link-gbps", "0", "--protocols", "cas",
                "--virtual-duration", "1ms", "--warmup", "0s");
        assertEquals(Main.EXIT_OK, off.status(), off.err());
        assertTrue(off.out().startsWith("# sim fabric: 1 CN x 8 clients, 1 MN, ") && !off.out().contains("MN link"),
                off.out());
    }

    @Test
    void theCnToCnLatencyRatioIsAFlagOrAnAddressParameter() {
        String[] run = {"--protocols", "shiftlock", "--virtual-duration", "1ms", "--warmup", "0s", "--format", "csv"};
        List<String> viaFlag = new ArrayList<>(List.of("bench", "--fabric", "sim", "--cns", "2", "--clients-per-cn", "4",
                "--cn-latency-ratio", "8"));
        viaFlag.addAll(List.of(run));
        List<String> viaAddress = new ArrayList<>(List.of("bench", "--fabric", "sim:cns=2,clients-per-cn=4,cn-latency-ratio=8"));
        viaAddress.addAll(List.of(run));
        List<String> plain = new ArrayList<>(List.of("bench", "--fabric", "sim", "--cns", "2", "--clients-per-cn", "4"));
        plain.addAll(List.of(run));
        List<String> one = new ArrayList<>(plain);
        one.addAll(List.of("--cn-latency-ratio", "1"));
        MainTest.Outcome flag = MainTest.run(viaFlag.toArray(String[]::new));
        MainTest.Outcome address = MainTest.run(viaAddress.toArray(String[]::new));
        MainTest.Outcome base = MainTest.run(plain.toArray(String[]::new));
        MainTest.Outcome same = MainTest.run(one.toArray(String[]::new));
        assertEquals(Main.EXIT_OK, flag.status(), flag.err());
        assertEquals(flag.out(), address.out());
        assertEquals(base.out(), same.out(), "ratio 1 is the default network");
        assertFalse(flag.out().equals(base.out()), "slower CN-to-CN messages change shiftlock's run");
        MainTest.Outcome table = MainTest.run("bench", "--fabric", "sim", "--cn-latency-ratio", "4", "--protocols", "cas",
                "--virtual-duration", "1ms", "--warmup", "0s");
        assertTrue(table.out().startsWith("# sim fabric: 1 CN x 8 clients, 1 MN, CN-to-CN latency 4x, "), table.out());
    }

    @Test
    void theRpcTransportIsAFlagOrAnAddressParameterAndTcpIsSlowerThanNative() {
        String[] run = {"--protocols", "rpc", "--clients", "4", "--virtual-duration", "1ms", "--warmup", "0s",
                "--format", "csv"};
        List<String> plain = new ArrayList<>(List.of("bench", "--fabric", "sim"));
        plain.addAll(List.of(run));
        List<String> nativeFlag = new ArrayList<>(plain);
        nativeFlag.addAll(List.of("--rpc-transport", "native"));
        List<String> tcp = new ArrayList<>(plain);
        tcp.addAll(List.of("--rpc-transport", "tcp"));
        List<String> tcpAddress = new ArrayList<>(List.of("bench", "--fabric", "sim:rpc-transport=TCP"));
        tcpAddress.addAll(List.of(run));
        MainTest.Outcome base = MainTest.run(plain.toArray(String[]::new));
        MainTest.Outcome same = MainTest.run(nativeFlag.toArray(String[]::new));
        MainTest.Outcome slow = MainTest.run(tcp.toArray(String[]::new));
        MainTest.Outcome viaAddress = MainTest.run(tcpAddress.toArray(String[]::new));
        assertEquals(Main.EXIT_OK, slow.status(), slow.err());
        assertEquals(base.out(), same.out(), "native is the default");
        assertEquals(slow.out(), viaAddress.out());
        double nativeGoodput = csvGoodput(base.out());
        double tcpGoodput = csvGoodput(slow.out());
        assertTrue(tcpGoodput > 0 && tcpGoodput < nativeGoodput / 2,
                "rpc over tcp (" + tcpGoodput + ") should be well below native (" + nativeGoodput + ")");
        MainTest.Outcome table = MainTest.run("bench", "--fabric", "sim", "--rpc-transport", "send-recv",
                "--protocols", "rpc", "--virtual-duration", "1ms", "--warmup", "0s");
        assertTrue(table.out().startsWith("# sim fabric: 1 CN x 8 clients, 1 MN, rpcs over send-recv, "), table.out());
        MainTest.Outcome check = MainTest.run("sim", "check", "--seeds", "1", "--protocols", "rpc", "--rpc-transport",
                "tcp", "--virtual-duration", "2ms");
        assertEquals(Main.EXIT_OK, check.status(), check.err());
        assertTrue(check.out().contains(", 1 MN, rpcs over tcp, "), check.out());
        MainTest.Outcome bad = MainTest.run("sim", "check", "--rpc-transport", "nope");
        assertEquals(Main.EXIT_BAD_INPUT, bad.status(), bad.err());
        assertEquals("lockfabric: --rpc-transport nope is not an rpc transport; known: native, tcp, send-recv, erpc",
                bad.err().strip());
    }

    /** The goodput of the one protocol of a bench's csv report (the column named goodput...). */
    private static double csvGoodput(String csv) {
        List<String> lines = csv.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).toList();
        List<String> header = List.of(lines.getFirst().split(","));
        int col = 0;
        while (!header.get(col).startsWith("goodput")) {
            col++;
        }
        return Double.parseDouble(lines.get(1).split(",")[col]);
    }

    @Test
    void theTestbedIsAFlagOrAnAddressParameterAndNoneIsTheDefault() {
        String[] run = {"--protocols", "cas", "--virtual-duration", "1ms", "--warmup", "0s", "--format", "csv"};
        List<String> viaFlag = new ArrayList<>(List.of("bench", "--fabric", "sim", "--cns", "2", "--clients-per-cn", "4",
                "--testbed", "citron"));
        viaFlag.addAll(List.of(run));
        List<String> viaAddress = new ArrayList<>(List.of("bench", "--fabric", "sim:cns=2,clients-per-cn=4,testbed=citron"));
        viaAddress.addAll(List.of(run));
        List<String> plain = new ArrayList<>(List.of("bench", "--fabric", "sim", "--cns", "2", "--clients-per-cn", "4"));
        plain.addAll(List.of(run));
        List<String> none = new ArrayList<>(plain);
        none.addAll(List.of("--testbed", "none"));
        MainTest.Outcome flag = MainTest.run(viaFlag.toArray(String[]::new));
        MainTest.Outcome address = MainTest.run(viaAddress.toArray(String[]::new));
        MainTest.Outcome base = MainTest.run(plain.toArray(String[]::new));
        MainTest.Outcome same = MainTest.run(none.toArray(String[]::new));
        assertEquals(Main.EXIT_OK, flag.status(), flag.err());
        assertEquals(flag.out(), address.out());
        assertEquals(base.out(), same.out(), "--testbed none is the simulator's defaults");
        assertFalse(flag.out().equals(base.out()), "citron's 115 Gb/s link changes cas's run");
        MainTest.Outcome table = MainTest.run("bench", "--fabric", "sim", "--testbed", "declock", "--protocols", "cas",
                "--virtual-duration", "1ms", "--warmup", "0s");
        assertTrue(table.out().startsWith("# sim fabric: 1 CN x 8 clients, 1 MN, MN link 100 Gb/s, testbed declock, "),
                table.out());
        MainTest.Outcome bad = MainTest.run("bench", "--fabric", "sim", "--testbed", "cx9");
        assertEquals(Main.EXIT_BAD_INPUT, bad.status());
        assertTrue(bad.err().contains("--testbed cx9 is no testbed (one of none, shiftlock, declock, citron)"), bad.err());
        MainTest.Outcome disagree = MainTest.run("bench", "--fabric", "sim:testbed=citron", "--testbed", "declock");
        assertEquals(Main.EXIT_BAD_INPUT, disagree.status());
        MainTest.Outcome local = MainTest.run("bench", "--testbed", "declock");
        assertEquals(Main.EXIT_BAD_INPUT, local.status());
        assertTrue(local.err().contains("--testbed"), local.err());
    }

    @Test
    void theTableHeaderNamesTheAddressAsGiven() {
        MainTest.Outcome o = MainTest.run("bench", "--fabric", "sim:cns=2,clients-per-cn=3", "--protocols", "cas",
                "--virtual-duration", "1ms", "--warmup", "0s");
        assertEquals(Main.EXIT_OK, o.status(), o.err());
        assertTrue(o.out().startsWith("# sim:cns=2,clients-per-cn=3 fabric: 2 CNs x 3 clients, 1 MN, "), o.out());
    }

    @Test
    void aRangeBenchTakesASimAddressToo() {
        String[] common = {"--protocols", "citron", "--virtual-duration", "1ms", "--warmup", "0s", "--format", "csv"};
        List<String> viaFlags = new ArrayList<>(List.of("range-bench", "--fabric", "sim", "--cns", "2",
                "--clients-per-cn", "3"));
        viaFlags.addAll(List.of(common));
        List<String> viaAddress = new ArrayList<>(List.of("range-bench", "--fabric", "sim:cns=2,clients-per-cn=3"));
        viaAddress.addAll(List.of(common));
        MainTest.Outcome a = MainTest.run(viaFlags.toArray(String[]::new));
        MainTest.Outcome b = MainTest.run(viaAddress.toArray(String[]::new));
        assertEquals(Main.EXIT_OK, a.status(), a.err());
        assertEquals(a.out(), b.out());
    }

    @Test
    void aLocalAddressMayCarryItsParameters() {
        MainTest.Outcome o = MainTest.run("bench", "--fabric", "local:mns=2,seed=9", "--protocols", "cas", "--ops",
                "200", "--clients", "2", "--format", "csv");
        assertEquals(Main.EXIT_OK, o.status(), o.err());
        assertTrue(o.out().lines().toList().get(1).startsWith("cas,local,2,"), o.out());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "sim:nope=1|fabric sim has no parameter 'nope' (its parameters: cns, clients-per-cn, clients, mns, seed, mn-link-gbps, "
                    + "cn-latency-ratio, rpc-transport, testbed)",
            "sim:cns=3 --cns 2|--cns 2 disagrees with cns=3 in --fabric sim:cns=3; give one or the other",
            "sim:cns|fabric sim: 'cns' in 'sim:cns' is not NAME=VALUE",
            "sim:mn-link-gbps=fast|fabric sim: mn-link-gbps=fast is not a number of Gb/s",
            "sim --mn-link-gbps -1|--mn-link-gbps -1 is not in [0, 1e6] Gb/s (0 = not modelled)",
            "sim:mn-link-gbps=100 --mn-link-gbps 25|--mn-link-gbps 25 disagrees with mn-link-gbps=100 in --fabric "
                    + "sim:mn-link-gbps=100; give one or the other",
            "local --mn-link-gbps 100|--cns, --clients-per-cn, --mns, --mn-link-gbps, --cn-latency-ratio, "
                    + "--rpc-transport, --testbed, --virtual-duration and --faults apply to --fabric sim only",
            "local --rpc-transport tcp|--cns, --clients-per-cn, --mns, --mn-link-gbps, --cn-latency-ratio, "
                    + "--rpc-transport, --testbed, --virtual-duration and --faults apply to --fabric sim only",
            "sim --rpc-transport pigeon|--rpc-transport pigeon is not an rpc transport; known: native, tcp, send-recv, "
                    + "erpc",
            "sim:rpc-transport=udp|fabric sim: rpc-transport=udp is not an rpc transport; known: native, tcp, "
                    + "send-recv, erpc",
            "sim:rpc-transport=tcp --rpc-transport erpc|--rpc-transport erpc disagrees with rpc-transport=tcp in "
                    + "--fabric sim:rpc-transport=tcp; give one or the other",
            "sim:cn-latency-ratio=0|fabric sim: cn-latency-ratio=0 is not in (0, 1000] (CN-to-CN over CN-to-MN latency; "
                    + "1 = one switch)",
            "sim --cn-latency-ratio slow|--cn-latency-ratio slow is not a number (CN-to-CN over CN-to-MN latency)",
            "sim:cn-latency-ratio=4 --cn-latency-ratio 2|--cn-latency-ratio 2 disagrees with cn-latency-ratio=4 in "
                    + "--fabric sim:cn-latency-ratio=4; give one or the other",
            "sim:cns=x|fabric sim: cns=x is not a whole number",
            "sim:cns=0|cns (in --fabric sim:cns=0) must be >= 1, got 0",
            "sim:clients=7,cns=2|7 clients do not fill 2 compute nodes evenly; give --clients-per-cn",
            "tcp:127.0.0.1:1|fabric tcp: '127.0.0.1:1' in 'tcp:127.0.0.1:1' is not NAME=VALUE (a location is "
                    + "written tcp://HOST:PORT)",
            "tcp|unknown fabric 'tcp': give local, sim or tcp://HOST:PORT",
            "rdma://x|unknown fabric 'rdma://x': give local, sim or tcp://HOST:PORT",
            "local://x|fabric local has no location: give local[:mns=N,seed=N,capacity=BYTES], not 'local://x'"})
    void aBadAddressIsOneLineOfBadInput(String line) {
        String[] parts = line.split("\\|");
        List<String> argv = new ArrayList<>(List.of("bench", "--fabric"));
        argv.addAll(List.of(parts[0].split(" ")));
        argv.addAll(List.of("--protocols", "cas", "--ops", "10"));
        MainTest.Outcome o = MainTest.run(argv.toArray(String[]::new));
        assertEquals(Main.EXIT_BAD_INPUT, o.status(), line + " -> " + o.err());
        assertEquals("lockfabric: " + parts[1], o.err().strip());
        assertEquals("", o.out());
        assertFalse(o.err().contains("Exception"), o.err());
    }
}
