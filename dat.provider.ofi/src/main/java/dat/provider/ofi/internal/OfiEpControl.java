// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.api.Dat;
import dat.api.DatEpAttr;
import dat.api.DatEpParam;
import dat.api.DatEpRecvInfo;
import dat.api.DatEpState;
import dat.api.DatEpStatus;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;

/**
 * Query and modify of one {@link OfiEp}: {@code dat_ep_query}, {@code dat_ep_modify}, {@code dat_ep_get_status}.
 * {@code dat_ep_recv_query} ({@link #recvQuery}); {@code dat_ep_set_watermark} is refused by the shell, as
 * {@code srq_watermarks_supported} (the low watermark only) says.
 */
final class OfiEpControl {

    private final OfiEp ep;
    private final OfiIa ia;

    OfiEpControl(OfiEp ep) {
        this.ep = ep;
        this.ia = ep.owner();
    }

    DatEpState state() {
        ia.lock.lock();
        try {
            ep.requireOpen("dat_ep_get_status");
            return ep.state;
        } finally {
            ia.lock.unlock();
        }
    }

    DatEpStatus getStatus() {
        ia.lock.lock();
        try {
            ep.requireOpen("dat_ep_get_status");
            return new DatEpStatus(ep.state, ep.data.recvsIdle(), ep.data.requestsIdle());
        } finally {
            ia.lock.unlock();
        }
    }

    DatEpParam query() {
        ia.lock.lock();
        try {
            ep.requireOpen("dat_ep_query");
            OfiEpConnection c = ep.connection;
            return new DatEpParam(ia, ep.state, ia.address(), c.localPortQual, c.remoteAddress, c.remotePortQual,
                    ep.pz, ep.recvEvd, ep.requestEvd, ep.connectEvd, ep.srq, ep.data.attr());
        } finally {
            ia.lock.unlock();
        }
    }

    /**
     * {@code dat_ep_recv_query}. An EP with its own queue holds every receive from its post until its completion is
     * queued (the slots {@link OfiEpData#recvsAllocated} counts), and tcp fills them in the order the peer sent, so
     * the span is the count. An EP on an SRQ: tcp takes a buffer from the shared context when a message's header
     * arrives and tells nobody until the completion, so neither count can be known (DAT_VALUE_UNKNOWN, as the page
     * allows for a count that cannot be obtained at a reasonable cost).
     */
    DatEpRecvInfo recvQuery(int which) {
        ia.lock.lock();
        try {
            ep.requireOpen("dat_ep_recv_query");
            int n = ep.srq != null ? Dat.DAT_VALUE_UNKNOWN : ep.data.recvsAllocated();
            return new DatEpRecvInfo((which & Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED) != 0 ? n : Dat.DAT_VALUE_UNKNOWN,
                    (which & Dat.DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN) != 0 ? n : Dat.DAT_VALUE_UNKNOWN);
        } finally {
            ia.lock.unlock();
        }
    }

    void modify(DatEpAttr newAttr) {
        ia.lock.lock();
        try {
            String call = "dat_ep_modify";
            ep.requireOpen(call);
            ep.requireState(call, DatEpState.UNCONNECTED);
            if (!ep.data.requestsIdle() || !ep.data.recvsIdle()) {
                throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_NOTREADY,
                        call + ": the EP has work requests outstanding; reap them first");
            }
            ep.data.configure(newAttr);
        } finally {
            ia.lock.unlock();
        }
    }
}
