// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether a region's pages exist with the access {@code dat_lmr_create} grants, asked of the kernel as an HCA's
 * registration asks it when it pins them. Loopback copies with the CPU, so a page with no mapping, or a read-only
 * page it is allowed to write, would kill the JVM at the first message instead of failing the registration.
 * (Regression, D6: an LMR over an unmapped range, made with the restricted {@code MemorySegment.reinterpret}, was
 * accepted, and the first message into it crashed the JVM.)
 *
 * <p>With native access ({@code --enable-native-access=dat.provider.loopback}, as the runtime image grants it), one
 * {@code madvise(MADV_POPULATE_READ | MADV_POPULATE_WRITE)} over the page range: the kernel walks it once, as a
 * registration does, and catches what {@code mincore(2)} would not (a {@code PROT_READ} or {@code PROT_NONE} mapping,
 * a file mapping past its end). Without native access, or on a kernel older than 5.14 that lacks the advice, the
 * mappings are read from {@code /proc/self/maps}: the same answer for holes and protections, at the price of
 * reading the whole map (hundreds of microseconds in a JVM) on every registration.
 */
final class Pages {

    /** Whether this module may call {@link LibC}: checked before any restricted method, so nothing warns. */
    private static final boolean NATIVE = Pages.class.getModule().isNativeAccessEnabled();
    private static final Path MAPS = Path.of("/proc/self/maps");

    private Pages() {
    }

    /**
     * {@return {@code null} when every page of {@code [address, address + length)} is mapped readable (and writable
     * when {@code write}), else why not, for the message}
     *
     * @param address first byte
     * @param length bytes, at least 1
     * @param write whether the region may be written (LOCAL_WRITE or REMOTE_WRITE)
     */
    static String inaccessible(long address, long length, boolean write) {
        if (NATIVE) {
            long page = LibC.PAGE_SIZE;
            long start = address & -page;
            long end = (address + length + page - 1) & -page;
            int errno;
            do {
                errno = LibC.madvise(start, end - start, write ? LibC.MADV_POPULATE_WRITE : LibC.MADV_POPULATE_READ);
            } while (errno == LibC.EINTR);
            String why = switch (errno) {
                case 0 -> null;
                case LibC.ENOMEM -> "has pages with no mapping (madvise: ENOMEM)";
                case LibC.EFAULT -> "has pages that cannot be " + (write ? "written" : "read")
                        + " (madvise: EFAULT; a protection that forbids it, or a file mapping past its end)";
                // EINVAL: a kernel before 5.14, or a PFN or I/O mapping; the map file answers for either.
                default -> "";
            };
            if (why == null || !why.isEmpty()) {
                return why;
            }
        }
        return inaccessibleByMaps(address, length, write);
    }

    /**
     * {@link #inaccessible(long, long, boolean)} from {@code /proc/self/maps} alone.
     *
     * @param address first byte
     * @param length bytes, at least 1
     * @param write whether write permission is needed too
     * @return {@code null} or why not
     */
    static String inaccessibleByMaps(long address, long length, boolean write) {
        try {
            return inaccessible(address, length, write, Files.readString(MAPS));
        } catch (IOException e) {
            return "cannot be checked: " + MAPS + " is unreadable (" + e.getMessage() + ")";
        }
    }

    /**
     * {@return {@code null} when the mappings of {@code maps} (the text of {@code /proc/self/maps}: one mapping a
     * line, {@code start-end perms ...} in hexadecimal, in address order) cover the range with read (and write)
     * permission, else why not}
     *
     * @param address first byte
     * @param length bytes, at least 1
     * @param write whether write permission is needed too
     * @param maps the map file's text
     */
    static String inaccessible(long address, long length, boolean write, String maps) {
        long limit = address + length;
        long covered = address;
        for (String line : (Iterable<String>) maps.lines()::iterator) {
            int dash = line.indexOf('-');
            int space = line.indexOf(' ');
            if (dash <= 0 || space <= dash || line.length() < space + 3) {
                continue;
            }
            long start = Long.parseUnsignedLong(line, 0, dash, 16);
            long end = Long.parseUnsignedLong(line, dash + 1, space, 16);
            if (Long.compareUnsigned(end, covered) <= 0) {
                continue;
            }
            if (Long.compareUnsigned(start, covered) > 0) {
                break;
            }
            if (line.charAt(space + 1) != 'r' || (write && line.charAt(space + 2) != 'w')) {
                return "has pages that cannot be " + (write ? "written" : "read") + " (/proc/self/maps: "
                        + line.substring(space + 1, space + 5) + " at 0x" + Long.toHexString(start) + ")";
            }
            covered = end;
            if (Long.compareUnsigned(covered, limit) >= 0) {
                return null;
            }
        }
        return "has pages with no mapping (none in /proc/self/maps at 0x" + Long.toHexString(covered) + ")";
    }
}
