// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.Dat;
import dat.api.DatEpAttr;
import dat.api.DatEpParam;
import dat.api.DatEpRecvInfo;
import dat.api.DatEpState;
import dat.api.DatEpStatus;
import dat.api.DatReturnSubtype;
import dat.spi.DatArgs;

/**
 * Query and modify of one {@link LoopbackEp}: {@code dat_ep_query}, {@code dat_ep_modify},
 * {@code dat_ep_recv_query} and {@code dat_ep_get_status}. Control path: it reads the words {@link LoopbackEpData}
 * keeps for it, and {@code dat_ep_modify} resizes the queues under the EP's locks.
 *
 * <p>{@code dat_ep_set_watermark} is the shell's refusal ({@link dat.spi.AbstractEp#setWatermark}): messages arrive
 * whole, an EP never holds SRQ buffers between calls, so a per-EP high watermark could never trigger;
 * {@code srq_watermarks_supported} reports only the SRQ low watermark.
 */
final class LoopbackEpControl {

    private final LoopbackEp ep;

    LoopbackEpControl(LoopbackEp ep) {
        this.ep = ep;
    }

    /** {@code dat_ep_get_status}. */
    DatEpStatus getStatus() {
        ep.requireOpen("dat_ep_get_status");
        boolean recvIdle = ep.data.recvAllocated() == 0;
        return new DatEpStatus(ep.state(), recvIdle, ep.data.requestsIdle());
    }

    /** {@code dat_ep_query}. */
    DatEpParam query() {
        ep.requireOpen("dat_ep_query");
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            LoopbackEpConnection c = ep.connection;
            return new DatEpParam(ep.owner(), ep.state(), ep.owner().address(), c.localQual, c.remoteAddress,
                    c.remoteQual, ep.pz, ep.recvEvd, ep.requestEvd, ep.connectEvd, ep.srq, ep.data.attr);
        } finally {
            fabric.connLock.unlock();
        }
    }

    /** {@code dat_ep_modify}, after the shell's checks ({@link dat.spi.AbstractEp#modify}). */
    void modify(DatEpAttr newAttr) {
        String call = "dat_ep_modify";
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            ep.requireOpen(call);
            if (ep.state() != DatEpState.UNCONNECTED && ep.state() != DatEpState.TENTATIVE_CONNECTION_PENDING) {
                throw ep.wrongState(call, "UNCONNECTED");
            }
            ep.sendLock.lock();
            ep.recvLock.lock();
            try {
                LoopbackEpData data = ep.data;
                RecvRing old = data.recvRing;
                if (old != null) {
                    int posted = old.allocated();
                    if (newAttr.maxRecvDtos() < posted) {
                        throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG3, call + ": max_recv_dtos "
                                + newAttr.maxRecvDtos() + " is below the " + posted + " receives already posted");
                    }
                    Dto wide = old.firstWiderThan(newAttr.maxRecvIov());
                    if (wide != null) {
                        throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG3, call
                                + ": max_recv_iov " + newAttr.maxRecvIov() + " is below the "
                                + wide.count + " segments of a receive already posted");
                    }
                }
                data.configure(newAttr);
                if (old != null) {
                    old.moveTo(data.recvRing);
                }
            } finally {
                ep.recvLock.unlock();
                ep.sendLock.unlock();
            }
        } finally {
            fabric.connLock.unlock();
        }
    }

    /**
     * dat_ep_recv_query. Messages arrive whole here, so:
     * <ul>
     * <li>an EP with its own receive queue has every posted, uncompleted receive allocated to it (DAT: "a
     *     buffer is allocated as soon as it is posted to the EP"), counted by the receive ring's words;</li>
     * <li>an EP on an SRQ is allocated a buffer when it claims one for an arriving message, and completes it
     *     within the same delivery, even when the message is too long (the completion then carries the
     *     error): between calls it holds none, and the count is read from one volatile word;</li>
     * <li>messages are delivered in send order with no gaps in the message sequence, so
     *     {@code bufs_alloc_span} always equals {@code nbufs_allocated}.</li>
     * </ul>
     */
    DatEpRecvInfo recvQuery(int which) {
        int n = ep.data.recvAllocated();
        return new DatEpRecvInfo((which & Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED) != 0 ? n : Dat.DAT_VALUE_UNKNOWN,
                (which & Dat.DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN) != 0 ? n : Dat.DAT_VALUE_UNKNOWN);
    }
}
