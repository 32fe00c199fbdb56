// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dat.api.DatCrParam;
import dat.api.DatEp;
import dat.api.DatEpState;
import dat.api.DatException;
import dat.api.DatReturnSubtype;
import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiInfo;
import dat.provider.ofi.internal.rdm.RdmControl;
import dat.spi.AbstractCr;
import dat.spi.DatArgs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * A connection request ({@code FI_CONNREQ}) on a PSP or RSP: its {@code fi_info} (the peer's address and the
 * {@code handle} {@code fi_accept} and {@code fi_reject} need) and the requester's private data. {@code dat_cr_accept}
 * makes the EP's endpoint from it; {@code dat_cr_reject} answers {@code fi_reject} with one byte, {@link #MARK}, as
 * its connection data: the requester's EQ then reports {@code FI_ECONNREFUSED} with that byte, which is how it tells
 * a peer's reject (PEER_REJECTED) from a port nobody listens on (NON_PEER_REJECTED, no data). That byte is why
 * {@code max_private_data_size} is one less than the endpoint's {@code FI_OPT_CM_DATA_SIZE}.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class OfiCr extends AbstractCr<OfiIa, OfiEp> {

    /** The connection data of a consumer's reject. */
    static final byte MARK = (byte) 0xda;

    private final OfiIa ia;
    private final OfiPassive arrivedAt;
    private OfiPassive.Listener listener;
    private MemorySegment info;
    private final byte[] privateData;
    /** The request's connection data as it came, the credit header included (OfiCredit). */
    private final byte[] requestData;
    private final InetAddress peer;
    private final int peerPort;
    /** The request over an RDM IA's association (docs/ofi-rdm-protocol.md), {@code null} over FI_EP_MSG. */
    private final RdmControl rdmRequest;

    OfiCr(OfiIa ia, OfiPassive arrivedAt, MemorySegment info, byte[] privateData) {
        super(ia);
        this.ia = ia;
        this.arrivedAt = arrivedAt;
        this.listener = arrivedAt.listener;
        this.info = info;
        this.requestData = privateData;
        byte[] consumers = OfiCredit.framed(ia) ? OfiCredit.payload(privateData) : privateData;
        this.privateData = consumers == null ? new byte[0] : consumers;
        MemorySegment dest = FiInfo.destAddr(info);
        this.peer = OfiIa.ip(dest);
        this.peerPort = dest.address() == 0 ? 0 : OfiIa.port(dest);
        this.rdmRequest = null;
    }

    /** A request of the RDM connection protocol: the requester's IA address and private data are the message's. */
    OfiCr(OfiIa ia, OfiPassive arrivedAt, RdmControl request) {
        super(ia);
        this.ia = ia;
        this.arrivedAt = arrivedAt;
        this.listener = arrivedAt.listener;
        this.info = MemorySegment.NULL;
        // The delivery header (OfiCredit) heads the request's private data.
        byte[] consumers = OfiCredit.payload(request.privateData());
        this.privateData = consumers == null ? new byte[0] : consumers;
        this.requestData = null;
        InetAddress from;
        try {
            from = InetAddress.getByAddress(request.iaAddress());
        } catch (UnknownHostException e) {
            from = null;
        }
        this.peer = from;
        this.peerPort = 0;
        this.rdmRequest = request;
    }

    /** Answers the request with a reject: {@code peer} says whether it is the consumer's. */
    private void rejectAnswer(boolean peer) {
        if (rdmRequest != null) {
            ia.rdm.reject(rdmRequest);
        } else {
            rejectRequest(ia, arrivedAt.pep, info, peer);
        }
    }

    static boolean isPeerReject(byte[] errData) {
        return errData != null && errData.length >= 1 && errData[0] == MARK;
    }

    /** Rejects a request and frees its info; {@code peer} says whether it is the consumer's reject. */
    static void rejectRequest(OfiIa ia, MemorySegment pep, MemorySegment info, boolean peer) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mark = MemorySegment.NULL;
            if (peer) {
                mark = arena.allocate(1);
                mark.set(JAVA_BYTE, 0, MARK);
            }
            Fi.fi_reject(pep, FiInfo.handle(info), mark, peer ? 1 : 0);
        }
        ia.fi.fi_freeinfo(info);
    }

    private void answered() {
        markClosed();
        arrivedAt.answered(this);
        info = MemorySegment.NULL;
    }

    @Override
    public DatCrParam query() {
        ia.lock.lock();
        try {
            requireOpen("dat_cr_query");
            return new DatCrParam(peer, peerPort, privateData.clone(), listener.reservedEp());
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    public void accept(DatEp ep, byte[] acceptData) {
        String call = "dat_cr_accept";
        ia.lock.lock();
        try {
            requireOpen(call);
            OfiEp passive = acceptingEp(call, ep, listener.reservedEp());
            passive.connection.checkPrivateData(call, acceptData, DatReturnSubtype.INVALID_ARG4);
            DatEpState wanted = listener.reservedEp() != null ? DatEpState.RESERVED : DatEpState.UNCONNECTED;
            if (passive.state != wanted) {
                throw DatArgs.epState(call, "ep_handle", passive.state, wanted.toString());
            }
            if (rdmRequest != null) {
                try {
                    passive.connection.acceptRdm(call, rdmRequest, acceptData, arrivedAt.port, peer, peerPort);
                } finally {
                    if (passive.state != DatEpState.COMPLETION_PENDING && passive.state != DatEpState.CONNECTED
                            && passive.state != DatEpState.DISCONNECTED) {
                        rejectAnswer(false);
                    }
                    answered();
                }
                return;
            }
            MemorySegment requestInfo = info;
            try {
                passive.connection.accept(call, requestInfo, acceptData, arrivedAt.port, peer, peerPort,
                        requestData);
            } catch (DatException e) {
                // The endpoint could not be made: the requester is told, the request is answered.
                rejectRequest(ia, arrivedAt.pep, requestInfo, false);
                answered();
                throw e;
            }
            ia.fi.fi_freeinfo(requestInfo);
            answered();
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    public void reject() {
        ia.lock.lock();
        try {
            requireOpen("dat_cr_reject");
            rejectAnswer(true);
            answered();
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    public void handoff(long handoffConnQual) {
        String call = "dat_cr_handoff";
        ia.lock.lock();
        try {
            requireOpen(call);
            OfiPassive.Listener to = null;
            for (Object o : ia.eqOwners.values()) {
                if (o instanceof OfiPsp psp && psp.connQual() == handoffConnQual && !psp.isClosed()) {
                    to = psp;
                }
            }
            if (to == null) {
                throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": no PSP of IA "
                        + ia.name() + " listens on conn_qual " + handoffConnQual);
            }
            listener = to;
            if (!to.crEvd().request(to.handle(), handoffConnQual, this)) {
                rejectAnswer(false);
                answered();
            }
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    protected void rejectQuietly() {
        ia.lock.lock();
        try {
            if (!isClosed() && (info.address() != 0 || rdmRequest != null)) {
                rejectAnswer(true);
                answered();
            }
        } finally {
            ia.lock.unlock();
        }
    }
}
