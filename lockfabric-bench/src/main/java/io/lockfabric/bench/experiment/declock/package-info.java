/**
 * The DecLock experiments: Figs. 12-16, and the hot-lock handover trace.
 */
package io.lockfabric.bench.experiment.declock;
