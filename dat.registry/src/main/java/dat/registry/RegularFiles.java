// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Checks that a path the registry is about to open is a regular file. Opening a FIFO for reading blocks until
 * someone writes to it and a device can stream without end, so {@code dat.conf}, {@code DAT_OVERRIDE} and the jars of
 * the provider path are opened only when they are regular files, and anything else is a reason naming what it is.
 */
final class RegularFiles {

    /** {@code st_mode} file type bits and the types, as {@code sys/stat.h} defines them. */
    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;
    private static final int S_IFCHR = 0020000;
    private static final int S_IFBLK = 0060000;
    private static final int S_IFSOCK = 0140000;

    /** What {@link #problem} says of a path with nothing there. */
    static final String MISSING = "no such file or directory";

    private RegularFiles() {
    }

    /**
     * {@return {@code null} when the path is (or links to) a regular file, else why it is not: missing, a directory,
     * a FIFO, a device, a socket, a symbolic link that leads nowhere or loops}
     *
     * @param path the path
     */
    static String problem(Path path) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            return Files.isSymbolicLink(path) ? "is a symbolic link to a file that does not exist"
                    : MISSING;
        } catch (FileSystemException e) {
            return Files.isSymbolicLink(path) ? "is a symbolic link that cannot be followed (a loop?): "
                    + SafeText.escape(e.getReason()) : "cannot be read: " + SafeText.escape(e.getReason());
        } catch (IOException | SecurityException e) {
            return "cannot be read: " + Discovery.describe(e);
        }
        if (attributes.isRegularFile()) {
            return null;
        }
        if (attributes.isDirectory()) {
            return "is a directory, not a file";
        }
        return "is " + kind(path) + ", not a regular file; it is not opened";
    }

    private static String kind(Path path) {
        int mode;
        try {
            mode = (Integer) Files.getAttribute(path, "unix:mode");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
            return "a special file";
        }
        return switch (mode & S_IFMT) {
            case S_IFIFO -> "a FIFO (named pipe)";
            case S_IFCHR -> "a character device";
            case S_IFBLK -> "a block device";
            case S_IFSOCK -> "a socket";
            default -> "a special file";
        };
    }

    /**
     * Reads a stream to its end, refusing more than {@code limit} bytes, so an entry that inflates without end costs
     * at most the limit.
     *
     * @param in the stream, not closed
     * @param limit the most bytes accepted
     * @return the bytes, or {@code null} when there were more than {@code limit}
     * @throws IOException when reading fails
     */
    static byte[] readAtMost(InputStream in, int limit) throws IOException {
        byte[] bytes = in.readNBytes(limit + 1);
        return bytes.length > limit ? null : bytes;
    }
}
