// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.api.DatCompletionFlags;
import dat.api.DatEpAttr;
import dat.api.DatEpParam;
import dat.api.DatEpRecvInfo;
import dat.api.DatEpState;
import dat.api.DatEpStatus;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.provider.verbs.internal.ffm.IbvSge;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Query and modify of a {@link VerbsEp}: {@code dat_ep_query}, {@code dat_ep_modify}, {@code dat_ep_get_status} and
 * {@code dat_ep_recv_query}. {@code dat_ep_set_watermark} is the shell's refusal
 * ({@link dat.spi.AbstractEp#setWatermark}): {@code srq_watermarks_supported} has only the SRQ low watermark.
 */
final class VerbsEpControl {

    private final VerbsEp ep;
    // The EP's, copied.
    private final VerbsIa ia;
    private final ReentrantLock lock;

    VerbsEpControl(VerbsEp ep) {
        this.ep = ep;
        this.ia = ep.owner();
        this.lock = ep.lock;
    }

    DatEpStatus getStatus() {
        ep.requireOpen("dat_ep_get_status");
        boolean recvIdle = ep.srq != null || ep.data.recvUnreaped.get() == 0;
        return new DatEpStatus(ep.state, recvIdle, ep.data.reqUnreaped.get() == 0);
    }

    DatEpParam query() {
        ep.requireOpen("dat_ep_query");
        lock.lock();
        try {
            return new DatEpParam(ia, ep.state, ia.address(), ep.connection.localQual, ep.connection.remoteAddress,
                    ep.connection.remoteQual, ep.pz, ep.recvEvd, ep.requestEvd, ep.connectEvd, ep.srq, ep.attr);
        } finally {
            lock.unlock();
        }
    }

    /**
     * dat_ep_modify, after the shell's checks ({@link dat.spi.AbstractEp#modify}): the QP's queues are fixed at
     * creation, so only attributes that fit the QP as created may change, and only in UNCONNECTED with nothing
     * posted.
     */
    void modify(DatEpAttr newAttr) {
        String call = "dat_ep_modify";
        lock.lock();
        try {
            ep.requireOpen(call);
            if (ep.state != DatEpState.UNCONNECTED && ep.state != DatEpState.TENTATIVE_CONNECTION_PENDING) {
                throw ep.wrongState(call, "UNCONNECTED");
            }
            int sendIov = (int) (ep.data.sendSges.byteSize() / IbvSge.SIZE);
            int recvIov = (int) (ep.data.recvSges.byteSize() / IbvSge.SIZE);
            if (newAttr.maxRequestDtos() > ep.data.reqLimit()
                    || (ep.srq == null && newAttr.maxRecvDtos() > ep.data.recvLimit())
                    || Math.max(newAttr.maxRequestIov(), Math.max(newAttr.maxRdmaReadIov(), newAttr.maxRdmaWriteIov()))
                    > sendIov || (ep.srq == null && newAttr.maxRecvIov() > recvIov)) {
                throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": the verbs QP's queues are sized at"
                        + " dat_ep_create; an EP cannot grow its max_*_dtos or max_*_iov (free it and create"
                        + " another)");
            }
            if (ep.data.reqUnreaped.get() != 0 || ep.data.recvUnreaped.get() != 0) {
                throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_NOTREADY,
                        call + ": work is posted on the EP; dat_ep_modify needs an idle EP");
            }
            boolean solicitedNow = newAttr.recvCompletionFlags() == DatCompletionFlags.SOLICITED_WAIT;
            if (solicitedNow != ep.solicitedWait) {
                ep.recvCq.requalify(ep.solicitedWait, solicitedNow);
                ep.solicitedWait = solicitedNow;
            }
            ep.attr = newAttr;
            ep.data.sizeQueues(newAttr);
        } finally {
            lock.unlock();
        }
    }

    /**
     * dat_ep_recv_query: DAT_MODEL_NOT_SUPPORTED, as {@code ep_recv_info_supported} 0 says. The call exists for EPs
     * on an SRQ ("provide Endpoint receive queue consumption on SRQ"), and there verbs cannot count: an RC QP takes
     * an SRQ buffer when a message's first packet arrives and says so only in the completion, so the buffer of a
     * message still arriving is invisible. Claiming the counts for the EPs with their own queues (whose counts the
     * consumer knows anyway) would select this provider for exactly the use it cannot serve.
     */
    @SuppressWarnings("DoNotCallSuggester") // it is dat_ep_recv_query's answer on verbs, reached through DatEp
    DatEpRecvInfo recvQuery(int which) {
        throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, "dat_ep_recv_query: verbs does not report which SRQ"
                + " buffer a QP is filling, so the provider supports neither count (ep_recv_info_supported 0)");
    }
}
