package io.lockfabric.compare;

import io.lockfabric.bench.ZipfGenerator;

import java.util.SplittableRandom;

/**
 * Draws the lock of each cycle of a run: lock {@code k} of {@code locks} with probability
 * proportional to {@code 1 / (k + 1)^θ} ({@link ZipfGenerator}'s law; θ = 0 is uniform).
 *
 * <p>For a skewed law over up to {@link #MAX_TABLE_LOCKS} locks, Walker's alias method (built as
 * in Vose's "A linear algorithm for generating random numbers with a given distribution", IEEE TSE
 * 17(9), 1991): a uniform column, then one comparison with its cut-off picks the column or its
 * alias. That is a {@code nextInt} and a {@code nextDouble} per draw, where the rejection-inversion
 * of {@link ZipfGenerator} takes a logarithm and an exponential: on the fastest rows (shm, Zipf
 * 0.99, 1 000 locks) the draw had been a tenth of each client thread's time, which the table
 * gives back to the lock under test. The law is the same, up to the rounding of the
 * probabilities to doubles. A uniform law (one {@code nextLong}) and more locks than that draw
 * with {@link ZipfGenerator}, without a table.
 *
 * <p>Immutable and thread-safe: the threads share one chooser, each with its own random stream.
 */
final class LockChooser {
    /** The most locks a skewed law gets tables for: 12 bytes a lock, so at most 12 MiB. */
    static final int MAX_TABLE_LOCKS = 1 << 20;

    private final int locks;
    /** The law, drawn by rejection-inversion where there are no tables. */
    private final ZipfGenerator zipf;
    /**
     * Column {@code i}'s cut-off: a draw below it keeps {@code i}, else takes {@code alias[i]}; null
     * without tables (a uniform law, or more locks than {@link #MAX_TABLE_LOCKS}).
     */
    private final double[] keep;
    private final int[] alias;

    private LockChooser(int locks, ZipfGenerator zipf, double[] keep, int[] alias) {
        this.locks = locks;
        this.zipf = zipf;
        this.keep = keep;
        this.alias = alias;
    }

    /**
     * @param locks at least 1
     * @param theta the skew, finite and at least 0
     */
    static LockChooser of(int locks, double theta) {
        ZipfGenerator law = new ZipfGenerator(locks, theta); // checks both arguments
        if (theta == 0 || locks == 1 || locks > MAX_TABLE_LOCKS) {
            return new LockChooser(locks, law, null, null); // uniform draws cost no logarithm there
        }
        double[] weight = new double[locks];
        double sum = 0;
        for (int k = locks - 1; k >= 0; k--) { // smallest first: the sum loses the least
            weight[k] = Math.pow(k + 1, -theta);
            sum += weight[k];
        }
        double[] keep = new double[locks];
        int[] alias = new int[locks];
        // scaled so that the mean column is 1; columns below 1 are filled from columns above
        int[] small = new int[locks];
        int[] large = new int[locks];
        int ns = 0;
        int nl = 0;
        for (int k = 0; k < locks; k++) {
            keep[k] = weight[k] * locks / sum;
            if (keep[k] < 1) {
                small[ns++] = k;
            } else {
                large[nl++] = k;
            }
        }
        while (ns > 0 && nl > 0) {
            int s = small[--ns];
            int l = large[--nl];
            alias[s] = l;
            keep[l] -= 1 - keep[s];
            if (keep[l] < 1) {
                small[ns++] = l;
            } else {
                large[nl++] = l;
            }
        }
        // what is left is 1 up to rounding: it keeps its own column
        while (nl > 0) {
            int l = large[--nl];
            keep[l] = 1;
            alias[l] = l;
        }
        while (ns > 0) {
            int s = small[--ns];
            keep[s] = 1;
            alias[s] = s;
        }
        return new LockChooser(locks, law, keep, alias);
    }

    /** The next lock, in [0, locks). */
    int next(SplittableRandom random) {
        if (keep != null) {
            int i = random.nextInt(locks);
            return random.nextDouble() < keep[i] ? i : alias[i];
        }
        return (int) zipf.next(random);
    }

    /** Whether draws go through the alias tables. */
    boolean tabled() {
        return keep != null;
    }

    /**
     * The probability of {@code lock} that the tables give (for the tests): its own column's share,
     * plus the rest of every column it is the alias of.
     */
    double tableProbability(int lock) {
        double p = keep[lock];
        for (int i = 0; i < locks; i++) {
            if (i != lock && alias[i] == lock) {
                p += 1 - keep[i];
            }
        }
        return p / locks;
    }
}
