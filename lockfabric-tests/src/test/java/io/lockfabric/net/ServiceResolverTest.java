package io.lockfabric.net;

import io.lockfabric.fabric.ServiceResolver;
import io.lockfabric.protocols.RegisteredServices;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lockfabric.fabric.Endpoint;
import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.Table;
import io.lockfabric.fabric.TableMismatchException;
import io.lockfabric.fabric.TableSpec;
import io.lockfabric.lock.LockOption;
import io.lockfabric.lock.LockOptions;
import io.lockfabric.protocols.LockProtocols;
import io.lockfabric.lock.RangeLockClient;
import io.lockfabric.lock.RangeLockProtocol;
import io.lockfabric.protocols.RangeLockProtocols;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Services rebuilt on the server from a registry name: lock protocols' and range protocols'
 * (a range protocol with a table service, registered only in this test, stands for citron's
 * allocation service and rpc-range's interval tree).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServiceResolverTest {
    /** A range protocol whose table of {@code cells} words has a service that answers its cell count. */
    private static final class ToyRange implements RangeLockProtocol {
        static final String NAME = "toy-range";
        static final LockOption CELLS = new LockOption("cells", 4, "words in the table");

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "test only";
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
        public List<LockOption> options() {
            return List.of(CELLS);
        }

        @Override
        public TableSpec tableSpec(String tableName, LockOptions options) {
            long cells = options.get(CELLS);
            return new TableSpec(tableName, NAME, 1, cells * Long.BYTES).withService(TableSpec.ServiceFactory
                    .dependingOn(List.of("cells=" + cells), host -> call -> call.reply(new byte[] {(byte) cells})));
        }

        @Override
        public RangeLockClient client(Endpoint endpoint, Table table, LockOptions options) {
            throw new UnsupportedOperationException("test only");
        }
    }

    private static final ToyRange TOY = new ToyRange();

    private static RangeLockProtocol toyOrRegistered(String name) {
        return ToyRange.NAME.equals(name) ? TOY : RangeLockProtocols.byName(name);
    }

    @Test
    void theDefaultFindsLockProtocolsServicesAndNothingForUnknownNames() {
        ServiceResolver r = RegisteredServices.lockProtocols().orElse(RegisteredServices.rangeLockProtocols());
        var rpc = LockProtocols.byName("rpc");
        assertTrue(r.resolve(rpc.tableSpec("t", 8, LockOptions.DEFAULTS), List.of()).isPresent());
        assertTrue(r.resolve(new TableSpec("t", "no-such-protocol", 1, 64), List.of()).isEmpty());
        assertTrue(r.resolve(new TableSpec("t", ToyRange.NAME, 1, 32), List.of()).isEmpty(), "toy is not registered");
        for (RangeLockProtocol p : RangeLockProtocols.all()) {
            TableSpec spec = p.tableSpec("t", LockOptions.DEFAULTS);
            assertEquals(spec.service() != null, r.resolve(spec, spec.service() == null ? List.of()
                    : spec.service().options()).isPresent(), p.name() + ": resolved exactly if it has a service");
        }
    }

    @Test
    void aRangeProtocolsServiceIsBuiltWithTheClientsOptionsAndOnlyForItsShape() {
        ServiceResolver r = RegisteredServices.rangeLockProtocols(ServiceResolverTest::toyOrRegistered);
        TableSpec six = TOY.tableSpec("t", LockOptions.parse(List.of("cells=6")));
        assertTrue(r.resolve(six, List.of("cells=6")).isPresent());
        assertTrue(r.resolve(six, List.of("cells=7")).isEmpty(), "options that give another shape");
        assertTrue(r.resolve(six, List.of("cels=6")).isEmpty(), "a misspelt option");
        assertTrue(RegisteredServices.lockProtocols().resolve(six, List.of("cells=6")).isEmpty(), "not a lock protocol");
    }

    @Test
    void aRemoteClientOpensARangeTableWhoseServiceTheServerBuilds() {
        TcpMemoryNode server = TcpMemoryNode.builder().port(0).capacityBytes(1L << 20).serviceResolver(
                RegisteredServices.lockProtocols().orElse(RegisteredServices.rangeLockProtocols(
                        ServiceResolverTest::toyOrRegistered))).start();
        try (TcpFabric first = TcpFabric.builder().embeddedServer(server).build();
             TcpFabric second = TcpFabric.connect(server.uri())) {
            Endpoint a = first.newEndpoint();
            Endpoint b = second.newEndpoint();
            LockOptions six = LockOptions.parse(List.of("cells=6"));
            Table ta = a.openTable(TOY.tableSpec("toy", six));
            assertArrayEquals(new byte[] {6}, a.queuePair(0).rpc(ta.service(), new byte[0]), "the server built it");
            Table tb = b.openTable(TOY.tableSpec("toy", six));
            assertArrayEquals(new byte[] {6}, b.queuePair(0).rpc(tb.service(), new byte[0]), "and shares it");
            assertThrows(TableMismatchException.class,
                    () -> b.openTable(TOY.tableSpec("toy", LockOptions.parse(List.of("cells=7")))));
            // options that do not give the shape asked for: the server refuses rather than guess
            TableSpec lying = new TableSpec("lie", ToyRange.NAME, 1, 999).withService(
                    TableSpec.ServiceFactory.dependingOn(List.of("cells=6"), host -> call -> call.reply(new byte[0])));
            FabricException e = assertThrows(FabricException.class, () -> a.openTable(lying));
            assertTrue(e.getMessage().contains(ToyRange.NAME) && e.getMessage().contains("rpc service"), e.getMessage());
            // lock protocols' services are still built
            var rpc = LockProtocols.byName("rpc").open(b, "rpc-t", 2, LockOptions.DEFAULTS);
            rpc.release(rpc.acquire(1, io.lockfabric.lock.Mode.EXCLUSIVE));
        }
    }
}
