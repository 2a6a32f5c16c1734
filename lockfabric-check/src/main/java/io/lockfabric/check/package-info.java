/**
 * Verification of runs: the history of every grant, the mutual-exclusion, range-exclusion and
 * fencing checkers, and guarded counters that a broken lock cannot keep exact.
 */
package io.lockfabric.check;
