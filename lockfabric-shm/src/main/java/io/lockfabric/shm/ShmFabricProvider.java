package io.lockfabric.shm;

import io.lockfabric.fabric.Fabric;
import io.lockfabric.fabric.FabricAddress;
import io.lockfabric.fabric.FabricProvider;

import java.nio.file.Path;
import java.util.List;

/**
 * Opens {@code shm:/PATH[?capacity=BYTES,seed=N,serve=true|false|standby]}: a {@link ShmFabric} on the file
 * at {@code PATH} (created with {@code capacity} bytes, default 256 MiB, if it does not exist),
 * endpoints seeded from {@code seed}; {@code serve=true} makes this process serve the rpcs of the
 * tables it opens ({@code serve=standby}: or stands by while another process serves them, and
 * takes over when it dies). Found by {@link io.lockfabric.fabric.Fabrics#open}.
 */
public final class ShmFabricProvider implements FabricProvider {
    @Override
    public String scheme() {
        return ShmFabric.SCHEME;
    }

    @Override
    public String usage() {
        return "shm:/PATH[?capacity=BYTES,seed=N,serve=true|false|standby]";
    }

    @Override
    public List<String> parameters() {
        return List.of("capacity", "seed", "serve");
    }

    @Override
    public Fabric open(FabricAddress address) {
        if (address.location().isEmpty()) {
            throw new IllegalArgumentException("fabric shm needs the absolute path of its file: give " + usage() + ", not '"
                    + address + "'");
        }
        String serve = address.parameter("serve", "false");
        if (!serve.equals("true") && !serve.equals("false") && !serve.equals("standby")) {
            throw new IllegalArgumentException("fabric shm: serve=" + serve + " is not true, false or standby");
        }
        return ShmFabric.builder().path(Path.of(address.location()))
                .capacityBytes(address.longParameter("capacity", ShmFabric.DEFAULT_CAPACITY_BYTES,
                        ShmLayout.MIN_FILE_BYTES, Long.MAX_VALUE))
                .seed(address.longParameter("seed", ShmFabric.DEFAULT_SEED, Long.MIN_VALUE, Long.MAX_VALUE))
                .serveRpc(serve.equals("true"))
                .standbyRpc(serve.equals("standby"))
                .build();
    }
}
