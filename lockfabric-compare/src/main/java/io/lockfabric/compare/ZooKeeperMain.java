package io.lockfabric.compare;

import org.apache.zookeeper.server.ZooKeeperServerMain;

/**
 * A standalone ZooKeeper server as {@code lockfabric compare} runs it, in a process of its own:
 * {@link ZooKeeperServerMain} (the server of the {@code org.apache.zookeeper:zookeeper} artifact on
 * the class path) with the configuration file given, ending when its standard input closes (the
 * comparison is gone) or it is stopped.
 */
public final class ZooKeeperMain {
    private ZooKeeperMain() {
    }

    /** Runs the server; {@code args[0]} is its {@code zoo.cfg}. */
    public static void main(String[] args) {
        StdinWatch.exitAtEndOfInput();
        ZooKeeperServerMain.main(args);
    }
}
