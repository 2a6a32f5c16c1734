package io.lockfabric.net;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricAddress;
import io.lockfabric.fabric.FabricProvider;

import java.util.List;

/**
 * Opens {@code tcp://HOST:PORT[?seed=N,namespace=NAME]}: a {@link TcpFabric} on the memory node
 * there ({@code lockfabric serve}), endpoints seeded from {@code seed}, tables in
 * {@code namespace} ({@link TcpFabric.Builder#tableNamespace}). Found by
 * {@link io.lockfabric.fabric.Fabrics#open}.
 */
public final class TcpFabricProvider implements FabricProvider {
    @Override
    public String scheme() {
        return TcpFabric.SCHEME;
    }

    @Override
    public String usage() {
        return "tcp://HOST:PORT[?seed=N,namespace=NAME]";
    }

    @Override
    public List<String> parameters() {
        return List.of("seed", "namespace");
    }

    @Override
    public Fabric open(FabricAddress address) {
        TcpFabric.Builder b = TcpFabric.builder().uri(TcpFabric.SCHEME + "://" + address.location())
                .seed(address.longParameter("seed", TcpFabric.DEFAULT_SEED, Long.MIN_VALUE, Long.MAX_VALUE));
        String namespace = address.parameter("namespace", null);
        if (namespace != null) {
            b.tableNamespace(namespace);
        }
        return b.build();
    }
}
