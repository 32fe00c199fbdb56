// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The introductions an shm 1.17 endpoint sent that a live process has not taken in yet. Ahead of an endpoint's first
 * message to a peer, shm queues a mapping request carrying the endpoint's name in the peer's region ({@code
 * smr_send_name}); the peer's progress then opens the region of that name ({@code smr_progress_connreq}) and, when the
 * name is gone from {@code /dev/shm} (the endpoint closed, or its process ended), compares the pid of a NULL mapping:
 * SIGSEGV in the peer (docs/ofi.md, "Open"). A peer stopped, or not progressing, past any timeout jDAT gives it still
 * has the request queued, so a closing endpoint asks its own region instead: shm marks there, per peer, that the
 * request went ({@code name_sent}) and the peer marks there that it took it in (the id it gave the endpoint,
 * {@code addr.id}).
 *
 * <p>The region is read from its file as shm 1.17 lays it out on x86-64 ({@code include/ofi_shm.h}: {@code struct
 * smr_region}, {@code struct smr_peer_data}); a file that differs in any field this reads (the layout's version, the
 * owner's pid, the region's size, where the peer table lies) is not interpreted, and the endpoint is taken to await
 * nobody, as before this check.
 *
 * <p>It also tells who holds a region's name ({@link #holder}), which a listen endpoint asks before it takes one.
 */
public final class ShmIntroductions {

    private static final String DIR = "/dev/shm";
    /** {@code SMR_VERSION} of libfabric 1.17. */
    private static final int VERSION = 4;
    private static final int OFF_VERSION = 0;
    private static final int OFF_PID = 4;
    private static final int OFF_TOTAL_SIZE = 40;
    private static final int OFF_PEER_DATA = 96;
    private static final int HEADER = 104;
    /** {@code SMR_MAX_PEERS}, {@code SMR_NAME_MAX}. */
    private static final int MAX_PEERS = 256;
    private static final int NAME_MAX = 256;
    /** {@code struct smr_peer_data}: {@code addr} (its name, then its id), {@code sar_status}, {@code name_sent}. */
    private static final int PEER_DATA = NAME_MAX + 8 + 4 + 4;
    private static final int OFF_ID = NAME_MAX;
    private static final int OFF_NAME_SENT = NAME_MAX + 12;

    /** {@link #holder}: no file of that name. */
    public static final long NONE = -1;
    /** {@link #holder}: a file that no live process maps. */
    public static final long STALE = 0;

    private ShmIntroductions() {
    }

    /**
     * {@return the pid of a live process, not this one, that has not taken in an introduction of the endpoint named
     * {@code address}, or 0 when there is none or the region cannot be read as shm 1.17's}
     *
     * @param address the endpoint's shm address as {@code fi_getname} gives it ({@code fi_shm://name}, NUL-terminated)
     * @param sentTo the file ({@link #regionKey}) a peer name (as the endpoint inserted it) had when the endpoint
     *     reached it, or {@code null}, where the name may be another region's since (a listen name, which a new
     *     listener takes over): a request queued in the region that had it then is not in the one that has it now
     */
    public static long awaitedBy(byte[] address, Function<String, Object> sentTo) {
        if (!isShm(address)) {
            return 0;
        }
        Path file = fileOf(address);
        ByteBuffer region = read(file, HEADER);
        if (region == null || region.get(OFF_VERSION) != VERSION || region.getInt(OFF_PID) != self()) {
            return 0;
        }
        long total = region.getLong(OFF_TOTAL_SIZE);
        long table = region.getLong(OFF_PEER_DATA);
        if (total <= 0 || total > Integer.MAX_VALUE || table < HEADER || table > total - MAX_PEERS * PEER_DATA) {
            return 0;
        }
        region = read(file, (int) (table + (long) MAX_PEERS * PEER_DATA));
        if (region == null) {
            return 0;
        }
        for (int i = 0; i < MAX_PEERS; i++) {
            int at = (int) table + i * PEER_DATA;
            if (region.getInt(at + OFF_NAME_SENT) == 0 || region.getLong(at + OFF_ID) >= 0) {
                continue;
            }
            long pid = owner(peerName(region, at), sentTo);
            if (pid != 0) {
                return pid;
            }
        }
        return 0;
    }

