// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The C library's calls a {@code dat_evd_wait} blocks in: {@code poll} over the wait descriptors of its CQs
 * ({@code fi_control(FI_GETWAIT)}) and an {@code eventfd} of its own that wakes it for events that come another way
 * (a connection event, a software event, an abort). Linux's values (the same on x86_64 and aarch64).
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
public final class Poll {

    /** {@code POLLIN}. */
    public static final short POLLIN = 0x1;
    /** {@code EFD_NONBLOCK}. */
    public static final int EFD_NONBLOCK = 0x800;
    /** {@code EFD_CLOEXEC}. */
    public static final int EFD_CLOEXEC = 0x80000;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle POLL = find("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG,
            JAVA_INT));
    private static final MethodHandle EVENTFD = find("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle EVENTFD_WRITE = find("eventfd_write", FunctionDescriptor.of(JAVA_INT, JAVA_INT,
            JAVA_LONG));
    private static final MethodHandle EVENTFD_READ = find("eventfd_read", FunctionDescriptor.of(JAVA_INT, JAVA_INT,
            ADDRESS));
    private static final MethodHandle CLOSE = find("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private Poll() {
    }

    private static MethodHandle find(String name, FunctionDescriptor d) {
        return LINKER.defaultLookup().find(name).map(f -> LINKER.downcallHandle(f, d)).orElse(null);
    }

    /** {@return whether the C library has every call here} */
    public static boolean available() {
        return POLL != null && EVENTFD != null && EVENTFD_WRITE != null && EVENTFD_READ != null && CLOSE != null;
    }

    /**
     * {@code poll(fds, nfds, timeout)}.
     *
     * @param fds {@code nfds} {@link Pollfd}s
     * @param nfds how many
     * @param timeoutMs ms, -1 for ever
     * @return the descriptors ready, 0 on timeout, -1 on error (EINTR included)
     */
    public static int poll(MemorySegment fds, long nfds, int timeoutMs) {
        try {
            return (int) POLL.invokeExact(fds, nfds, timeoutMs);
        } catch (Throwable t) {
            throw new IllegalStateException("poll failed unexpectedly", t);
        }
    }

    /**
     * {@code eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)}.
     *
     * @return the descriptor, or -1
     */
    public static int eventfd() {
        try {
            return (int) EVENTFD.invokeExact(0, EFD_NONBLOCK | EFD_CLOEXEC);
        } catch (Throwable t) {
            throw new IllegalStateException("eventfd failed unexpectedly", t);
        }
    }

    /**
     * Adds one to an eventfd's counter: it is readable until {@link #drain}ed.
     *
     * @param fd the eventfd
     */
    public static void signal(int fd) {
        try {
            int rc = (int) EVENTFD_WRITE.invokeExact(fd, 1L);
            assert rc == 0 : "eventfd_write " + rc;
        } catch (Throwable t) {
            throw new IllegalStateException("eventfd_write failed unexpectedly", t);
        }
    }

    /**
     * Resets an eventfd's counter (non-blocking: nothing to read is not an error).
     *
     * @param fd the eventfd
     * @param scratch 8 bytes
     */
    public static void drain(int fd, MemorySegment scratch) {
        try {
            int rc = (int) EVENTFD_READ.invokeExact(fd, scratch);
            assert rc == 0 || rc == -1 : "eventfd_read " + rc;
        } catch (Throwable t) {
            throw new IllegalStateException("eventfd_read failed unexpectedly", t);
        }
    }

    /**
     * {@code close(fd)}.
     *
     * @param fd a descriptor this provider opened
     */
    public static void close(int fd) {
        try {
            int rc = (int) CLOSE.invokeExact(fd);
            assert rc == 0 : "close " + rc;
        } catch (Throwable t) {
            throw new IllegalStateException("close failed unexpectedly", t);
        }
    }
}
