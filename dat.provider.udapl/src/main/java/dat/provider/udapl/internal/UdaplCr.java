// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static dat.provider.udapl.internal.ffm.CStruct.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.DatCrParam;
import dat.api.DatEp;
import dat.api.DatEpState;
import dat.api.DatException;
import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.provider.udapl.internal.ffm.DatStatus;
import dat.provider.udapl.internal.ffm.DatStructs;
import dat.spi.AbstractCr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.net.InetAddress;

/**
 * A connection request ({@code DAT_CONNECTION_REQUEST_EVENT}): the C CR libdat2 created, owned by this object from
 * the event on. {@code dat_cr_accept}, {@code dat_cr_reject} and {@code dat_cr_handoff} end the consumer's use of
 * the C handle (OFA keeps an accepted CR until the connection ends, as destroyed to the consumer), so the Java CR
 * is marked closed when C took it. A failed accept closes it too unless C refused it before touching the
 * connection ({@link #acceptLeftRequest}).
 */
// Restricted methods on purpose: reached only after UdaplProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class UdaplCr extends AbstractCr<UdaplIa, UdaplEp> {

    private static final StructLayout P = DatStructs.DAT_CR_PARAM;
    private static final int DAT_CR_FIELD_ALL = 0x1F;

    private final UdaplIa ia;
    private final MemorySegment handle;
    private final DatHandle sp;
    private final UdaplEp reserved;

    UdaplCr(UdaplIa ia, MemorySegment handle, DatHandle sp, UdaplEp reserved) {
        super(ia);
        this.ia = ia;
        this.handle = handle;
        this.sp = sp;
        this.reserved = reserved;
    }

    /** The C CR went (another request reused its handle, or the IA closes): the Java CR answers closed. */
    void forget() {
        markClosed();
    }

    /** Its reserved EP was freed in C, which OFA allows only once no request waits on it: the CR is gone too. */
    void epFreed() {
        answered();
    }

    /**
     * {@return whether C still holds the CR of a request on an RSP} OFA frees a CR when its requester goes away
     * before the answer ({@code dapli_get_sp_ep}, {@code dapl/common/dapl_cr_callback.c}: a reject, an unreachable
     * or a disconnect from the CM discards the CR of every event but ESTABLISHED) and, for an RSP's request, moves
     * the reserved EP out of {@code PASSIVE_CONNECTION_PENDING} (to DISCONNECTED) before it posts that connection
     * event on the EP's connect EVD. So that state, which the reserved EP (a live Java-owned handle) answers
     * through {@code dat_ep_query}, says whether the CR is still C's. A PSP's request has no EP in C: OFA frees its
     * CR without posting any event, and nothing in DAT's API tells the bridge (see "Not done" in the conformance
     * report). IA lock held.
     */
    private boolean requesterStayed() {
        if (reserved == null) {
            return true;
        }
        try {
            // The C EP outlives every Java CR reserved on it: UdaplEp's free closes them once C freed it.
            return stillPending(reserved.stateLocked());
        } catch (DatException e) {
            return false;
        }
    }

    /**
     * {@return whether a {@code dat_cr_accept} that failed with {@code rc} left the request answerable}
     *
     * <p>Only the refusals {@code dapl_cr_accept} makes before it touches the connection do
     * ({@code dapl/common/dapl_cr_accept.c}: a bad CR or EP handle, an EP in the wrong state). Every failure of
     * {@code dapls_ib_accept_connection} ({@code dapl/openib_cma/cm.c:956-962}: private data too long for a REP,
     * the QP, a device mismatch, {@code rdma_accept} itself, which fails with EINVAL once the requester is gone)
     * rejects the request and destroys its {@code rdma_cm_id}, and {@code dapl_cr_accept} then restores the CR as
     * if it could still be answered (its magic stays valid except for {@code DAT_INVALID_ADDRESS}). A
     * {@code dat_cr_reject} of that CR, which the EP's free or the IA's close makes, then runs {@code rdma_reject}
     * on the freed id: in the guest the JVM died in {@code librdmacm} so. Such a CR is closed at once.
     *
     * @param rc the failed status
     */
    static boolean acceptLeftRequest(int rc) {
        DatReturn type = DatStatus.type(rc);
        return type == DatReturn.INVALID_HANDLE || type == DatReturn.INVALID_STATE;
    }

    /** {@return whether a reserved EP in state {@code s} still carries an unanswered request} */
    static boolean stillPending(DatEpState s) {
        return s == DatEpState.PASSIVE_CONNECTION_PENDING;
    }

    /**
     * {@code requireOpen}, and the requester still there: a CR C freed on its own is closed here, before any C
     * call could read it, and answers {@code DAT_INVALID_HANDLE} as any closed CR.
     */
    private void requireLive(String call) {
        requireOpen(call);
        if (!requesterStayed()) {
            answered();
            throw new DatException(DatReturn.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CR, call
                    + ": the requester went away before the answer, and the C provider discarded the request");
        }
    }

    private void answered() {
        markClosed();
        ia.crs.remove(handle.address(), this);
    }

    /** {@code dat_cr_query}: the requester's address and private data as C holds them. */
    @Override
    public DatCrParam query() {
        ia.lock.lock();
        try (Arena local = Arena.ofConfined()) {
            requireLive("dat_cr_query");
            MemorySegment p = local.allocate(P);
            UdaplIa.check("dat_cr_query", ia.lib.crQuery(handle, DAT_CR_FIELD_ALL, p));
            MemorySegment sa = p.get(ADDRESS, offset(P, "remote_ia_address_ptr"));
            InetAddress remote = UdaplAttributes.sockaddr(sa);
            int size = p.get(JAVA_INT, offset(P, "private_data_size"));
            MemorySegment data = p.get(ADDRESS, offset(P, "private_data"));
            byte[] bytes = new byte[0];
            if (size > 0 && size <= UdaplEvents.MAX_PRIVATE_DATA && data.address() != 0) {
                bytes = data.reinterpret(size).toArray(JAVA_BYTE);
            }
            return new DatCrParam(remote, p.get(JAVA_LONG, offset(P, "remote_port_qual")), bytes, reserved);
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_cr_accept}. */
    @Override
    public void accept(DatEp ep, byte[] privateData) {
        String call = "dat_cr_accept";
        ia.lock.lock();
        try (Arena local = Arena.ofConfined()) {
            requireLive(call);
            UdaplEp passive = acceptingEp(call, ep, reserved);
            ia.checkPrivateData(call, privateData, DatReturnSubtype.INVALID_ARG4);
            // OFA's dapl_cr_accept takes an RSP's request only with ep_handle NULL (the CR carries the reserved EP)
            // and refuses the reserved EP's own handle with DAT_INVALID_HANDLE_EP: both name the same EP in DAT.
            MemorySegment epHandle = reserved != null ? MemorySegment.NULL : passive.handle;
            int rc = ia.lib.crAccept(handle, epHandle, privateData == null ? 0 : privateData.length,
                    UdaplIa.bytes(local, privateData));
            if (DatStatus.ok(rc) || !acceptLeftRequest(rc)) {
                answered();
            }
            UdaplIa.check(call, rc);
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_cr_reject}. */
    @Override
    public void reject() {
        ia.lock.lock();
        try {
            requireLive("dat_cr_reject");
            int rc = ia.lib.crReject(handle, 0, MemorySegment.NULL);
            if (DatStatus.ok(rc)) {
                answered();
            }
            UdaplIa.check("dat_cr_reject", rc);
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_cr_handoff}. */
    @Override
    public void handoff(long handoffConnQual) {
        ia.lock.lock();
        try {
            requireLive("dat_cr_handoff");
            int rc = ia.lib.crHandoff(handle, handoffConnQual);
            if (DatStatus.ok(rc)) {
                answered();
            }
            UdaplIa.check("dat_cr_handoff", rc);
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    protected void rejectQuietly() {
        ia.lock.lock();
        try {
            if (!isClosed() && !ia.isClosed() && requesterStayed()) {
                ia.lib.crReject(handle, 0, MemorySegment.NULL);
            }
            answered();
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@return the EP the RSP the request arrived on reserves, or {@code null}} */
    UdaplEp reserved() {
        return reserved;
    }

    /** {@return the service point the request arrived on} */
    DatHandle sp() {
        return sp;
    }

    @Override
    public String toString() {
        return "UdaplCr[0x" + Long.toHexString(handle.address()) + (isClosed() ? ", closed]" : "]")
               ;
    }
}
