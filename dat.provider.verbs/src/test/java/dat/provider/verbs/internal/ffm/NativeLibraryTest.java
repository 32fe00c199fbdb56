// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Field;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Library loading turns every failure into the provider's reason, and errno into text. */
class NativeLibraryTest {

    @Test
    void aMissingLibraryNamesItselfAndTheFix() {
        LibraryUnavailableException e = assertThrows(LibraryUnavailableException.class,
                () -> NativeLibrary.open("libjdat-does-not-exist.so.1"));
        assertEquals("libjdat-does-not-exist.so.1 not found: install rdma-core (apt install libibverbs1 librdmacm1 "
                + "ibverbs-providers)", e.getMessage());
    }

    @Test
    void aMissingFunctionNamesItselfAndTheFix() {
        NativeLibrary lib = openOrSkip(LibIbverbs.LIBRARY);
        LibraryUnavailableException e = assertThrows(LibraryUnavailableException.class,
                () -> lib.find("ibv_jdat_no_such_function", FunctionDescriptor.ofVoid()));
        assertTrue(e.getMessage().startsWith("libibverbs.so.1 has no function ibv_jdat_no_such_function: install"),
                e.getMessage());
    }

    @Test
    void errnoIsDescribedWithItsNameAndText() {
        assertEquals("ENOMEM (Cannot allocate memory)", Errno.describe(12));
        assertEquals("ibv_create_cq: EINVAL (Invalid argument)", new NativeCallException("ibv_create_cq", 22)
                .getMessage());
        assertTrue(Errno.describe(0).startsWith("errno 0"));
    }

    @Test
    void bothLibrariesBindEveryFunctionHere() throws Exception {
        openOrSkip(LibRdmacm.LIBRARY);
        LibIbverbs verbs = LibIbverbs.load();
        LibRdmacm rdmacm = LibRdmacm.load();
        assertEquals("RDMA_CM_EVENT_ESTABLISHED", rdmacm.rdma_event_str(LibRdmacm.RDMA_CM_EVENT_ESTABLISHED));
        assertEquals("success", verbs.ibv_wc_status_str(LibIbverbs.IBV_WC_SUCCESS));
        // Linking is lazy (NativeFunction): link every function now, so a descriptor the linker refuses fails here
        // and not at some rare call in a guest.
        assertEquals(31, linkAll(verbs));
        assertEquals(23, linkAll(rdmacm));
    }

    @Test
    void aFunctionIsLinkedOnceAndThenServesItsHandle() throws Exception {
        NativeLibrary lib = openOrSkip(LibIbverbs.LIBRARY);
        NativeFunction f = lib.find("ibv_wc_status_str", FunctionDescriptor.of(ValueLayout.ADDRESS,
                ValueLayout.JAVA_INT));
        assertSame(f.handle(), f.handle());
    }

    /** Opens a library, or skips the test where it is not installed. */
    private static NativeLibrary openOrSkip(String soname) {
        try {
            return NativeLibrary.open(soname);
        } catch (LibraryUnavailableException e) {
            Assumptions.abort(e.getMessage());
            throw new AssertionError("not reached", e);
        }
    }

    /** Links every {@link NativeFunction} field of {@code bindings}; returns how many there are. */
    private static int linkAll(Object bindings) throws IllegalAccessException {
        int n = 0;
        for (Field field : bindings.getClass().getDeclaredFields()) {
            if (field.getType() == NativeFunction.class) {
                field.setAccessible(true);
                assertNotNull(((NativeFunction) field.get(bindings)).handle(), field.getName());
                n++;
            }
        }
        return n;
    }
}
