package io.lockfabric.compare;

import org.apache.zookeeper.server.ZooKeeperServerMain;

/**
 * A standalone ZooKeeper server as {@code lockfabric compare} runs it, in a process of its own:
 * {@link ZooKeeperServerMain} (the server of the {@code org.apache.zookeeper:zookeeper} artifact on
 * the class path) with the configuration file given, ending when its standard input closes (the
 * comparison is gone) or it is stopped.
 *
 * <p>It prints {@code SERVING 127.0.0.1:PORT} once the server runs ({@code serverStarted}, after its
 * database is loaded and its request processors started), and the comparison connects only then.
 * Connecting as soon as the port listens is not safe with ZooKeeper 3.9.3: the port is bound and
 * accepting before the database exists, a connection in that window is refused ("ZooKeeperServer
 * not running"), and closing it throws a NullPointerException in {@code ZooKeeperServer.removeCnxn}
 * (its {@code zkDb} is still null) before the socket is closed. The client then waits on a
 * connection that is neither served nor closed until its connect timeout (the session timeout,
 * 60 s for Curator's default), a server that "never serves" (ZOOKEEPER-5051).
 */
public final class ZooKeeperMain extends ZooKeeperServerMain {
    /** The line it prints once the server runs, followed by its address. */
    static final String SERVING = "SERVING ";

    private ZooKeeperMain() {
    }

    @Override
    protected void serverStarted() {
        System.out.println(SERVING + "127.0.0.1:" + getClientPort());
        System.out.flush();
    }

    /** Runs the server; {@code args[0]} is its {@code zoo.cfg}. */
    public static void main(String[] args) {
        StdinWatch.exitAtEndOfInput();
        try {
            new ZooKeeperMain().initializeAndRun(args);
        } catch (Exception e) {
            System.out.println("ZooKeeper server failed: " + e);
            e.printStackTrace(System.out);
            System.out.flush();
            System.exit(2);
        }
        System.exit(0);
    }
}
