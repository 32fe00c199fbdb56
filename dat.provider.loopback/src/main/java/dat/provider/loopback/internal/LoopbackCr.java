// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatCrParam;
import dat.api.DatEp;
import dat.api.DatEpState;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.spi.AbstractCr;
import dat.spi.DatArgs;
import java.net.InetAddress;

/**
 * A connection request ({@code DAT_CR_HANDLE}) waiting at a PSP or RSP. It is consumed by exactly one of
 * accept, reject or handoff; once consumed the handle is closed. Closing a pending request rejects it.
 */
final class LoopbackCr extends AbstractCr<LoopbackIa, LoopbackEp> {

    private final ServicePoint sp;
    private final LoopbackEp active;
    private final byte[] requestData;
    private final InetAddress remoteAddress;
    private final long remotePortQual;

    LoopbackCr(ServicePoint sp, LoopbackEp active, byte[] requestData, InetAddress remoteAddress,
               long remotePortQual) {
        super(sp.owner());
        this.sp = sp;
        this.active = active;
        this.requestData = requestData;
        this.remoteAddress = remoteAddress;
        this.remotePortQual = remotePortQual;
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
                sp instanceof LoopbackRsp rsp ? rsp.ep() : null);
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
            LoopbackEp reserved = sp instanceof LoopbackRsp rsp ? rsp.ep() : null;
            LoopbackEp passive = acceptingEp(call, ep, reserved);
            if (reserved != null) {
                if (passive.isClosed() || passive.state() != DatEpState.PASSIVE_CONNECTION_PENDING) {
                    throw new DatException(DatReturn.INVALID_STATE, DatArgs.epStateSubtype(passive.state()),
                            call + ": the reserved EP is " + passive.state() + ", not PASSIVE_CONNECTION_PENDING");
                }
            } else if (passive.state() != DatEpState.UNCONNECTED) {
                throw DatArgs.epState(call, "ep_handle", passive.state(), "UNCONNECTED");
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
    @Override
    protected void rejectQuietly() {
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
            rsp.ep().connection.unreserve(rsp);
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
            if (!(fabric.listener(owner().address(), handoffConnQual) instanceof LoopbackPsp target)
                    || target.owner() != owner()) {
                throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": no PSP of this IA listens"
                        + " on handoff conn_qual " + handoffConnQual);
            }
            consume();
            LoopbackCr next = new LoopbackCr(target, active, requestData, remoteAddress, remotePortQual);
            active.connection.handedOff(this, next);
            if (sp instanceof LoopbackRsp rsp) {
                rsp.ep().connection.unreserve(rsp);
            }
            if (!target.offer(next)) {
                active.connection.rejected(next, DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED);
            }
        } finally {
            fabric.connLock.unlock();
        }
    }
}
