package io.lockfabric.bench;

import java.util.Locale;

/**
 * A minimal streaming JSON writer into a {@link StringBuilder}: objects, arrays, strings (escaped
 * per RFC 8259), numbers, booleans and null, with commas placed for the caller. Non-finite doubles are
 * written as {@code null}, since JSON has no NaN or infinity. Not thread-safe.
 */
public final class JsonWriter {
    private static final int MAX_DEPTH = 64;
    /** Integral doubles below this are written without a fraction ({@code 3}, not {@code 3.0}). */
    private static final double INTEGRAL_LIMIT = 1e15;

    private final StringBuilder out;
    /** Per nesting level: whether the next member or element needs a comma before it. */
    private final boolean[] needsComma = new boolean[MAX_DEPTH];
    private int depth;

    public JsonWriter(StringBuilder out) {
        this.out = out;
    }

    public JsonWriter beginObject() {
        return open('{');
    }

    public JsonWriter endObject() {
        return close('}');
    }

    public JsonWriter beginArray() {
        return open('[');
    }

    public JsonWriter endArray() {
        return close(']');
    }

    /** Writes a member name; the value follows with one of the value methods. */
    public JsonWriter name(String name) {
        separate();
        string(out, name);
        out.append(':');
        needsComma[depth] = false; // the value that follows completes this member
        return this;
    }

    public JsonWriter value(String s) {
        separate();
        if (s == null) {
            out.append("null");
        } else {
            string(out, s);
        }
        return this;
    }

    /** {@code null}: a value the run does not have (as a non-finite double is written). */
    public JsonWriter nullValue() {
        separate();
        out.append("null");
        return this;
    }

    public JsonWriter value(long v) {
        separate();
        out.append(v);
        return this;
    }

    public JsonWriter value(double v) {
        separate();
        if (Double.isFinite(v)) {
            out.append(v == Math.rint(v) && Math.abs(v) < INTEGRAL_LIMIT ? Long.toString((long) v) : Double.toString(v));
        } else {
            out.append("null");
        }
        return this;
    }

    public JsonWriter value(boolean v) {
        separate();
        out.append(v);
        return this;
    }

    private JsonWriter open(char c) {
        separate();
        out.append(c);
        if (++depth >= MAX_DEPTH) {
            throw new IllegalStateException("JSON nested deeper than " + MAX_DEPTH);
        }
        needsComma[depth] = false;
        return this;
    }

    private JsonWriter close(char c) {
        if (depth == 0) {
            throw new IllegalStateException("nothing to close");
        }
        depth--;
        out.append(c);
        needsComma[depth] = true;
        return this;
    }

    private void separate() {
        if (needsComma[depth]) {
            out.append(',');
        }
        needsComma[depth] = true;
    }

    /** Appends {@code s} as a JSON string literal. */
    public static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
