package io.lockfabric.net;

import io.lockfabric.fabric.ServiceResolver;

import io.lockfabric.fabric.RpcCall;
import io.lockfabric.fabric.TableSpec;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The rpc services of {@link io.lockfabric.fabric.VerbContractTest}'s tables (protocol "test"),
 * rebuilt by name for a memory node in another process, which cannot receive the suite's lambdas.
 * Each mirrors the suite's inline service of the same table name (in any table namespace); a table
 * the suite adds with a new service is refused by the server with a clear error until it is
 * mirrored here.
 */
final class VerbContractServices implements ServiceResolver {
    private static final String PROTOCOL = "test";

    @Override
    public Optional<TableSpec.ServiceFactory> resolve(TableSpec requested, List<String> options) {
        if (!PROTOCOL.equals(requested.protocol()) || requested.locks() != 1 || requested.bytes() != 64) {
            return Optional.empty();
        }
        String name = requested.name().substring(requested.name().lastIndexOf(TcpFabric.NAMESPACE_SEPARATOR) + 1);
        TableSpec.ServiceFactory factory = switch (name) {
            case "echo" -> host -> call -> {
                String req = utf8(call.request());
                if (req.equals("word0")) {
                    call.reply(utf8(Long.toHexString(host.table().read8(0))));
                } else if (req.equals("caller")) {
                    call.reply(utf8(call.caller().toString()));
                } else {
                    call.reply(utf8("echo:" + req));
                }
            };
            case "failing" -> host -> call -> {
                if (utf8(call.request()).equals("fail")) {
                    call.fail("refused by test");
                } else {
                    throw new IllegalStateException("handler crashed");
                }
            };
            case "deferred" -> host -> {
                AtomicReference<RpcCall> parked = new AtomicReference<>();
                return call -> {
                    if (utf8(call.request()).startsWith("park:")) {
                        if (!parked.compareAndSet(null, call)) {
                            call.fail("already one parked");
                        }
                    } else {
                        RpcCall p = parked.getAndSet(null);
                        if (p == null) {
                            call.reply(utf8("nothing parked"));
                        } else {
                            p.reply(utf8("released " + utf8(p.request()) + " for " + p.caller()));
                            call.reply(utf8("released"));
                        }
                    }
                };
            };
            case "count-echo", "mn-echo" -> host -> call -> call.reply(call.request());
            default -> null;
        };
        return Optional.ofNullable(factory);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
