// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.FunctionDescriptor;
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
        NativeLibrary lib;
        try {
            lib = NativeLibrary.open(LibIbverbs.LIBRARY);
        } catch (LibraryUnavailableException e) {
            Assumptions.abort(e.getMessage());
            return;
        }
        LibraryUnavailableException e = assertThrows(LibraryUnavailableException.class,
                () -> lib.bind("ibv_jdat_no_such_function", FunctionDescriptor.ofVoid()));
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
    void bothLibrariesBindEveryFunctionHere() throws LibraryUnavailableException {
        try {
            NativeLibrary.open(LibRdmacm.LIBRARY);
        } catch (LibraryUnavailableException e) {
            Assumptions.abort(e.getMessage());
        }
        LibIbverbs.load();
        LibRdmacm rdmacm = LibRdmacm.load();
        assertEquals("RDMA_CM_EVENT_ESTABLISHED", rdmacm.rdma_event_str(LibRdmacm.RDMA_CM_EVENT_ESTABLISHED));
        assertEquals("success", LibIbverbs.load().ibv_wc_status_str(LibIbverbs.IBV_WC_SUCCESS));
    }
}
