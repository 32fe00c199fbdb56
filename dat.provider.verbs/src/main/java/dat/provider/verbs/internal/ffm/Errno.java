// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * errno of the last control-path call made by this thread.
 *
 * <p>Every libibverbs and librdmacm downcall handle is linked with {@link Linker.Option#captureCallState
 * captureCallState("errno")}, so the JVM copies errno into a segment right after the C function returns, before
 * anything else on the thread can overwrite it. That segment is per thread (a {@link ThreadLocal}, allocated
 * once per thread): a shared static segment would let two threads' calls overwrite each other's errno.
 */
public final class Errno {

    // The errno values the provider tests for, as on Linux (asm-generic/errno-base.h, errno.h), in one place;
    // VerbsLayoutOffsetTest checks each against <errno.h>.
    /** {@code EPERM}. */
    public static final int EPERM = 1;
    /** {@code EINTR}: a signal interrupted the call; poll again. */
    public static final int EINTR = 4;
    /** {@code EAGAIN}: a non-blocking descriptor has nothing to read. */
    public static final int EAGAIN = 11;
    /** {@code ENOMEM}: a queue or the device is out of room. */
    public static final int ENOMEM = 12;
    /** {@code EINVAL}. */
    public static final int EINVAL = 22;
    /** {@code EOPNOTSUPP}. */
    public static final int EOPNOTSUPP = 95;
    /** {@code EADDRINUSE}: another id is bound to the port {@code rdma_bind_addr} asked for. */
    public static final int EADDRINUSE = 98;
    /** {@code ETIMEDOUT}: rdma_cm's status of a connection request nobody answered. */
    public static final int ETIMEDOUT = 110;

    /** The option every control-path downcall handle is linked with. */
    static final Linker.Option CAPTURE = Linker.Option.captureCallState("errno");

    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    // An automatic arena: the segment is a few bytes and lives as long as its thread needs it.
    private static final ThreadLocal<MemorySegment> STATE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE_LAYOUT));

    private Errno() {
    }

    /** {@return this thread's capture segment, the first argument of every errno-capturing handle} */
    public static MemorySegment state() {
        return STATE.get();
    }

    /** {@return errno as captured after this thread's last errno-capturing downcall} */
    public static int last() {
        return (int) ERRNO.get(STATE.get(), 0L);
    }

    /**
     * {@return the errno's symbolic name and text, for example {@code ENOMEM (Cannot allocate memory)}; {@code errno 0}
     * when there was none}
     *
     * @param errno an errno value
     */
    public static String describe(int errno) {
        if (errno == 0) {
            return "errno 0 (the library reported no cause)";
        }
        String name = Strerror.call(Strerror.NAME, errno);
        String text = Strerror.call(Strerror.DESC, errno);
        if (name == null && text == null) {
            return "errno " + errno;
        }
        return (name == null ? "errno " + errno : name) + (text == null ? "" : " (" + text + ")");
    }

    /**
     * glibc's {@code strerrorname_np} and {@code strerrordesc_np} (2.32+): thread safe, returning static
     * strings, unlike {@code strerror}. Initialised on first use, which only happens after the provider has
     * checked native access; a C library without them gives plain numbers.
     */
    @SuppressWarnings("restricted") // first used after the native access check
    private static final class Strerror {
        static final MethodHandle NAME = find("strerrorname_np");
        static final MethodHandle DESC = find("strerrordesc_np");

        private static MethodHandle find(String name) {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find(name)
                    .map(s -> linker.downcallHandle(s, FunctionDescriptor.of(ValueLayout.ADDRESS,
                    ValueLayout.JAVA_INT)))
                    .orElse(null);
        }

        static String call(MethodHandle handle, int errno) {
            if (handle == null) {
                return null;
            }
            try {
                MemorySegment s = (MemorySegment) handle.invokeExact(errno);
                return s.address() == 0 ? null : s.reinterpret(256).getString(0);
            } catch (Throwable e) {
                return null;
            }
        }
    }
}
