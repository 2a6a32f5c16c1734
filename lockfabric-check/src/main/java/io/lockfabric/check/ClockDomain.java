package io.lockfabric.check;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The monotonic clock a process records its history in, named so that two histories can tell
 * whether their times compare: processes whose {@link #id()} is equal read one clock.
 *
 * <p>Histories are recorded with {@link System#nanoTime()}. On Linux, JDK 25's HotSpot implements
 * it as {@code clock_gettime(CLOCK_MONOTONIC)} ({@code os::javaTimeNanos} in
 * {@code os_posix.cpp}, for every POSIX platform but macOS and AIX), a clock the kernel keeps per
 * boot and per time namespace and that every process of them reads alike: verified on this
 * project's machine (JDK 25.0.3, Linux), where {@code System.nanoTime()} read just before and just
 * after a {@code clock_gettime(CLOCK_MONOTONIC)} called through the FFM API brackets its value
 * within a few microseconds, so the two are one clock with no offset. Hence the id on Linux:
 * {@code linux:BOOT_ID:TIMENS} from {@code /proc/sys/kernel/random/boot_id} (a new one at every
 * boot) and the inode of {@code /proc/self/ns/time} (a container in a time namespace of its own has
 * its own monotonic offset). Elsewhere the id is {@code host:HOSTNAME}: the JDK's nanoTime is a
 * system-wide clock on macOS ({@code mach_absolute_time}) and Windows
 * ({@code QueryPerformanceCounter}) too, but no boot id is read there.
 *
 * @param id what identifies the clock; equal ids, comparable times
 */
public record ClockDomain(String id) {
    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");
    private static final Path TIME_NAMESPACE = Path.of("/proc/self/ns/time");

    public ClockDomain {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("a clock domain needs an id");
        }
    }

    /** The clock {@link System#nanoTime()} reads in this process. */
    public static ClockDomain ofThisProcess() {
        try {
            String boot = Files.readString(BOOT_ID).strip();
            String ns = Files.isSymbolicLink(TIME_NAMESPACE) ? Files.readSymbolicLink(TIME_NAMESPACE).toString() : "time:[-]";
            return new ClockDomain("linux:" + boot + ":" + ns.replaceAll("[^0-9]", ""));
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return new ClockDomain("host:" + hostName());
        }
    }

    /** This machine's name, or {@code localhost} if it has none it can tell. */
    public static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
