/**
 * The server-CPU range lock managers, run by the memory node's CPU behind an rpc, all speaking one
 * wire protocol ({@link io.lockfabric.lock.rpcrange.RpcRangeFrame}) through one client
 * ({@link io.lockfabric.lock.rpcrange.RpcRangeClient}):
 * <ul>
 *   <li>{@code rpc-range}: an interval tree ({@link io.lockfabric.lock.rpcrange.RpcRangeServer});</li>
 *   <li>{@code mt}: a B-tree of disjoint ranges (CITRON's MT baseline, in the spirit of the Linux
 *       Maple tree; {@link io.lockfabric.lock.rpcrange.MtServer});</li>
 *   <li>{@code llc}: a lock-free linked list of ranges (CITRON's LLC baseline, after Kogan et al.;
 *       {@link io.lockfabric.lock.rpcrange.LlcServer}).</li>
 * </ul>
 */
package io.lockfabric.lock.rpcrange;
