package io.lockfabric.apps.objstore;

import java.util.Locale;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Our generator of object-store operations with the parameters of the two Twitter cache traces
 * DecLock's object store runs (DecLock §6.6, from Yang, Yue and Rashmi, "A large scale analysis of
 * hundreds of in-memory cache clusters at Twitter", OSDI'20):
 *
 * <ul>
 *   <li>{@link #small}: mean value 414 B, 65% gets (IOPS-bound);</li>
 *   <li>{@link #large}: mean value 9 213 B, 89% gets (bandwidth-bound).</li>
 * </ul>
 *
 * <p>Keys are drawn from [0, objects) by a Zipf(θ) law, key 0 hottest: the trace study finds
 * object popularity Zipfian in most of Twitter's clusters, and skewed; DecLock does not give the
 * store's θ, so the default is {@value #DEFAULT_THETA}, the skew of its microbenchmark. Each key has
 * one value size (a cache key's value keeps its size from set to set, so sets rewrite their block in
 * place): key k's size is the quantile {@code u_k = frac(1/2 + k/φ)} (a golden-ratio sequence: every
 * run of consecutive keys, and so the hot head of the Zipf law, covers the distribution evenly) of a
 * log-normal law with σ = {@value #SIGMA} (values of a few bytes to tens of times the mean, a long
 * tail like the study's size distributions), clamped to [1, maxValueBytes], and scaled so that the
 * mean value size over OPERATIONS (each key weighted by its Zipf probability: what the memory node's
 * NIC carries) is the trace's mean. Gets are drawn with the trace's get ratio, independently of the
 * key.
 *
 * <p>Immutable and thread-safe; callers pass their own {@link RandomGenerator}. Holds a table of the
 * Zipf law's cumulative probabilities and of the sizes (12 bytes per object).
 */
public final class ObjectTrace {
    /** The default Zipf skew: DecLock's microbenchmark's (the paper gives none for the store). */
    public static final double DEFAULT_THETA = 0.99;
    /** The log-normal's σ. */
    public static final double SIGMA = 1.0;
    /** The largest object count a trace takes. */
    public static final long MAX_OBJECTS = 1L << 22;
    public static final double SMALL_MEAN_BYTES = 414;
    public static final double SMALL_GET_RATIO = 0.65;
    public static final int SMALL_MAX_VALUE_BYTES = 8 * 1024;
    public static final double LARGE_MEAN_BYTES = 9213;
    public static final double LARGE_GET_RATIO = 0.89;
    public static final int LARGE_MAX_VALUE_BYTES = 64 * 1024;
    private static final double INVERSE_PHI = (Math.sqrt(5) - 1) / 2;

    private final String name;
    private final double meanValueBytes;
    private final double getRatio;
    private final int maxValueBytes;
    private final long objects;
    private final double theta;
    private final double[] cdf;
    private final int[] sizes;
    private final double expectedMeanBytes;

    /**
     * A trace of {@code objects} keys.
     *
     * @param meanValueBytes the mean value size over operations, in (0, maxValueBytes]
     * @param getRatio       the share of gets, in [0, 1]
     * @param theta          the Zipf skew, in [0, 10]
     */
    public ObjectTrace(String name, double meanValueBytes, double getRatio, int maxValueBytes, long objects,
                       double theta) {
        this.name = Objects.requireNonNull(name, "name");
        if (objects < 1 || objects > MAX_OBJECTS) {
            throw new IllegalArgumentException("objects must be in [1, " + MAX_OBJECTS + "], got " + objects);
        }
        if (!(theta >= 0 && theta <= 10)) {
            throw new IllegalArgumentException("zipf theta must be in [0, 10], got " + theta);
        }
        if (!(getRatio >= 0 && getRatio <= 1)) {
            throw new IllegalArgumentException("the get ratio must be in [0, 1], got " + getRatio);
        }
        if (maxValueBytes < 1 || maxValueBytes > ObjectStoreLayout.MAX_VALUE_LIMIT) {
            throw new IllegalArgumentException("max value bytes must be in [1, " + ObjectStoreLayout.MAX_VALUE_LIMIT
                    + "], got " + maxValueBytes);
        }
        if (!(meanValueBytes > 0 && meanValueBytes <= maxValueBytes)) {
            throw new IllegalArgumentException("the mean value must be in (0, " + maxValueBytes + "] B, got "
                    + meanValueBytes);
        }
        this.meanValueBytes = meanValueBytes;
        this.getRatio = getRatio;
        this.maxValueBytes = maxValueBytes;
        this.objects = objects;
        this.theta = theta;
        int n = (int) objects;
        double[] p = new double[n];
        double sum = 0;
        for (int k = 0; k < n; k++) {
            p[k] = Math.pow(k + 1, -theta);
            sum += p[k];
        }
        cdf = new double[n];
        double acc = 0;
        for (int k = 0; k < n; k++) {
            p[k] /= sum;
            acc += p[k];
            cdf[k] = acc;
        }
        cdf[n - 1] = 1.0;
        double[] quantile = new double[n];
        for (int k = 0; k < n; k++) {
            double u = (0.5 + k * INVERSE_PHI) % 1.0;
            quantile[k] = Math.exp(SIGMA * inverseNormal(Math.min(Math.max(u, 1e-12), 1 - 1e-12)));
        }
        // the scale whose clamped sizes have the wanted mean over operations (monotone in the scale)
        double lo = 0;
        double hi = maxValueBytes;
        while (weightedMean(p, quantile, hi) < meanValueBytes && hi < 1e12) {
            hi *= 2;
        }
        for (int i = 0; i < 100; i++) {
            double mid = (lo + hi) / 2;
            if (weightedMean(p, quantile, mid) < meanValueBytes) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        sizes = new int[n];
        double mean = 0;
        for (int k = 0; k < n; k++) {
            sizes[k] = size(quantile[k], hi);
            mean += p[k] * sizes[k];
        }
        expectedMeanBytes = mean;
    }

    private int size(double quantile, double scale) {
        return (int) Math.max(1, Math.min(maxValueBytes, Math.round(quantile * scale)));
    }

    private double weightedMean(double[] p, double[] quantile, double scale) {
        double mean = 0;
        for (int k = 0; k < p.length; k++) {
            mean += p[k] * size(quantile[k], scale);
        }
        return mean;
    }

    /** The small-object trace (414 B, 65% gets, values up to 8 KiB). */
    public static ObjectTrace small(long objects, double theta) {
        return new ObjectTrace("small", SMALL_MEAN_BYTES, SMALL_GET_RATIO, SMALL_MAX_VALUE_BYTES, objects, theta);
    }

    /** The large-object trace (9 213 B, 89% gets, values up to 64 KiB). */
    public static ObjectTrace large(long objects, double theta) {
        return new ObjectTrace("large", LARGE_MEAN_BYTES, LARGE_GET_RATIO, LARGE_MAX_VALUE_BYTES, objects, theta);
    }

    /**
     * The trace named {@code small} or {@code large}.
     *
     * @throws IllegalArgumentException for another name
     */
    public static ObjectTrace byName(String name, long objects, double theta) {
        return switch (name) {
            case "small" -> small(objects, theta);
            case "large" -> large(objects, theta);
            default -> throw new IllegalArgumentException("unknown trace '" + name + "': small or large");
        };
    }

    /** The next operation's key. */
    public long nextKey(RandomGenerator random) {
        double u = random.nextDouble();
        int lo = 0;
        int hi = cdf.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cdf[mid] < u) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Whether the next operation is a get (else a set). */
    public boolean nextIsGet(RandomGenerator random) {
        return random.nextDouble() < getRatio;
    }

    /** The value size of {@code key}. */
    public int sizeOf(long key) {
        return sizes[(int) key];
    }

    /** The probability of {@code key} under the Zipf law. */
    public double probabilityOf(long key) {
        return key == 0 ? cdf[0] : cdf[(int) key] - cdf[(int) key - 1];
    }

    /** The value size a random operation carries on average (the trace's mean, up to rounding). */
    public double expectedMeanBytes() {
        return expectedMeanBytes;
    }

    /** The heap a store needs for every key's value: a block per key, plus one largest block. */
    public long heapBytes() {
        long sum = ObjectStoreLayout.blockBytes(maxValueBytes);
        for (int s : sizes) {
            sum += ObjectStoreLayout.blockBytes(s);
        }
        return sum;
    }

    /** Store options that fit this trace: its objects, largest value and heap. */
    public ObjectStoreOptions storeOptions() {
        return ObjectStoreOptions.DEFAULTS.withObjects(objects).withMaxValueBytes(maxValueBytes).withHeapBytes(heapBytes());
    }

    public String name() {
        return name;
    }

    public double meanValueBytes() {
        return meanValueBytes;
    }

    public double getRatio() {
        return getRatio;
    }

    public int maxValueBytes() {
        return maxValueBytes;
    }

    public long objects() {
        return objects;
    }

    public double theta() {
        return theta;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s trace (mean %.0f B, %.0f%% gets, values up to %d B, %d objects, zipf %.2f)",
                name, meanValueBytes, getRatio * 100, maxValueBytes, objects, theta);
    }

    /** Φ⁻¹(p) for p in (0, 1): Acklam's rational approximation (relative error below 1.2e-9). */
    static double inverseNormal(double p) {
        double[] a = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
                -3.066479806614716e+01, 2.506628277459239e+00};
        double[] b = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
                -1.328068155288572e+01};
        double[] c = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
                4.374664141464968e+00, 2.938163982698783e+00};
        double[] d = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
        double low = 0.02425;
        if (p < low) {
            double q = Math.sqrt(-2 * Math.log(p));
            return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                    / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        }
        if (p > 1 - low) {
            double q = Math.sqrt(-2 * Math.log(1 - p));
            return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                    / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        }
        double q = p - 0.5;
        double r = q * q;
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
}
