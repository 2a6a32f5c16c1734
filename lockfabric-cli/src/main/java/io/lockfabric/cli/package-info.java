/**
 * The {@code lockfabric} command line ({@link io.lockfabric.cli.Main}): {@code bench},
 * {@code protocols} and {@code reproduce}. Thin: parsing, validation into one-line errors (exit 2),
 * and printing; the work is in {@link io.lockfabric.bench}.
 */
package io.lockfabric.cli;
