// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import dat.spi.NativeEnvironment;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;

/** Loading a shared library and binding its functions, with failures turned into the provider's reason. */
// Restricted methods on purpose: reached only after VerbsProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class NativeLibrary {

    /** The fix for a missing libibverbs or librdmacm, on Debian and Ubuntu. */
    static final String INSTALL_HINT = "install rdma-core (apt install libibverbs1 librdmacm1 ibverbs-providers)";

    private final String name;
    private final SymbolLookup lookup;
    private final Linker linker = Linker.nativeLinker();

    private NativeLibrary(String name, SymbolLookup lookup) {
        this.name = name;
        this.lookup = lookup;
    }

    /**
     * Opens a library for the life of the JVM: the global arena, because unloading libibverbs under live
     * device contexts would leave the kernel objects' user-space halves pointing at unmapped code.
     *
     * @param soname the library's soname, for example {@code libibverbs.so.1}
     * @return the library
     * @throws LibraryUnavailableException if the dynamic loader cannot find or load it
     */
    static NativeLibrary open(String soname) throws LibraryUnavailableException {
        // libibverbs reads its environment as it starts; no other jDAT provider may add a variable after that.
        SymbolLookup lookup;
        try {
            lookup = NativeEnvironment.load(soname, (function, signature) -> Linker.nativeLinker().defaultLookup()
                    .find(function).map(f -> Linker.nativeLinker().downcallHandle(f, signature)).orElse(null),
                    name -> SymbolLookup.libraryLookup(name, Arena.global()));
        } catch (IllegalArgumentException | IllegalCallerException e) {
            throw new LibraryUnavailableException(soname + " not found: " + INSTALL_HINT, e);
        }
        return new NativeLibrary(soname, lookup);
    }

    /**
     * Finds a function, to be linked at its first call ({@link NativeFunction}).
     *
     * @param function the C function name; the dynamic loader picks its default symbol version
     * @param descriptor its C signature
     * @return the function
     * @throws LibraryUnavailableException if the library does not export the function
     */
    NativeFunction find(String function, FunctionDescriptor descriptor) throws LibraryUnavailableException {
        MemorySegment symbol = lookup.find(function).orElseThrow(() -> new LibraryUnavailableException(
                name + " has no function " + function + ": " + INSTALL_HINT + " (rdma-core 17 or newer)", null));
        return new NativeFunction(linker, symbol, descriptor);
    }
}
