/**
 * The registries of lock and range lock protocols, by name, and the
 * {@link io.lockfabric.fabric.ServiceResolver} that rebuilds their tables' services on a remote
 * memory node.
 */
package io.lockfabric.protocols;
