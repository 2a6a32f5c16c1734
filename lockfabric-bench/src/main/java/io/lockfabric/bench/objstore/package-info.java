/**
 * The {@code objstore} kind of benchmark workload: the object store of {@code io.lockfabric.apps.objstore}
 * (DecLock §6.6, Fig. 17) run by the bench's runner on every fabric, one get or set per operation,
 * with the Twitter traces' parameters, and every get checked whole.
 */
package io.lockfabric.bench.objstore;
