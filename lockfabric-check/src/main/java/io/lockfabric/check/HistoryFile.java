package io.lockfabric.check;

import io.lockfabric.lock.Mode;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * One process's recorded history, as written to and read from a file in the format of
 * {@link HistoryFileLayout}: who recorded it (its clock, host, pid) and, per run, the lock table,
 * protocol and holds. {@link CrossProcessChecker} merges several.
 *
 * <p>{@link #write} writes a temporary file beside the target and renames it, so a reader (another
 * process waiting for the set to be complete) never sees a file half written. Immutable.
 *
 * @param header who recorded the history
 * @param runs   its runs, in the order they ran
 */
public record HistoryFile(Header header, List<Run> runs) {
    public HistoryFile {
        runs = List.copyOf(runs);
    }

    /**
     * Who recorded a history.
     *
     * @param clockDomain the clock its times are in
     * @param host        the machine's name (for reports)
     * @param pid         the process id (for reports)
     * @param label       what the process was, shortly (for reports)
     */
    public record Header(ClockDomain clockDomain, String host, long pid, String label) {
        /** This process, on this machine's monotonic clock. */
        public static Header ofThisProcess(String label) {
            return new Header(ClockDomain.ofThisProcess(), ClockDomain.hostName(), ProcessHandle.current().pid(), label);
        }

        /** {@code pid@host}. */
        public String who() {
            return pid + "@" + host;
        }
    }

    /**
     * One run's holds on one lock table.
     *
     * @param kind          {@code point} (lock ids) or {@code range}
     * @param protocol      the protocol's registry name
     * @param table         the lock table's name
     * @param strictFencing whether the protocol's tokens strictly increase per exclusive grant
     * @param holds         the holds; client numbers are the process's own
     */
    public record Run(String kind, String protocol, String table, boolean strictFencing, List<Hold> holds) {
        public static final String POINT = "point";
        public static final String RANGE = "range";

        public Run {
            if (!POINT.equals(kind) && !RANGE.equals(kind)) {
                throw new IllegalArgumentException("a run's kind is point or range, got '" + kind + "'");
            }
            holds = List.copyOf(holds);
        }
    }

