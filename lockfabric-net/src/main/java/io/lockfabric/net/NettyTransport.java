package io.lockfabric.net;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.nio.channels.spi.SelectorProvider;

/**
 * Netty's native epoll transport where it loads (Linux), NIO otherwise. The system property
 * {@value #TRANSPORT_PROPERTY}{@code =nio} forces NIO.
 */
final class NettyTransport {
    static final String TRANSPORT_PROPERTY = "lockfabric.net.transport";

    private final boolean epoll;

    private NettyTransport(boolean epoll) {
        this.epoll = epoll;
    }

    static NettyTransport best() {
        boolean forceNio = "nio".equalsIgnoreCase(System.getProperty(TRANSPORT_PROPERTY, ""));
        return new NettyTransport(!forceNio && Epoll.isAvailable());
    }

    String name() {
        return epoll ? "epoll" : "nio";
    }

    EventLoopGroup group(int threads, String name) {
        return group(threads, name, 0, null);
    }

    /**
     * {@code threads} event loops named {@code name}; {@code spinNs} > 0: each keeps polling for that
     * long after its last activity before it sleeps ({@link SpinThenSleep}), counting its idle polls
     * in {@code polls}.
     */
    EventLoopGroup group(int threads, String name, long spinNs, java.util.concurrent.atomic.LongAdder polls) {
        DefaultThreadFactory factory = new DefaultThreadFactory(name, true);
        if (spinNs <= 0) {
            return epoll ? new EpollEventLoopGroup(threads, factory) : new NioEventLoopGroup(threads, factory);
        }
        SelectStrategyFactory strategy = () -> new SpinThenSleep(spinNs, System::nanoTime, polls);
        return epoll ? new EpollEventLoopGroup(threads, factory, strategy)
                : new NioEventLoopGroup(threads, factory, SelectorProvider.provider(), strategy);
    }

    Class<? extends ServerSocketChannel> serverChannel() {
        return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    Class<? extends SocketChannel> socketChannel() {
        return epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    }
}
