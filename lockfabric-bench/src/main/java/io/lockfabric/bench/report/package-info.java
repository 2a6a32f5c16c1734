/**
 * The reproduction report: {@link io.lockfabric.bench.report.ReproductionReport} runs experiments in turn
 * (a failure in one is reported, the others go on) and writes one Markdown page with a summary, each
 * experiment's plots, tables, comparisons and discussion; {@link io.lockfabric.bench.report.FigurePlotter}
 * draws an experiment's {@link io.lockfabric.bench.experiment.Figure}s (declared by the experiment or, for
 * the experiments that predate figures, by {@link io.lockfabric.bench.report.FigureCatalog}) as PNG files
 * with XChart, headless.
 */
package io.lockfabric.bench.report;
