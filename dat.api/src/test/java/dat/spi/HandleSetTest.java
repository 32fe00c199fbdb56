// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import org.junit.jupiter.api.Test;

/** The free protocol's guarantees that do not rest on a provider's {@code destroy()} doing its part. */
class HandleSetTest {

    /** A provider object whose {@code destroy()} releases its resources but forgets {@code markClosed()}. */
    private static final class Forgetful extends ProviderHandle {
        int destroyed;

        @Override
        protected DatReturnSubtype invalidHandleSubtype() {
            return DatReturnSubtype.INVALID_HANDLE_PZ;
        }

        @Override
        protected DatReturnSubtype inUseSubtype() {
            return DatReturnSubtype.INVALID_STATE_PZ_IN_USE;
        }

        @Override
        protected String freeCall() {
            return "dat_pz_free";
        }

        @Override
        protected void destroy() {
            destroyed++;
        }

        @Override
        public DatHandleType handleType() {
            return DatHandleType.PZ;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aFreedObjectIsClosedEvenWhenItsDestroyForgotToMarkIt() {
        HandleSet set = new HandleSet("test0");
        Forgetful h = set.register(new Forgetful());
        set.free(h);
        assertTrue(h.isClosed(), "a freed object still reports itself open");
        DatException e = assertThrows(DatException.class, () -> h.requireOpen("dat_pz_query"));
        assertEquals(DatReturn.INVALID_HANDLE, e.type());
        set.free(h);
        assertEquals(1, h.destroyed, "a second free destroyed the object again");
    }

    @Test
    void anAbruptCloseClosesEveryObjectEvenWhenTheirDestroyForgotToMarkThem() {
        HandleSet set = new HandleSet("test0");
        Forgetful a = set.register(new Forgetful());
        Forgetful b = set.register(new Forgetful());
        set.destroyAll(DatHandleType.values());
        assertTrue(a.isClosed() && b.isClosed(), "objects of an abruptly closed IA still report themselves open");
        assertEquals(1, a.destroyed, "destroys of the first object");
        assertEquals(1, b.destroyed, "destroys of the second object");
    }
}
