package io.lockfabric.cli;

import picocli.CommandLine;

import java.util.Locale;

/**
 * Parses a size in bytes with an optional binary unit: {@code 4096}, {@code 64k}, {@code 512m},
 * {@code 4g} (k = 2^10, m = 2^20, g = 2^30; a trailing {@code b} or {@code ib} is allowed).
 */
final class ByteSizeConverter implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
        String t = value.trim().toLowerCase(Locale.ROOT).replace("_", "");
        if (t.endsWith("ib")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("b")) {
            t = t.substring(0, t.length() - 1);
        }
        int shift = 0;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'k' -> shift = 10;
                case 'm' -> shift = 20;
                case 'g' -> shift = 30;
                case 't' -> shift = 40;
                default -> { }
            }
        }
        if (shift != 0) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            long n = Long.parseLong(t);
            if (n < 0 || n > (Long.MAX_VALUE >> shift)) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a size in bytes (0 to 2^63)");
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a size: give bytes or 64k, 512m, 4g");
        }
    }
}
