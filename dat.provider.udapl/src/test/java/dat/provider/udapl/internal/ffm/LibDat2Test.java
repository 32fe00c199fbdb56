// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal.ffm;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Regression: a C provider libdat2 {@code dlopen()}s resolves its {@code dats_get_ia_handle} and
 * {@code dat_registry_*} references against the libdat2 the bridge loaded. With libdat2 in a local scope (what
 * {@code SymbolLookup.libraryLookup} gives) libdaplofa failed to load in the soft-RoCE guest with "undefined symbol:
 * dats_get_ia_handle" and every IA was DAT_NAME_NOT_REGISTERED. Loading libdaplofa needs no device, so this runs
 * on any host with libdapl2.
 */
class LibDat2Test {

    private static final String OFA = "/usr/lib/x86_64-linux-gnu/libdaplofa.so.2";

    @Test
    @SuppressWarnings("restricted")
    void aCProviderLoadsAgainstTheLibdat2TheBridgeLoaded() throws Throwable {
        assumeTrue(Files.exists(Path.of(OFA)) || "true".equals(System.getenv("CI")), "install libdapl2 (apt)");
        LibDat2.load(LibDat2.SONAME);
        Linker linker = Linker.nativeLinker();
        MethodHandle dlopen = linker.downcallHandle(linker.defaultLookup().find("dlopen").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        MethodHandle dlerror = linker.downcallHandle(linker.defaultLookup().find("dlerror").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment h = (MemorySegment) dlopen.invokeExact(arena.allocateFrom("libdaplofa.so.2"),
                    LibDat2.RTLD_NOW);
            String error = h.address() == 0 ? CStruct.string((MemorySegment) dlerror.invokeExact()) : null;
            assertNotEquals(0L, h.address(), () -> "dlopen(libdaplofa.so.2): " + error);
        }
    }
}
