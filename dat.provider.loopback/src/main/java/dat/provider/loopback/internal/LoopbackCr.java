// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatCr;
import dat.api.DatCrParam;
import dat.api.DatEp;
import dat.api.DatEpState;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import java.net.InetAddress;

/**
 * A connection request ({@code DAT_CR_HANDLE}) waiting at a PSP or RSP. It is consumed by exactly one of
 * accept, reject or handoff; once consumed the handle is closed. Closing a pending request rejects it.
 */
final class LoopbackCr extends LoopbackHandle implements DatCr {

    private final ServicePoint sp;
    private final LoopbackEp active;
    private final byte[] requestData;
    private final InetAddress remoteAddress;
    private final long remotePortQual;

    LoopbackCr(ServicePoint sp, LoopbackEp active, byte[] requestData, InetAddress remoteAddress,
               long remotePortQual) {
        this.sp = sp;
        this.active = active;
        this.requestData = requestData;
        this.remoteAddress = remoteAddress;
        this.remotePortQual = remotePortQual;
    }

    @Override
    LoopbackIa owner() {
        return sp.owner();
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_CR;
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.NO_SUBTYPE;
    }

    @Override
    protected String freeCall() {
        return "dat_cr_reject";
    }

    @Override
    protected void destroy() {
        rejectQuietly();
    }

    @Override
    public void close() {
        rejectQuietly();
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.CR;
    }

    byte[] requestData() {
        return requestData;
    }

    /** Marks the request consumed. Connection lock held. */
    private void consume() {
        markClosed();
        owner().pendingCrs.remove(this);
    }

    @Override
    public DatCrParam query() {
        requireOpen("dat_cr_query");
        return new DatCrParam(remoteAddress, remotePortQual, requestData,
                sp instanceof LoopbackRsp rsp ? rsp.ep : null);
    }

    @Override
    public void accept(DatEp ep, byte[] privateData) {
        String call = "dat_cr_accept";
        requireOpen(call);
        byte[] data = LoopbackEpConnection.privateData(call, privateData);
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            requireOpen(call);
            owner().requireOpen(call);
            LoopbackEp passive;
            if (sp instanceof LoopbackRsp rsp) {
                if (ep != null && ep != rsp.ep) {
                    throw LoopbackIa.invalidParameter(DatReturnSubtype.INVALID_ARG2,
                            call + ": ep_handle must be null or the RSP's reserved EP");
                }
                passive = rsp.ep;
                if (passive.isClosed() || passive.state() != DatEpState.PASSIVE_CONNECTION_PENDING) {
                    throw new DatException(DatReturn.INVALID_STATE, LoopbackEp.stateSubtype(passive.state()),
                            call + ": the reserved EP is " + passive.state() + ", not PASSIVE_CONNECTION_PENDING");
                }
            } else {
                if (ep == null) {
                    throw LoopbackIa.invalidParameter(DatReturnSubtype.INVALID_ARG2,
                            call + ": ep_handle is null; ep_creator is NEVER, so the consumer supplies the EP");
                }
                passive = owner().own(ep, LoopbackEp.class, DatReturnSubtype.INVALID_HANDLE_EP, call, "ep_handle");
                if (passive.state() != DatEpState.UNCONNECTED) {
                    throw new DatException(DatReturn.INVALID_STATE, LoopbackEp.stateSubtype(passive.state()),
                            call + ": ep_handle is " + passive.state() + ", not UNCONNECTED");
                }
            }
            consume();
            LoopbackEpConnection.accept(this, active, passive, data, sp.connQual());
        } finally {
            fabric.connLock.unlock();
        }
    }

    @Override
    public void reject() {
        String call = "dat_cr_reject";
        requireOpen(call);
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            requireOpen(call);
            refuse(DatEventType.CONNECTION_EVENT_PEER_REJECTED);
        } finally {
            fabric.connLock.unlock();
        }
    }

    /** Rejects if still pending; used by close, RSP free and IA close. */
    void rejectQuietly() {
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            if (!isClosed()) {
                refuse(DatEventType.CONNECTION_EVENT_PEER_REJECTED);
            }
        } finally {
            fabric.connLock.unlock();
        }
    }

    private void refuse(DatEventType event) {
        consume();
        active.connection.rejected(this, event);
        if (sp instanceof LoopbackRsp rsp) {
            rsp.ep.connection.unreserve(rsp);
        }
    }

    @Override
    public void handoff(long handoffConnQual) {
        String call = "dat_cr_handoff";
        requireOpen(call);
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            requireOpen(call);
            if (!(fabric.listener(owner().address, handoffConnQual) instanceof LoopbackPsp target)
                    || target.owner() != owner()) {
                throw LoopbackIa.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": no PSP of this IA listens"
                        + " on handoff conn_qual " + handoffConnQual);
            }
            consume();
            LoopbackCr next = new LoopbackCr(target, active, requestData, remoteAddress, remotePortQual);
            active.connection.handedOff(this, next);
            if (sp instanceof LoopbackRsp rsp) {
                rsp.ep.connection.unreserve(rsp);
            }
            if (!target.offer(next)) {
                active.connection.rejected(next, DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED);
            }
        } finally {
            fabric.connLock.unlock();
        }
    }
}
