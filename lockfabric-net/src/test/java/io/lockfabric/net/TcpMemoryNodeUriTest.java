package io.lockfabric.net;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.junit.jupiter.api.Test;

/** The address a server prints is one a client accepts, whatever it was bound to. */
class TcpMemoryNodeUriTest {
    private static InetSocketAddress bound(String literal) {
        return new InetSocketAddress(InetAddress.ofLiteral(literal), 7420);
    }

    @Test
    void everyInterfaceIsPrintedAsLoopback() {
        // 0.0.0.0 as the JDK reports a dual-stack socket bound to it, and as asked
        assertEquals("tcp://127.0.0.1:7420", TcpMemoryNode.uri(bound("::"), false));
        assertEquals("tcp://127.0.0.1:7420", TcpMemoryNode.uri(bound("0.0.0.0"), false));
        assertEquals("tcp://[0:0:0:0:0:0:0:1]:7420", TcpMemoryNode.uri(bound("::"), true));
    }

    @Test
    void aBoundAddressIsPrintedAsIsIpv6InBrackets() {
        assertEquals("tcp://127.0.0.1:7420", TcpMemoryNode.uri(bound("127.0.0.1"), false));
        assertEquals("tcp://10.1.2.3:7420", TcpMemoryNode.uri(bound("10.1.2.3"), false));
        assertEquals("tcp://[fe80:0:0:0:0:0:0:1]:7420", TcpMemoryNode.uri(bound("fe80::1"), true));
    }

    @Test
    void aClientAcceptsEveryPrintedAddress() {
        for (String uri : new String[] {TcpMemoryNode.uri(bound("::"), false), TcpMemoryNode.uri(bound("::"), true),
                TcpMemoryNode.uri(bound("fe80::1"), true)}) {
            TcpFabric.builder().uri(uri).build().close(); // parses and validates; connects only for an endpoint
        }
    }
}
