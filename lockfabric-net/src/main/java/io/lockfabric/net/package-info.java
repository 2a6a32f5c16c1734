/**
 * The tcp fabric: a memory-node server process ({@link io.lockfabric.net.TcpMemoryNode}), a client
 * fabric that reaches it over TCP ({@link io.lockfabric.net.TcpFabric}), and the compact binary wire
 * protocol between them ({@link io.lockfabric.net.wire}).
 */
package io.lockfabric.net;