    /**
     * {@return who holds the region file {@code name}: the pid of a live process that maps it (this one included),
     * {@link #STALE} for a file no live process maps, or {@link #NONE} when there is no file} shm 1.17's
     * {@code fi_enable} of an endpoint named after an existing region reads the pid the file records and, when that
     * process lives, refuses the name ({@code -FI_EBUSY}) and removes the file on the way out ({@code smr_retry_map}):
     * the holder's endpoint stays, but no process can look its name up any more. A pid is checked against the
     * process's mappings, as a listener that ended without removing its file (killed) leaves a pid another process
     * may have since; shm takes that one for a holder too, and removes the file.
     *
     * @param name the file's name in {@code /dev/shm}
     */
    public static long holder(String name) {
        Path file = fileOf(name);
        ByteBuffer header = read(file, OFF_PID + 4);
        if (header == null) {
            return file != null && Files.exists(file) ? STALE : NONE;
        }
        long pid = livePid(header);
        if (pid == 0) {
            return STALE;
        }
        String path = file.toString();
        try (Stream<String> maps = Files.lines(Path.of("/proc", Long.toString(pid), "maps"))) {
            // A mapping of the file as it is now ends with its path; one of a removed file ends "(deleted)".
            return maps.anyMatch(m -> m.endsWith(path)) ? pid : STALE;
        } catch (IOException | UncheckedIOException e) { // its mappings cannot be read (another user's): a holder
            return pid;
        }
    }

    private static boolean isShm(byte[] address) {
        byte[] scheme = RdmEndpoint.SHM_SCHEME.getBytes(StandardCharsets.US_ASCII);
        return address.length > scheme.length && Arrays.equals(address, 0, scheme.length, scheme, 0, scheme.length);
    }

    /**
     * {@return the live process, not this one, whose region is named {@code name}, or 0} A name no longer in
     * {@code /dev/shm} took its region's queue with it; a region whose process ended is read by nobody.
     */
    private static long owner(String name, Function<String, Object> sentTo) {
        Path file = fileOf(name);
        Object then = file == null ? null : sentTo.apply(name);
        if (then != null && !then.equals(regionKey(file.getFileName().toString()))) {
            return 0;
        }
        long pid = livePid(read(file, OFF_PID + 4));
        return pid == self() ? 0 : pid;
    }

    /** {@return the pid a region's header records when it is laid out as 1.17's and that process lives, or 0} */
    private static long livePid(ByteBuffer header) {
        if (header == null || header.get(OFF_VERSION) != VERSION) {
            return 0;
        }
        long pid = header.getInt(OFF_PID);
        return pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) ? pid : 0;
    }

    /**
     * {@return the identity of the region file named {@code name} ({@link BasicFileAttributes#fileKey}), or {@code
     * null} when there is none or it cannot be told}
     *
     * @param name the file's name in {@code /dev/shm}
     */
    public static Object regionKey(String name) {
        try {
            return Files.readAttributes(Path.of(DIR, name), BasicFileAttributes.class).fileKey();
        } catch (IOException | InvalidPathException e) { // none, or unreadable: unknown
            return null;
        }
    }

    private static String peerName(ByteBuffer region, int at) {
        int n = 0;
        while (n < NAME_MAX && region.get(at + n) != 0) {
            n++;
        }
        byte[] b = new byte[n];
        region.get(at, b);
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    private static Path fileOf(byte[] address) {
        int n = 0;
        while (n < address.length && address[n] != 0) {
            n++;
        }
        return fileOf(new String(address, 0, n, StandardCharsets.ISO_8859_1));
    }

    /** The file of an shm name: what follows the scheme ({@code smr_no_prefix}), without the leading {@code /}s. */
    private static Path fileOf(String name) {
        int scheme = name.indexOf("://");
        String n = scheme < 0 ? name : name.substring(scheme + 3);
        int i = 0;
        while (i < n.length() && n.charAt(i) == '/') {
            i++;
        }
        // shm_open takes no '/' inside a name: such a name (written into a region by whoever can) names no region.
        return n.indexOf('/', i) >= 0 || i == n.length() ? null : Path.of(DIR, n.substring(i));
    }

    /** {@return the first {@code size} bytes of {@code file}, or {@code null} when it is missing or shorter} */
    private static ByteBuffer read(Path file, int size) {
        if (file == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.nativeOrder());
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.READ)) {
            while (b.hasRemaining()) {
                if (c.read(b, b.position()) < 0) {
                    return null;
                }
            }
        } catch (IOException e) { // missing (NoSuchFileException) or unreadable: nothing to interpret
            return null;
        }
        return b.clear();
    }

    private static long self() {
        return ProcessHandle.current().pid();
    }
}
