package io.lockfabric.cli;

import io.lockfabric.fabric.FabricException;
import io.lockfabric.fabric.TableInUseException;
import io.lockfabric.net.TcpFabric;
import io.lockfabric.net.wire.Frame;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * {@code lockfabric tables list|drop}: the tables a {@code lockfabric serve} memory node (or a shm
 * fabric's file) holds, and dropping one of them at once.
 */
@Command(name = "tables", mixinStandardHelpOptions = true,
        description = {"Show or drop the tables of a memory node ('lockfabric serve'). A table is created by its "
                + "first client and kept while a client connection that opened it is up, plus the server's "
                + "--table-grace after the last one closes; then it is dropped and its memory freed. On a shm "
                + "fabric's file (--fabric shm:PATH) tables stay until they are dropped.",
                "Dropping a table frees its memory at once and its lock state is gone: a client that still holds "
                        + "locks in it gets 'table ... was dropped' on its next operation there."},
        subcommands = {TablesCommand.ListTables.class, TablesCommand.DropTable.class},
        footer = {"", "Exit status: 0 ok; 2 bad input, no memory node answers, no such table, or the table is open "
                + "and --force was not given; 3 the request failed."})
final class TablesCommand implements Runnable {
    @Spec
    CommandSpec spec;

    /** {@code lockfabric tables} alone: show the usage. */
    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The {@code --fabric} option both subcommands take. */
    static final class Server {
        @Option(names = "--fabric", paramLabel = "tcp://HOST:PORT|shm:PATH", required = true,
                description = "The memory node ('lockfabric serve' prints its address), or the file of a shm fabric.")
        String address;

        boolean isShm() {
            return address.startsWith("shm:");
        }

        /** Runs {@code request} on the shm fabric of an existing file; a missing file is bad input. */
        <T> T callShm(Function<io.lockfabric.shm.ShmFabric, T> request) {
            java.nio.file.Path path = java.nio.file.Path.of(address.substring("shm:".length()));
            if (!path.isAbsolute() || !java.nio.file.Files.isRegularFile(path)) {
                throw new BadInputException("--fabric: no shm file at '" + path + "' (an absolute path of a file that "
                        + "clients created)");
            }
            try (io.lockfabric.shm.ShmFabric fabric = io.lockfabric.shm.ShmFabric.builder().path(path).build()) {
                return request.apply(fabric);
            } catch (FabricException | IllegalArgumentException e) {
                if (e instanceof TableInUseException) {
                    throw e;
                }
                throw new BadInputException("--fabric " + address + ": " + e.getMessage());
            }
        }

        /** Runs {@code request} on a fabric connected to the memory node; an unreachable one is bad input. */
        <T> T call(Function<TcpFabric, T> request) {
            TcpFabric fabric;
            try {
                fabric = TcpFabric.builder().uri(address).build();
            } catch (IllegalArgumentException e) {
                throw new BadInputException("--fabric: " + e.getMessage());
            }
            try (fabric) {
                return request.apply(fabric);
            } catch (FabricException e) {
                if (e.getMessage() != null && e.getMessage().startsWith("cannot connect")) {
                    throw new BadInputException("no memory node answers at " + address
                            + " (start one with 'lockfabric serve'): " + e.getMessage());
                }
                throw e;
            }
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "List the memory node's tables: name, protocol, bytes (with the tables its rpc service "
                    + "created), client connections that have it open, and how long none has (idle; '-' while one "
                    + "has). Tables of every namespace, by their names on the server.")
    static final class ListTables implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @picocli.CommandLine.Mixin
        Server server = new Server();

        @Override
        public Integer call() {
            if (server.isShm()) {
                return listShm();
            }
            Frame.TableList list = server.call(TcpFabric::tables);
            PrintWriter out = spec.commandLine().getOut();
            if (list.total() == 0) {
                out.println("no tables on " + server.address);
                out.flush();
                return Main.EXIT_OK;
            }
            int nameWidth = Math.max(4, list.tables().stream().mapToInt(r -> r.name().length()).max().orElse(4));
            int protocolWidth = Math.max(8, list.tables().stream().mapToInt(r -> r.protocol().length()).max().orElse(8));
            String format = "%-" + nameWidth + "s  %-" + protocolWidth + "s  %14s  %7s  %10s%n";
            out.printf(format, "name", "protocol", "bytes", "clients", "idle");
            long total = 0;
            for (Frame.TableRow r : list.tables()) {
                out.printf(format, r.name(), r.protocol(), r.bytes(), r.openers(), idle(r.idleMs()));
                total += r.bytes();
            }
            out.printf("%d table%s, %d bytes%s%n", list.total(), list.total() == 1 ? "" : "s", total,
                    list.total() > list.tables().size() ? " in the first " + list.tables().size() + " shown" : "");
            out.flush();
            return Main.EXIT_OK;
        }

        private Integer listShm() {
            java.util.List<io.lockfabric.shm.ShmFabric.TableRow> rows = server.callShm(io.lockfabric.shm.ShmFabric::tables);
            PrintWriter out = spec.commandLine().getOut();
            if (rows.isEmpty()) {
                out.println("no tables in " + server.address);
                out.flush();
                return Main.EXIT_OK;
            }
            int nameWidth = Math.max(4, rows.stream().mapToInt(r -> r.name().length()).max().orElse(4));
            int protocolWidth = Math.max(8, rows.stream().mapToInt(r -> r.protocol().length()).max().orElse(8));
            String format = "%-" + nameWidth + "s  %-" + protocolWidth + "s  %14s  %9s%s%n";
            out.printf(format, "name", "protocol", "bytes", "endpoints", "");
            long total = 0;
            for (io.lockfabric.shm.ShmFabric.TableRow r : rows) {
                out.printf(format, r.name(), r.protocol(), r.bytes(), r.openEndpoints(),
                        r.dropped() ? "  (dropped; freed when they close)" : "");
                total += r.bytes();
            }
            out.printf("%d table%s, %d bytes%n", rows.size(), rows.size() == 1 ? "" : "s", total);
            out.flush();
            return Main.EXIT_OK;
        }

        static String idle(long ms) {
            if (ms < 0) {
                return "-";
            }
            return ms < 10_000 ? String.format(Locale.ROOT, "%.1f s", ms / 1000.0)
                    : ms < 3_600_000 ? (ms / 1000) + " s" : String.format(Locale.ROOT, "%.1f h", ms / 3_600_000.0);
        }
    }

    @Command(name = "drop", mixinStandardHelpOptions = true,
            description = {"Drop a table at once: its memory is freed and its lock state is gone. A table that a "
                    + "client connection has open is not dropped unless --force is given; forced, the clients' later "
                    + "operations on it fail with 'table ... was dropped'."})
    static final class DropTable implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "NAME", description = "The table's name on the server ('lockfabric tables list').")
        String name;

        @Option(names = "--force", description = "Drop the table even while clients have it open.")
        boolean force;

        @picocli.CommandLine.Mixin
        Server server = new Server();

        @Override
        public Integer call() {
            long bytes;
            try {
                bytes = server.isShm() ? server.callShm(f -> f.dropTable(0, name, force))
                        : server.call(f -> f.dropTable(0, name, force));
            } catch (TableInUseException e) {
                throw new BadInputException(e.getMessage().replace("a forced drop", "--force"));
            }
            if (bytes == 0) {
                throw new BadInputException("no table '" + name + "' on " + server.address);
            }
            PrintWriter out = spec.commandLine().getOut();
            out.println("dropped table '" + name + "' (" + bytes + " bytes)");
            out.flush();
            return Main.EXIT_OK;
        }
    }
}