    /** Writes this history to {@code file} (through a temporary file beside it, then a rename). */
    public void write(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
        try {
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)) {
                writeTo(out);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Writes this history to {@code stream} in the format of {@link HistoryFileLayout}. */
    public void writeTo(OutputStream stream) throws IOException {
        DataOutputStream out = new DataOutputStream(stream);
        out.write(HistoryFileLayout.MAGIC);
        out.writeShort(HistoryFileLayout.VERSION);
        writeString(out, header.clockDomain().id());
        writeString(out, header.host());
        writeUnsigned(out, header.pid());
        writeString(out, header.label());
        long total = 0;
        for (Run run : runs) {
            out.write(HistoryFileLayout.TAG_RUN);
            writeString(out, run.kind());
            writeString(out, run.protocol());
            writeString(out, run.table());
            out.write(run.strictFencing() ? HistoryFileLayout.RUN_STRICT_FENCING : 0);
            List<Hold> holds = new ArrayList<>(run.holds());
            holds.sort(Comparator.comparingLong(Hold::grantedAt));
            writeUnsigned(out, holds.size());
            long previous = 0;
            for (Hold h : holds) {
                boolean range = run.kind().equals(Run.RANGE);
                boolean never = h.releasedAt() == Hold.NEVER;
                if (!range && h.end() != h.start() + 1) {
                    throw new IllegalArgumentException("a point run's hold is one lock: " + h);
                }
                if (h.client() < 0 || (range && h.end() <= h.start()) || (!never && h.releasedAt() < h.grantedAt())) {
                    throw new IllegalArgumentException("malformed hold: " + h);
                }
                out.write((h.mode() == Mode.EXCLUSIVE ? HistoryFileLayout.HOLD_EXCLUSIVE : 0)
                        | (never ? HistoryFileLayout.HOLD_NEVER_RELEASED : 0) | (range ? HistoryFileLayout.HOLD_RANGE : 0));
                writeUnsigned(out, h.client());
                writeUnsigned(out, h.start());
                if (range) {
                    writeUnsigned(out, h.end() - h.start());
                }
                writeUnsigned(out, HistoryFileLayout.zigzag(h.token()));
                writeUnsigned(out, HistoryFileLayout.zigzag(h.grantedAt() - previous));
                previous = h.grantedAt();
                if (!never) {
                    writeUnsigned(out, h.releasedAt() - h.grantedAt());
                }
            }
            total += holds.size();
        }
        out.write(HistoryFileLayout.TAG_END);
        writeUnsigned(out, total);
        out.flush();
    }

    /**
     * Reads a history file.
     *
     * @throws IOException              if it cannot be read
     * @throws IllegalArgumentException naming the file, if it is not a history file of this version
     *                                  or is cut short
     */
    public static HistoryFile read(Path file) throws IOException {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            return readFrom(in);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /** Reads a history in the format of {@link HistoryFileLayout} from {@code stream}. */
    public static HistoryFile readFrom(InputStream stream) throws IOException {
        DataInputStream in = new DataInputStream(stream);
        try {
            byte[] magic = new byte[HistoryFileLayout.MAGIC.length];
            in.readFully(magic);
            if (!Arrays.equals(magic, HistoryFileLayout.MAGIC)) {
                throw new IllegalArgumentException("not a lockfabric history file (no LFHIST magic)");
            }
            int version = in.readUnsignedShort();
            if (version != HistoryFileLayout.VERSION) {
                throw new IllegalArgumentException("history format version " + version + "; this lockfabric reads "
                        + HistoryFileLayout.VERSION);
            }
            Header header = new Header(new ClockDomain(readString(in)), readString(in), readUnsigned(in), readString(in));
            List<Run> runs = new ArrayList<>();
            long total = 0;
            while (true) {
                int tag = in.readUnsignedByte();
                if (tag == HistoryFileLayout.TAG_END) {
                    long declared = readUnsigned(in);
                    if (declared != total) {
                        throw new IllegalArgumentException("the end says " + declared + " holds, the runs hold " + total);
                    }
                    return new HistoryFile(header, runs);
                }
                if (tag != HistoryFileLayout.TAG_RUN) {
                    throw new IllegalArgumentException("unknown section tag 0x" + Integer.toHexString(tag));
                }
                Run run = readRun(in);
                total += run.holds().size();
                runs.add(run);
            }
        } catch (EOFException e) {
            throw new IllegalArgumentException("cut short (the process that wrote it did not finish?)", e);
        }
    }

    private static Run readRun(DataInputStream in) throws IOException {
        String kind = readString(in);
        String protocol = readString(in);
        String table = readString(in);
        boolean strict = (in.readUnsignedByte() & HistoryFileLayout.RUN_STRICT_FENCING) != 0;
        long count = readUnsigned(in);
        if (count < 0 || count > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a run of " + Long.toUnsignedString(count) + " holds");
        }
        List<Hold> holds = new ArrayList<>((int) Math.min(count, 1 << 20));
        long previous = 0;
        for (long i = 0; i < count; i++) {
            int flags = in.readUnsignedByte();
            if ((flags & ~HistoryFileLayout.HOLD_FLAGS) != 0) {
                throw new IllegalArgumentException("hold flags 0x" + Integer.toHexString(flags) + " unknown to version "
                        + HistoryFileLayout.VERSION);
            }
            long client = readUnsigned(in);
            if (client < 0 || client > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("client number " + Long.toUnsignedString(client));
            }
            long start = readUnsigned(in);
            long end = (flags & HistoryFileLayout.HOLD_RANGE) != 0 ? start + readUnsigned(in) : start + 1;
            long token = HistoryFileLayout.unzigzag(readUnsigned(in));
            long granted = previous + HistoryFileLayout.unzigzag(readUnsigned(in));
            previous = granted;
            long released = (flags & HistoryFileLayout.HOLD_NEVER_RELEASED) != 0 ? Hold.NEVER
                    : granted + readUnsigned(in);
            Mode mode = (flags & HistoryFileLayout.HOLD_EXCLUSIVE) != 0 ? Mode.EXCLUSIVE : Mode.SHARED;
            holds.add(new Hold((int) client, start, end, mode, token, granted, released));
        }
        return new Run(kind, protocol, table, strict, holds);
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > HistoryFileLayout.MAX_STRING_BYTES) {
            throw new IllegalArgumentException("a history string of " + bytes.length + " bytes");
        }
        writeUnsigned(out, bytes.length);
        out.write(bytes);
    }

    private static String readString(DataInputStream in) throws IOException {
        long n = readUnsigned(in);
        if (n < 0 || n > HistoryFileLayout.MAX_STRING_BYTES) {
            throw new IllegalArgumentException("a string of " + Long.toUnsignedString(n) + " bytes");
        }
        byte[] bytes = new byte[(int) n];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static void writeUnsigned(DataOutputStream out, long v) throws IOException {
        while ((v & ~0x7FL) != 0) {
            out.write((int) (v & 0x7F) | HistoryFileLayout.VARINT_MORE);
            v >>>= HistoryFileLayout.VARINT_BITS;
        }
        out.write((int) v);
    }

    private static long readUnsigned(DataInputStream in) throws IOException {
        long v = 0;
        for (int shift = 0; shift < Long.SIZE; shift += HistoryFileLayout.VARINT_BITS) {
            int b = in.readUnsignedByte();
            v |= (long) (b & 0x7F) << shift;
            if ((b & HistoryFileLayout.VARINT_MORE) == 0) {
                return v;
            }
        }
        throw new IllegalArgumentException("a varint longer than 64 bits");
    }
}
