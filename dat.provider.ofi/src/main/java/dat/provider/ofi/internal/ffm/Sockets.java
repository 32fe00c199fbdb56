// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The two socket calls of the C library the provider makes on descriptors libfabric owns: {@code getsockopt} to tell
 * a TCP connection from a listener and from libfabric's own signalling socket pair, {@code shutdown} to end a
 * connection without closing the descriptor libfabric will close. Linux's values (the same on x86_64 and aarch64).
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
public final class Sockets {

    /** {@code SOL_SOCKET}. */
    public static final int SOL_SOCKET = 1;
    /** {@code SO_ACCEPTCONN}: 1 on a listening socket. */
    public static final int SO_ACCEPTCONN = 30;
    /** {@code SO_DOMAIN}: the socket's address family. */
    public static final int SO_DOMAIN = 39;
    /** {@code SHUT_RDWR}. */
    public static final int SHUT_RDWR = 2;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle GETSOCKOPT = LINKER.defaultLookup().find("getsockopt")
            .map(f -> LINKER.downcallHandle(f, FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS,
                    ADDRESS)))
            .orElse(null);
    private static final MethodHandle SHUTDOWN = LINKER.defaultLookup().find("shutdown")
            .map(f -> LINKER.downcallHandle(f, FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT)))
            .orElse(null);

    private Sockets() {
    }

    /**
     * {@return an int option of a socket, or {@code -1} when {@code getsockopt} fails (not a socket)}
     *
     * @param fd the descriptor
     * @param level {@link #SOL_SOCKET}
     * @param option {@link #SO_ACCEPTCONN}, {@link #SO_DOMAIN}, ...
     */
    public static int intOption(int fd, int level, int option) {
        if (GETSOCKOPT == null) {
            return -1;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(JAVA_INT);
            MemorySegment len = arena.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, 4);
            int rc = (int) GETSOCKOPT.invokeExact(fd, level, option, value, len);
            return rc == 0 ? value.get(JAVA_INT, 0) : -1;
        } catch (Throwable t) {
            throw new IllegalStateException("getsockopt failed unexpectedly", t);
        }
    }

    /**
     * {@code shutdown(fd, how)}.
     *
     * @param fd the descriptor
     * @param how {@link #SHUT_RDWR}
     * @return 0 or -1
     */
    public static int shutdown(int fd, int how) {
        if (SHUTDOWN == null) {
            return -1;
        }
        try {
            return (int) SHUTDOWN.invokeExact(fd, how);
        } catch (Throwable t) {
            throw new IllegalStateException("shutdown failed unexpectedly", t);
        }
    }
}
