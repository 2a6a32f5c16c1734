/**
 * The CITRON (FAST'23) experiments: Figs. 6, 7 and 9-12.
 */
package io.lockfabric.bench.experiment.citron;
