// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The one libc call the provider needs: {@code poll(2)}, so a single progress thread per IA can wait on the
 * completion channel, the rdma_cm event channel and the device's async fd at once, with a timeout that lets it
 * notice the IA closing without a wake-up file descriptor.
 */
// Restricted methods on purpose: reached only after VerbsProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
public final class LibC {

    /** {@code POLLIN}. */
    public static final short POLLIN = 0x001;
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 04000;

    private static final MethodHandle POLL = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("poll").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), Errno.CAPTURE);

    /** {@code int fcntl(int fd, int cmd, ...)}: variadic from the third argument. */
    private static final MethodHandle FCNTL = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("fcntl").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Errno.CAPTURE,
            Linker.Option.firstVariadicArg(2));

    private LibC() {
    }

    /**
     * Makes a descriptor non-blocking. librdmacm's {@code rdma_get_cm_event} may consume an event internally (a
     * connect request for a listener being destroyed, say) and read again: on a blocking descriptor that second
     * read waits for the next event even though {@code poll} said one was ready.
     *
     * @param fd the descriptor
     */
    public static void setNonBlocking(int fd) {
        int flags;
        int rc;
        try {
            flags = (int) FCNTL.invokeExact(Errno.state(), fd, F_GETFL, 0);
            rc = flags < 0 ? flags : (int) FCNTL.invokeExact(Errno.state(), fd, F_SETFL, flags | O_NONBLOCK);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
        if (rc < 0) {
            throw new NativeCallException("fcntl", Errno.last());
        }
    }

    /**
     * {@return how many entries have events, 0 on timeout or {@code EINTR}}
     *
     * @param fds an array of {@link Pollfd}
     * @param count how many entries to watch
     * @param timeoutMillis how long to wait
     */
    public static int poll(MemorySegment fds, int count, int timeoutMillis) {
        int rc;
        try {
            rc = (int) POLL.invokeExact(Errno.state(), fds, (long) count, timeoutMillis);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
        if (rc < 0) {
            int errno = Errno.last();
            if (errno == Errno.EINTR) {
                return 0;
            }
            throw new NativeCallException("poll", errno);
        }
        return rc;
    }
}
