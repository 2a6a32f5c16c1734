package io.lockfabric.txn;

import java.util.random.RandomGenerator;

/** A transaction mix: draws a type with probability proportional to its weight. Immutable. */
final class Mix {
    private final int[] cumulative;

    Mix(int[] weights) {
        cumulative = new int[weights.length];
        int sum = 0;
        for (int i = 0; i < weights.length; i++) {
            if (weights[i] < 0) {
                throw new IllegalArgumentException("a mix weight must not be negative, got " + weights[i]);
            }
            sum += weights[i];
            cumulative[i] = sum;
        }
        if (sum <= 0) {
            throw new IllegalArgumentException("a mix needs a positive weight");
        }
    }

    int next(RandomGenerator random) {
        int r = random.nextInt(cumulative[cumulative.length - 1]);
        for (int i = 0; i < cumulative.length; i++) {
            if (r < cumulative[i]) {
                return i;
            }
        }
        throw new AssertionError("unreachable");
    }
}
