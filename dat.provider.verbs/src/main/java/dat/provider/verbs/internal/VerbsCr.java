// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dat.api.DatCrParam;
import dat.api.DatEp;
import dat.api.DatException;
import dat.api.DatReturnSubtype;
import dat.provider.verbs.internal.ffm.LibRdmacm;
import dat.provider.verbs.internal.ffm.NativeCallException;
import dat.provider.verbs.internal.ffm.RdmaCmId;
import dat.spi.AbstractCr;
import dat.spi.DatArgs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * A connection request ({@code DAT_CONNECTION_REQUEST_EVENT}): the rdma_cm id of an incoming
 * {@code RDMA_CM_EVENT_CONNECT_REQUEST}, waiting for {@code dat_cr_accept}, {@code dat_cr_reject} or
 * {@code dat_cr_handoff}.
 *
 * <p><b>Private data.</b> As OFA uDAPL sends it: the consumer's bytes from offset 0, at most the 56 bytes an
 * rdma_cm REQ carries; a trailer in the padding lets a jDAT receiver report the exact length (see {@link CmWire}).
 * A consumer's reject carries uDAPL's 4-byte header, so a uDAPL requester reports it as the peer's.
 */
final class VerbsCr extends AbstractCr<VerbsIa, VerbsEp> {

    /** The REQ's private data after rdma_cm's header. */
    static final int MAX_PRIVATE_DATA = VerbsAttributes.MAX_PRIVATE_DATA_SIZE;

    private final VerbsIa ia;
    private final VerbsRsp rsp;
    private final long key;
    private final MemorySegment id;
    private final long localQual;
    private final byte[] privateData;
    private final InetAddress remoteAddress;
    private final long remotePort;
    private final int responderResources;
    private final int initiatorDepth;

    /** Built by the progress thread from a connect request; the id's context becomes this CR's key. */
    VerbsCr(VerbsIa ia, VerbsRsp rsp, long localQual, VerbsProgress.CmEvent e) {
        super(ia);
        this.ia = ia;
        this.rsp = rsp;
        this.localQual = localQual;
        this.key = ia.newKey();
        this.id = e.id();
        this.privateData = e.privateData();
        this.responderResources = e.responderResources();
        this.initiatorDepth = e.initiatorDepth();
        // Later events of this id are processed by the same thread after this store, so they see the new key.
        RdmaCmId.context(id, MemorySegment.ofAddress(key));
        this.remoteAddress = destination(id);
        this.remotePort = ia.cm.rdma_get_dst_port(id);
        ia.cmOwners.put(key, this);
    }

    private static InetAddress destination(MemorySegment id) {
        try {
            if (RdmaCmId.routeAddrDstAddrSaFamily(id) == LibRdmacm.AF_INET) {
                return InetAddress.getByAddress(RdmaCmId.routeAddrDstSinSinAddr(id).toArray(JAVA_BYTE));
            }
            return InetAddress.getByAddress(RdmaCmId.routeAddrDstSin6Sin6Addr(id).toArray(JAVA_BYTE));
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a 4- or 16-byte address is always valid", e);
        }
    }

    /**
     * @param call the DAT call, for messages
     * @param data the consumer's private data, or {@code null}
     * @return a copy
     * @throws DatException {@code DAT_INVALID_PARAMETER} when longer than {@code max_private_data_size}
     */
    static byte[] checkPrivateData(String call, byte[] data) {
        if (data == null) {
            return null;
        }
        if (data.length > MAX_PRIVATE_DATA) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG4, call + ": private_data of "
                    + data.length + " bytes exceeds max_private_data_size " + MAX_PRIVATE_DATA
                    + " (rdma_cm carries 56 bytes in a connect request)");
        }
        return data.clone();
    }

    /**
     * Refuses a request nobody will answer (its service point is gone) and releases the id: no header, so the
     * requester reports a non-peer reject (uDAPL does the same when its accept fails).
     */
    static void refuse(VerbsIa ia, MemorySegment id) {
        reject(ia, id, MemorySegment.NULL, 0);
    }

    private static void reject(VerbsIa ia, MemorySegment id, MemorySegment data, int length) {
        try {
            ia.cm.rdma_reject(id, data, (byte) length);
        } catch (NativeCallException e) {
            // The requester gave up already.
        }
        ia.cm.rdma_destroy_id(id);
    }

    long key() {
        return key;
    }

    MemorySegment id() {
        return id;
    }

    VerbsRsp rsp() {
        return rsp;
    }

    byte[] privateData() {
        return privateData;
    }

    InetAddress remoteAddress() {
        return remoteAddress;
    }

    long remotePort() {
        return remotePort;
    }

    long localQual() {
        return localQual;
    }

    int responderResources() {
        return responderResources;
    }

    int initiatorDepth() {
        return initiatorDepth;
    }

    @Override
    public DatCrParam query() {
        requireOpen("dat_cr_query");
        return new DatCrParam(remoteAddress, remotePort, privateData, rsp != null ? rsp.ep() : null);
    }

    @Override
    public synchronized void accept(DatEp ep, byte[] acceptData) {
        String call = "dat_cr_accept";
        requireOpen(call);
        byte[] data = checkPrivateData(call, acceptData);
        ia.requireOpen(call);
        VerbsEp passive = acceptingEp(call, ep, rsp != null ? rsp.ep() : null);
        passive.connection.accept(this, data);
        // dat_cr_accept consumes the request; the id now belongs to the EP (or was refused by the device).
        markClosed();
    }

    @Override
    public synchronized void reject() {
        String call = "dat_cr_reject";
        requireOpen(call);
        rejectQuietly();
    }

    /** Rejects if still pending; used by close, RSP free and IA close. */
    @Override
    protected synchronized void rejectQuietly() {
        if (isClosed()) {
            return;
        }
        markClosed();
        ia.cmOwners.remove(key);
        // The consumer's answer (dat_cr_reject, or the PSP, RSP or IA freed under it): uDAPL's header says so.
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment header = arena.allocate(CmWire.REJECT_HEADER);
            reject(ia, id, header, CmWire.encodeReject(header));
        }
        if (rsp != null) {
            rsp.ep().connection.unreserve(rsp);
        }
    }

    /** An event of the request's id before it was accepted: the requester gave up; the request stays answerable. */
    void cmEvent(VerbsProgress.CmEvent e) {
        // Accepting it later fails in rdma_accept and reports DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR.
    }

    /**
     * dat_cr_handoff: the request moves to this IA's PSP on {@code handoffConnQual}, whose CR EVD gets it as a new
     * connection request.
     */
    @Override
    public synchronized void handoff(long handoffConnQual) {
        String call = "dat_cr_handoff";
        requireOpen(call);
        VerbsPsp target = null;
        for (Object owner : ia.cmOwners.values()) {
            if (owner instanceof VerbsPsp p && !p.isClosed() && p.connQual() == handoffConnQual) {
                target = p;
            }
        }
        if (target == null) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": no PSP of this IA listens on"
                    + " handoff conn_qual " + handoffConnQual);
        }
        markClosed();
        ia.cmOwners.remove(key);
        if (rsp != null) {
            rsp.ep().connection.unreserve(rsp);
        }
        target.connectionRequest(new VerbsProgress.CmEvent(LibRdmacm.RDMA_CM_EVENT_CONNECT_REQUEST, 0, id, 0, 0,
                privateData, false, responderResources, initiatorDepth));
    }
}
