/**
 * The fabric SPI, the ground floor: a {@link io.lockfabric.fabric.Fabric} of memory nodes and the
 * {@link io.lockfabric.fabric.Endpoint}s that reach them with one-sided verbs
 * ({@link io.lockfabric.fabric.QueuePair}, {@link io.lockfabric.fabric.Batch},
 * {@link io.lockfabric.fabric.Verb}), messages ({@link io.lockfabric.fabric.Mailbox}) and time
 * ({@link io.lockfabric.fabric.Clock}). Lock protocols are written against this package only. It
 * names no fabric and no protocol: fabrics are found by {@link io.lockfabric.fabric.Fabrics#open},
 * table services by {@link io.lockfabric.fabric.ServiceResolver#installed()}.
 */
package io.lockfabric.fabric;
