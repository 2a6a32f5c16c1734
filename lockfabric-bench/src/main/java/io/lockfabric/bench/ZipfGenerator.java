package io.lockfabric.bench;

import java.util.random.RandomGenerator;

/**
 * Draws integers of [0, n) with a Zipf(θ) law: value {@code k} has probability proportional to
 * {@code 1 / (k + 1)^θ}, so 0 is the most likely ("lock 0 hottest"). θ = 0 is the uniform law.
 *
 * <p>Sampling is Hörmann and Derflinger's rejection-inversion ("Rejection-inversion to generate
 * variates from monotone discrete distributions", ACM TOMACS 6(3), 1996): invert the integral
 * {@code H} of the hat {@code h(x) = x^-θ} over [1/2, n + 1/2], round to the nearest rank and
 * accept unless the draw fell in the sliver between the hat and the step function. Constant setup,
 * no table, O(1) expected time for any n (10^7 and far beyond) and any θ ≥ 0, on both sides of
 * θ = 1 (where {@code H} is a logarithm).
 *
 * <p>Immutable and thread-safe; the caller passes its own {@link RandomGenerator}, so each thread
 * keeps its own seeded stream.
 */
public final class ZipfGenerator {
    /** Below this |x| the helper functions use their Taylor series, where the closed forms cancel. */
    private static final double TAYLOR_THRESHOLD = 1e-8;

    private final long n;
    private final double theta;
    private final double hIntegralOneHalfToN;
    private final double hIntegralAtOne;
    private final double squeeze;

    /**
     * @param n     the number of values, at least 1
     * @param theta the skew, finite and at least 0 (0 = uniform)
     */
    public ZipfGenerator(long n, double theta) {
        if (n < 1) {
            throw new IllegalArgumentException("zipf needs n >= 1, got " + n);
        }
        if (!(theta >= 0) || Double.isInfinite(theta)) {
            throw new IllegalArgumentException("zipf theta must be finite and >= 0, got " + theta);
        }
        this.n = n;
        this.theta = theta;
        // Ranks are 1-based inside: rank r = value + 1.
        this.hIntegralAtOne = hIntegral(1.5) - 1.0;
        this.hIntegralOneHalfToN = hIntegral(n + 0.5);
        this.squeeze = 2.0 - hIntegralInverse(hIntegral(2.5) - h(2.0));
    }

    public long n() {
        return n;
    }

    public double theta() {
        return theta;
    }

    /** The next value in [0, n). */
    public long next(RandomGenerator random) {
        if (theta == 0.0 || n == 1) {
            return n == 1 ? 0 : random.nextLong(n);
        }
        while (true) {
            double u = hIntegralOneHalfToN + random.nextDouble() * (hIntegralAtOne - hIntegralOneHalfToN);
            double x = hIntegralInverse(u);
            long rank = (long) (x + 0.5);
            if (rank < 1) {
                rank = 1;
            } else if (rank > n) {
                rank = n;
            }
            if (rank - x <= squeeze || u >= hIntegral(rank + 0.5) - h(rank)) {
                return rank - 1;
            }
        }
    }

    /** The exact probability of {@code value}, for tests and reports; O(n) the first time it sums. */
    public double probability(long value, double normalization) {
        if (value < 0 || value >= n) {
            return 0.0;
        }
        return Math.pow(value + 1.0, -theta) / normalization;
    }

    /** The generalized harmonic number {@code Σ_{k=1..n} k^-θ}, the normalization of the law. */
    public double normalization() {
        double sum = 0.0;
        // Smallest terms first, for accuracy.
        for (long k = n; k >= 1; k--) {
            sum += Math.pow(k, -theta);
        }
        return sum;
    }

    private double h(double x) {
        return Math.exp(-theta * Math.log(x));
    }

    /** {@code H(x) = (x^(1-θ) - 1) / (1 - θ)}, which is {@code log x} at θ = 1. */
    private double hIntegral(double x) {
        double logX = Math.log(x);
        return expm1OverX((1.0 - theta) * logX) * logX;
    }

    private double hIntegralInverse(double y) {
        double t = y * (1.0 - theta);
        if (t < -1.0) {
            t = -1.0; // rounding at the far end of θ > 1
        }
        return Math.exp(log1pOverX(t) * y);
    }

    /** {@code (e^x - 1) / x}, continuous at 0. */
    private static double expm1OverX(double x) {
        if (Math.abs(x) > TAYLOR_THRESHOLD) {
            return Math.expm1(x) / x;
        }
        return 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + x * 0.25));
    }

    /** {@code log(1 + x) / x}, continuous at 0. */
    private static double log1pOverX(double x) {
        if (Math.abs(x) > TAYLOR_THRESHOLD) {
            return Math.log1p(x) / x;
        }
        return 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
    }

    @Override
    public String toString() {
        return "Zipf(n=" + n + ", theta=" + theta + ")";
    }
}
