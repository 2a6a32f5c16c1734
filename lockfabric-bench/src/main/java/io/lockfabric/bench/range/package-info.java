/**
 * The range workload of CITRON §4.2: exclusive ranges with Zipf left borders, fixed or mixed sizes,
 * and the false-conflict model of Fig. 11.
 */
package io.lockfabric.bench.range;
