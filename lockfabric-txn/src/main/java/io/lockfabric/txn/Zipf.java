package io.lockfabric.txn;

import java.util.random.RandomGenerator;

/**
 * Integers of [0, n) with a Zipf(θ) law, 0 the most likely: Gray et al.'s method ("Quickly
 * generating billion-record synthetic databases", SIGMOD 1994), as YCSB draws it, after an O(n)
 * setup of the generalized harmonic number. θ = 0 is the uniform law. Immutable, thread-safe; the
 * caller passes its own seeded generator.
 */
public final class Zipf {
    private final long n;
    private final double theta;
    private final double alpha;
    private final double zetan;
    private final double eta;

    /**
     * @param n     the number of values, at least 1
     * @param theta the skew in [0, 1) (0.99 in the papers), or 0 for uniform
     */
    public Zipf(long n, double theta) {
        if (n < 1) {
            throw new IllegalArgumentException("zipf needs n >= 1, got " + n);
        }
        if (!(theta >= 0 && theta < 1)) {
            throw new IllegalArgumentException("zipf theta must be in [0, 1), got " + theta);
        }
        this.n = n;
        this.theta = theta;
        double z = 0;
        if (theta > 0) {
            for (long i = 1; i <= n; i++) {
                z += 1.0 / Math.pow(i, theta);
            }
        }
        this.zetan = z;
        this.alpha = 1.0 / (1.0 - theta);
        double zeta2 = 1.0 + 1.0 / Math.pow(2, theta);
        this.eta = theta > 0 ? (1 - Math.pow(2.0 / n, 1 - theta)) / (1 - zeta2 / zetan) : 0;
    }

    public long n() {
        return n;
    }

    public double theta() {
        return theta;
    }

    /** The next value in [0, n). */
    public long next(RandomGenerator random) {
        if (theta == 0 || n == 1) {
            return n == 1 ? 0 : random.nextLong(n);
        }
        double u = random.nextDouble();
        double uz = u * zetan;
        if (uz < 1.0) {
            return 0;
        }
        if (uz < 1.0 + Math.pow(0.5, theta)) {
            return Math.min(1, n - 1);
        }
        long v = (long) (n * Math.pow(eta * u - eta + 1, alpha));
        return Math.min(v, n - 1);
    }
}
