// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The libc calls loopback's {@code dat_lmr_create} makes to ask the kernel, as an HCA's registration does, whether
 * a region's pages exist with the access it grants: {@code madvise(2)} with {@code MADV_POPULATE_READ} or
 * {@code MADV_POPULATE_WRITE} (Linux 5.14+) faults every page in exactly as a read or a write would, without
 * touching the memory, and fails with {@code ENOMEM} where a page has no mapping and {@code EFAULT} where the access
 * would raise {@code SIGSEGV} or {@code SIGBUS} (a {@code PROT_READ} mapping asked to be written, {@code PROT_NONE},
 * a file mapping past its end). Loaded on first use, which {@link Pages} allows only when this module has native
 * access. errno is captured per thread ({@link Linker.Option#captureCallState}), as in the verbs provider's bindings.
 */
// Restricted methods on purpose: reached only after Pages checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class LibC {

    /** {@code ENOMEM}: part of the range is not mapped. */
    static final int ENOMEM = 12;
    /** {@code EFAULT}: an access of the kind asked for would fault. */
    static final int EFAULT = 14;
    /** {@code EINVAL}: the kernel does not know the advice (before 5.14), or the range is a PFN or I/O mapping. */
    static final int EINVAL = 22;
    /** {@code EINTR}: a signal came while the pages were faulted in; ask again. */
    static final int EINTR = 4;
    /** {@code MADV_POPULATE_READ}. */
    static final int MADV_POPULATE_READ = 22;
    /** {@code MADV_POPULATE_WRITE}. */
    static final int MADV_POPULATE_WRITE = 23;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    // An automatic arena: the segment is a few bytes and lives as long as its thread needs it.
    private static final ThreadLocal<MemorySegment> STATE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE_LAYOUT));

    /** {@code int madvise(void *addr, size_t length, int advice)}. */
    private static final MethodHandle MADVISE = LINKER.downcallHandle(LINKER.defaultLookup().find("madvise")
            .orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT),
            Linker.Option.captureCallState("errno"));
    /** {@code int getpagesize(void)}. */
    private static final MethodHandle GETPAGESIZE = LINKER.downcallHandle(LINKER.defaultLookup().find("getpagesize")
            .orElseThrow(), FunctionDescriptor.of(JAVA_INT));

    /** The page size, which {@code madvise} needs its start aligned to. */
    static final long PAGE_SIZE = pageSize();

    private LibC() {
    }

    private static long pageSize() {
        try {
            return (int) GETPAGESIZE.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("getpagesize failed", t);
        }
    }

    /**
     * {@return 0, or the errno of {@code madvise(address, length, advice)}}
     *
     * @param address page-aligned start
     * @param length bytes from it
     * @param advice {@link #MADV_POPULATE_READ} or {@link #MADV_POPULATE_WRITE}
     */
    static int madvise(long address, long length, int advice) {
        MemorySegment state = STATE.get();
        int rc;
        try {
            rc = (int) MADVISE.invokeExact(state, MemorySegment.ofAddress(address), length, advice);
        } catch (Throwable t) {
            throw new IllegalStateException("madvise failed", t);
        }
        return rc == 0 ? 0 : (int) ERRNO.get(state, 0L);
    }
}
