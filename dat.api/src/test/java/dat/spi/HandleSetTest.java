// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The free protocol of an IA's objects: who blocks a free, and how much work a free does. */
class HandleSetTest {

    /** An object of one kind that uses the given others; counts how often the free protocol asks it. */
    private static class Fake extends ProviderHandle {
        static long asked;
        private final DatHandleType type;
        private final Set<ProviderHandle> uses;

        Fake(DatHandleType type, ProviderHandle... uses) {
            this.type = type;
            this.uses = Set.of(uses);
        }

        @Override
        public DatHandleType handleType() {
            return type;
        }

        @Override
        protected DatReturnSubtype invalidHandleSubtype() {
            return DatReturnSubtype.INVALID_HANDLE_LMR;
        }

        @Override
        protected DatReturnSubtype inUseSubtype() {
            return DatReturnSubtype.INVALID_STATE_LMR_IN_USE;
        }

        @Override
        protected String freeCall() {
            return "dat_" + type.name().toLowerCase(Locale.ROOT) + "_free";
        }

        @Override
        protected void destroy() {
            markClosed();
        }

        @Override
        public void close() {
            throw new UnsupportedOperationException("freed through the set");
        }

        @Override
        protected boolean dependsOn(ProviderHandle other) {
            asked++;
            return uses.contains(other);
        }
    }

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

    /**
     * R11: {@code dat_lmr_free} asked every live object of the IA whether it used the LMR, so a free cost O(n) in the
     * live LMRs. Only objects of a kind that can use an LMR (RMRs) are asked now.
     */
    @Test
    void anLmrFreeAsksOnlyTheKindsThatCanUseAnLmr() {
        HandleSet set = new HandleSet("ia0");
        Fake pz = set.register(new Fake(DatHandleType.PZ));
        Fake evd = set.register(new Fake(DatHandleType.EVD));
        set.register(new Fake(DatHandleType.EP, pz, evd));
        List<Fake> lmrs = new ArrayList<>();
        for (int i = 0; i < 4000; i++) {
            lmrs.add(set.register(new Fake(DatHandleType.LMR, pz)));
        }
        Fake.asked = 0;
        for (int i = 0; i < 100; i++) {
            set.free(lmrs.get(i));
        }
        assertTrue(Fake.asked <= 100 * 2, "100 frees of an LMR with 4,000 live asked " + Fake.asked
                + " objects whether they use it; only RMRs (and kinds a provider may widen) can");
    }

    @Test
    void aFreeIsRefusedWhileAUserLivesAndAllowedAfter() {
        HandleSet set = new HandleSet("ia0");
        Fake pz = set.register(new Fake(DatHandleType.PZ));
        Fake cno = set.register(new Fake(DatHandleType.CNO));
        Fake evd = set.register(new Fake(DatHandleType.EVD, cno));
        Fake srq = set.register(new Fake(DatHandleType.SRQ, pz));
        Fake ep = set.register(new Fake(DatHandleType.EP, pz, evd, srq));
        Fake lmr = set.register(new Fake(DatHandleType.LMR, pz));
        Fake rmr = set.register(new Fake(DatHandleType.RMR, pz, lmr));
        Fake psp = set.register(new Fake(DatHandleType.PSP, evd));
        for (Fake used : List.of(pz, cno, evd, srq, lmr)) {
            DatException e = assertThrows(DatException.class, () -> set.free(used), used.freeCall());
            assertEquals(DatReturn.INVALID_STATE, e.type(), e::getMessage);
        }
        set.free(rmr);
        set.free(lmr);
        set.free(ep);
        set.free(srq);
        set.free(psp);
        set.free(evd);
        set.free(cno);
        set.free(pz);
        set.requireEmptyForGracefulClose();
    }

    /** A provider whose objects use kinds DAT's model does not name widens them, and is held to it. */
    @Test
    void aWidenedKindIsAsked() {
        HandleSet set = new HandleSet("ia0");
        Fake lmr = set.register(new Fake(DatHandleType.LMR));
        Fake ep = set.register(new Fake(DatHandleType.EP, lmr) {
            @Override
            protected boolean mayDependOn(DatHandleType kind) {
                return true;
            }
        });
        assertThrows(DatException.class, () -> set.free(lmr));
        set.free(ep);
        set.free(lmr);
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
