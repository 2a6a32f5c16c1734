package io.lockfabric.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * An aligned plain-text table for people: a header and rows of cells, columns two spaces apart,
 * numeric columns right-aligned and the others left-aligned, no trailing blanks. Not thread-safe.
 */
public final class TextTable {
    private static final String GAP = "  ";

    private final String[] header;
    private final boolean[] numeric;
    private final List<String[]> rows = new ArrayList<>();

    /** @param numeric per column, whether it is right-aligned */
    public TextTable(String[] header, boolean[] numeric) {
        if (header.length != numeric.length) {
            throw new IllegalArgumentException("one alignment per column");
        }
        this.header = header.clone();
        this.numeric = numeric.clone();
    }

    /** A table whose columns are all left-aligned. */
    public static TextTable leftAligned(String... header) {
        return new TextTable(header, new boolean[header.length]);
    }

    public TextTable row(String... cells) {
        if (cells.length != header.length) {
            throw new IllegalArgumentException("a row has " + header.length + " cells, got " + cells.length);
        }
        rows.add(cells.clone());
        return this;
    }

    /** The header and the rows, each line ending with a newline. */
    public String render() {
        int[] widths = new int[header.length];
        List<String[]> all = new ArrayList<>();
        all.add(header);
        all.addAll(rows);
        for (String[] line : all) {
            for (int i = 0; i < line.length; i++) {
                widths[i] = Math.max(widths[i], line[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] line : all) {
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < line.length; i++) {
                if (i > 0) {
                    out.append(GAP);
                }
                String pad = " ".repeat(widths[i] - line[i].length());
                out.append(numeric[i] ? pad + line[i] : line[i] + pad);
            }
            sb.append(out.toString().stripTrailing()).append('\n');
        }
        return sb.toString();
    }
}
