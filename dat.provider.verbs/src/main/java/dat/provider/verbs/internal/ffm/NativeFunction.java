// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * A library function found when the library loads and linked at its first call, as jextract's per-function holder
 * classes do.
 *
 * <p>Why: every {@code dat} command asks the verbs provider whether it is available, which loads both libraries;
 * linking a downcall generates code (a few milliseconds for each new signature), and the 54 functions together cost
 * more than the rest of {@code dat info}. Finding the symbol stays at load, so a library that lacks a function is
 * still refused there, with the fix in the message. Only the control path calls these (the data path calls through
 * the context's ops table, {@link IbvOps}), so the volatile read per call costs nothing that matters.
 */
// Restricted methods on purpose: a NativeFunction exists only once NativeLibrary found its symbol, which VerbsProvider
// allows only after it checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class NativeFunction {

    private final Linker linker;
    private final MemorySegment symbol;
    private final FunctionDescriptor descriptor;
    private volatile MethodHandle handle;

    NativeFunction(Linker linker, MemorySegment symbol, FunctionDescriptor descriptor) {
        this.linker = linker;
        this.symbol = symbol;
        this.descriptor = descriptor;
    }

    /**
     * {@return the downcall handle, with errno capture: it takes {@link Errno#state()} as its first argument} Two
     * threads that race here link it twice, harmlessly: handles are immutable, and either one serves.
     */
    MethodHandle handle() {
        MethodHandle h = handle;
        if (h == null) {
            h = linker.downcallHandle(symbol, descriptor, Errno.CAPTURE);
            handle = h;
        }
        return h;
    }
}
