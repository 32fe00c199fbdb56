// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static dat.provider.udapl.internal.ffm.CStruct.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.DatCompletionFlags;
import dat.api.DatEp;
import dat.api.DatEvdFlags;
import dat.api.DatLmr;
import dat.api.DatReturn;
import dat.api.DatRmrParam;
import dat.provider.udapl.internal.ffm.DatStructs;
import dat.spi.AbstractRmr;
import dat.spi.ProviderHandle;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * A remote memory region ({@code dat_rmr_create}): the C RMR, bound and unbound with {@code dat_rmr_bind}, queried
 * with {@code dat_rmr_query} and freed with {@code dat_rmr_free}, each under the IA's lock after the Java checks.
 *
 * <p><b>DAT 2.0's bind.</b> libdat2's {@code dat_rmr_bind(rmr, lmr, lmr_triplet, mem_priv, va_type, ep, cookie,
 * completion_flags, rmr_context)} takes the LMR's handle beside a {@code DAT_LMR_TRIPLET} (DAT 1.2 has only the
 * triplet) and a {@code DAT_VA_TYPE}; its unbind is the same call with a triplet of {@code segment_length} 0, which
 * OFA's {@code dapl_rmr_bind} dereferences either way, so an unbind passes a zeroed triplet and a NULL LMR.
 * {@code dapli_rmr_bind_fuse} dereferences the LMR handle without checking it: the bridge passes only a live LMR of
 * its IA. The bind's completion is a {@code DAT_RMR_BIND_COMPLETION_EVENT} on the EP's request EVD, which
 * {@link UdaplEvents} resolves to this object through {@link UdaplIa#rmr}.
 *
 * <p>OFA takes a reference on the LMR of a posted bind until an unbind or the RMR's free, and refuses
 * {@code dat_lmr_free} meanwhile; {@link #dependsOn} tells the shell so, which refuses that free before C does.
 */
// Restricted methods on purpose: reached only after UdaplProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class UdaplRmr extends AbstractRmr<UdaplIa, UdaplPz> {

    private static final StructLayout P = DatStructs.DAT_RMR_PARAM;
    private static final StructLayout T = DatStructs.DAT_LMR_TRIPLET;
    private static final long P_TRIPLET = offset(P, "lmr_triplet");
    private static final long T_VA = offset(T, "virtual_address");
    private static final long T_LENGTH = offset(T, "segment_length");
    private static final long T_CONTEXT = offset(T, "lmr_context");
    private static final int FIELD_LMR_TRIPLET = DatStructs.DAT_RMR_FIELD_LMR_TRIPLET;
    /** Every {@code DAT_RMR_PARAM} member but the triplet, which OFA refuses for an unbound RMR. */
    static final int FIELD_UNBOUND = DatStructs.DAT_RMR_FIELD_ALL & ~FIELD_LMR_TRIPLET;
    /** The completion flags {@code dat_rmr_bind} takes. */
    static final int BIND_FLAGS = DatCompletionFlags.SUPPRESS | DatCompletionFlags.UNSIGNALLED
                                  | DatCompletionFlags.BARRIER_FENCE;

    /** The C handle. */
    final MemorySegment handle;
    private final UdaplIa ia;
    /** Scratch of the bind, written under the IA's lock: no allocation on the data path. */
    private final MemorySegment triplet;
    private final MemorySegment contextOut;
    private volatile int context;
    /** The LMR of the last bind posted, {@code null} after an unbind; guarded by the IA's lock. */
    private UdaplLmr bound;

    UdaplRmr(UdaplPz pz) {
        super(pz);
        ia = pz.owner();
        try (Arena local = Arena.ofConfined()) {
            MemorySegment out = local.allocate(ADDRESS);
            UdaplIa.check("dat_rmr_create", ia.lib.rmrCreate(pz.handle, out));
            handle = UdaplIa.handleOut(out);
            MemorySegment p = local.allocate(P);
            int rc = ia.lib.rmrQuery(handle, FIELD_UNBOUND, p);
            if (rc != 0) {
                ia.freed("dat_rmr_free", ia.lib.rmrFree(handle));
                UdaplIa.check("dat_rmr_query", rc);
            }
            context = p.get(JAVA_INT, offset(P, "rmr_context"));
        }
        // The IA's arena lives until dat_ia_close: allocated only for an RMR C made.
        triplet = ia.arena.allocate(T);
        contextOut = ia.arena.allocate(JAVA_INT);
    }

    /** Under the IA's lock: the handle stops resolving before C frees it. */
    @Override
    protected void destroy() {
        markClosed();
        ia.rmrs.remove(handle.address(), this);
        ia.untrack(handle.address());
        bound = null;
        ia.freed("dat_rmr_free", ia.lib.rmrFree(handle));
    }

    /** The PZ, and the LMR OFA holds a reference on while a bind of it stands. */
    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return super.dependsOn(other) || (other != null && other == bound);
    }

    @Override
    public int rmrContext() {
        return context;
    }

    /** {@code dat_rmr_bind}. */
    @Override
    public int bind(DatLmr lmr, long offset, long length, int memPrivileges, DatEp ep, long userCookie,
                    int completionFlags) {
        if (length == 0) {
            return unbind(ep, userCookie, completionFlags);
        }
        ia.lock.lock();
        try {
            if (isClosed() || !(ep instanceof UdaplEp e) || !sibling(e) || !(lmr instanceof UdaplLmr l)
                    || !sibling(l)) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            if (!bindsCompleteOn(e)) {
                return DatReturn.DAT_INVALID_STATE;
            }
            if ((completionFlags & ~BIND_FLAGS) != 0 || length < 0 || length > UdaplIov.MAX_SEGMENT) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            int rc = checkBind(l, offset, length, memPrivileges, e.pz);
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            triplet.set(JAVA_LONG, T_VA, l.address() + offset);
            triplet.set(JAVA_INT, T_LENGTH, (int) length);
            triplet.set(JAVA_INT, T_CONTEXT, l.lmrContext());
            return post(l.handle, l, memPrivileges, e, userCookie, completionFlags);
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_rmr_bind} of a zero-length triplet. */
    @Override
    public int unbind(DatEp ep, long userCookie, int completionFlags) {
        ia.lock.lock();
        try {
            if (isClosed() || !(ep instanceof UdaplEp e) || !sibling(e)) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            if (!bindsCompleteOn(e)) {
                return DatReturn.DAT_INVALID_STATE;
            }
            if ((completionFlags & ~BIND_FLAGS) != 0) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            int rc = checkBind(null, 0, 0, 0, e.pz);
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            triplet.fill((byte) 0);
            return post(MemorySegment.NULL, null, 0, e, userCookie, completionFlags);
        } finally {
            ia.lock.unlock();
        }
    }

    /**
     * {@return whether the EP's request EVD takes bind completions} ({@code DAT_EVD_RMR_BIND_FLAG}): a bind whose
     * completion has nowhere to go is refused with {@code DAT_INVALID_STATE} before C, as the verbs provider does.
     */
    private static boolean bindsCompleteOn(UdaplEp ep) {
        return ep.requestEvd == null || (ep.requestEvd.flags() & DatEvdFlags.RMR_BIND) != 0;
    }

    /** The C call of a bind or unbind, IA lock held; the new context when C took it. */
    private int post(MemorySegment lmrHandle, UdaplLmr lmr, int memPriv, UdaplEp ep, long cookie, int flags) {
        contextOut.set(JAVA_INT, 0, context);
        int rc = ia.lib.rmrBind(handle, lmrHandle, triplet, memPriv, DatStructs.DAT_VA_TYPE_VA, ep.handle, cookie,
                flags, lmr == null ? MemorySegment.NULL : contextOut);
        if (rc == 0) {
            bound = lmr;
            if (lmr != null) {
                context = contextOut.get(JAVA_INT, 0);
            }
        }
        return UdaplIa.status(rc);
    }

    /** {@code dat_rmr_query}: what C holds, the triplet only while bound (OFA refuses it otherwise). */
    @Override
    public DatRmrParam query() {
        ia.lock.lock();
        try (Arena local = Arena.ofConfined()) {
            requireOpen("dat_rmr_query");
            MemorySegment p = local.allocate(P);
            boolean withTriplet = bound != null;
            UdaplIa.check("dat_rmr_query", ia.lib.rmrQuery(handle,
                    withTriplet ? FIELD_UNBOUND | FIELD_LMR_TRIPLET : FIELD_UNBOUND, p));
            int rmrContext = p.get(JAVA_INT, offset(P, "rmr_context"));
            context = rmrContext;
            if (!withTriplet) {
                return new DatRmrParam(ia, pz(), 0, 0, 0, 0, rmrContext);
            }
            return new DatRmrParam(ia, pz(), p.get(JAVA_INT, P_TRIPLET + T_CONTEXT),
                    p.get(JAVA_LONG, P_TRIPLET + T_VA), Integer.toUnsignedLong(p.get(JAVA_INT, P_TRIPLET + T_LENGTH)),
                    p.get(JAVA_INT, offset(P, "mem_priv")), rmrContext);
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "UdaplRmr[0x" + Long.toHexString(handle.address()) + (isClosed() ? ", closed]" : "]");
    }
}
