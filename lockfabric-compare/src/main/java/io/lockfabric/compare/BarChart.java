package io.lockfabric.compare;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The comparison as a PNG: one horizontal bar per row, two panels side by side: ops/s and p99
 * latency, both on log scales (the peers differ by orders of magnitude). LockFabric's bars are
 * blue, the peers' orange. Drawn with {@code java.awt} headless.
 */
public final class BarChart {
    private static final Color LOCKFABRIC = new Color(0x2b6cb0);
    private static final Color PEER = new Color(0xdd6b20);
    private static final int ROW = 28;
    private static final int PANEL = 380;

    private BarChart() {
    }

    /** Writes the chart of {@code report} to {@code file}. */
    public static void write(CompareReport report, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<PeerResult> rows = report.results();
        BufferedImage img = render(report, rows);
        if (!ImageIO.write(img, "png", file.toFile())) {
            throw new IOException("no PNG writer in this JDK");
        }
    }

    static BufferedImage render(CompareReport report, List<PeerResult> rows) {
        Font font = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
        BufferedImage probe = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB);
        Graphics2D pg = probe.createGraphics();
        FontMetrics fm = pg.getFontMetrics(font);
        int labelWidth = 20 + rows.stream().mapToInt(r -> fm.stringWidth(r.peer())).max().orElse(60);
        pg.dispose();
        int top = 60;
        int width = labelWidth + 2 * PANEL + 60;
        int height = top + rows.size() * ROW + 40;
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        g.setColor(Color.BLACK);
        g.setFont(font.deriveFont(Font.BOLD, 13f));
        String title = report.headline().replaceFirst("^compare: ", "");
        g.drawString(title.length() > 150 ? title.substring(0, 150) : title, 10, 20);
        g.setFont(font);
        for (int i = 0; i < rows.size(); i++) {
            g.setColor(Color.BLACK);
            g.drawString(rows.get(i).peer(), 10, top + i * ROW + 18);
        }
        panel(g, rows, labelWidth, top, "ops/s (log scale, longer is better)", rows.stream().mapToDouble(PeerResult::opsPerSec).toArray(),
                "%.0f");
        panel(g, rows, labelWidth + PANEL + 30, top, "p99 of acquire + release, us (log scale, shorter is better)",
                rows.stream().mapToDouble(PeerResult::p99Us).toArray(), "%.1f");
        g.dispose();
        return img;
    }

    private static void panel(Graphics2D g, List<PeerResult> rows, int x0, int top, String title, double[] values, String format) {
        double max = 1;
        double min = Double.MAX_VALUE;
        for (double v : values) {
            if (v > 0) {
                max = Math.max(max, v);
                min = Math.min(min, v);
            }
        }
        double lo = Math.floor(Math.log10(Math.min(min, max)));
        double hi = Math.ceil(Math.log10(max) + 0.3);
        if (hi <= lo) {
            hi = lo + 1;
        }
        int barMax = PANEL - 70;
        g.setColor(Color.BLACK);
        g.drawString(title, x0, top - 14);
        g.setColor(new Color(0xdddddd));
        g.setStroke(new BasicStroke(1f));
        for (double d = lo; d <= hi; d++) {
            int x = x0 + (int) ((d - lo) / (hi - lo) * barMax);
            g.setColor(new Color(0xdddddd));
            g.drawLine(x, top - 6, x, top + rows.size() * ROW);
            g.setColor(new Color(0x555555));
            g.drawString(decade(d), x - 8, top + rows.size() * ROW + 14);
        }
        for (int i = 0; i < rows.size(); i++) {
            double v = values[i];
            int len = v > 0 ? (int) Math.max(2, (Math.log10(v) - lo) / (hi - lo) * barMax) : 0;
            g.setColor(rows.get(i).lockFabric() ? LOCKFABRIC : PEER);
            g.fillRect(x0, top + i * ROW + 5, len, ROW - 10);
            g.setColor(Color.BLACK);
            g.drawString(String.format(Locale.ROOT, format, v), x0 + len + 4, top + i * ROW + 18);
        }
    }

    private static String decade(double d) {
        int e = (int) d;
        return switch (e) {
            case 0 -> "1";
            case 1 -> "10";
            case 2 -> "100";
            case 3 -> "1K";
            case 4 -> "10K";
            case 5 -> "100K";
            case 6 -> "1M";
            case 7 -> "10M";
            default -> "1e" + e;
        };
    }
}
