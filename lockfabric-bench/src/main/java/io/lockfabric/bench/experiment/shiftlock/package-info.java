/**
 * The ShiftLock (FAST'25) experiments: §2.3's retry storm, Figs. 4-6 and 12, Table 3, and the ideal
 * CAS lock oracle they compare against.
 */
package io.lockfabric.bench.experiment.shiftlock;
