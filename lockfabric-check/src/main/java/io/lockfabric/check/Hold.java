package io.lockfabric.check;

import io.lockfabric.lock.Mode;

/**
 * One grant as the checker sees it: who held which resource range [start, end) in which mode, its
 * fencing token, and when (observer time) it was asked for, granted and released. A mutex lock
 * {@code id} is the range [id, id + 1). {@code releasedAt} is {@link Long#MAX_VALUE} for a grant
 * never released (the holder crashed or the run ended).
 */
public record Hold(int client, long start, long end, Mode mode, long token, long requestedAt, long grantedAt,
                   long releasedAt) {
    public static final long NEVER = Long.MAX_VALUE;

    /** A hold whose request time is not known (taken as its grant time). */
    public Hold(int client, long start, long end, Mode mode, long token, long grantedAt, long releasedAt) {
        this(client, start, end, mode, token, grantedAt, grantedAt, releasedAt);
    }

    /** The same hold, released at {@code at} (a crashed holder's hold ends at its crash). */
    public Hold releasedAt(long at) {
        return new Hold(client, start, end, mode, token, requestedAt, grantedAt, at);
    }

    public boolean overlapsInTime(Hold o) {
        return grantedAt < o.releasedAt && o.grantedAt < releasedAt;
    }

    public boolean overlapsInSpace(Hold o) {
        return start < o.end && o.start < end;
    }

    public boolean conflictsWith(Hold o) {
        return client != o.client && mode.conflictsWith(o.mode) && overlapsInSpace(o) && overlapsInTime(o);
    }

    @Override
    public String toString() {
        String what = end - start == 1 ? "lock " + start : "range [" + start + ", " + end + ")";
        String until = releasedAt == NEVER ? "never released" : "released at " + releasedAt;
        return "client " + client + " held " + what + " " + mode + " token " + token + " granted at " + grantedAt + ", "
                + until;
    }
}
