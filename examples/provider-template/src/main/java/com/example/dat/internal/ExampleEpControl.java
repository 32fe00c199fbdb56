// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.DatEpAttr;
import dat.api.DatEpParam;
import dat.api.DatEpState;
import dat.api.DatEpStatus;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;

/**
 * Query and modify of one {@link ExampleEp}: {@code dat_ep_query}, {@code dat_ep_modify} and
 * {@code dat_ep_get_status}. Control path: it reads the state of the EP, the connection's identity
 * ({@link ExampleEpConnection}) and the queue counts and attributes ({@link ExampleEpData}), all under
 * {@link Fabric#LOCK}, and has {@code dat_ep_modify} resize the queues.
 *
 * <p>{@code dat_ep_recv_query} and {@code dat_ep_set_watermark} have no code here: the shell refuses them
 * ({@link dat.spi.AbstractEp#recvQuery}, {@link dat.spi.AbstractEp#setWatermark}), as the attributes
 * {@code ep_recv_info_supported} 0 and {@code srq_watermarks_supported} 0 say. A provider that counts its receive
 * buffers overrides {@code implRecvQuery} in the EP and answers here.
 */
final class ExampleEpControl {

    private final ExampleEp ep;

    ExampleEpControl(ExampleEp ep) {
        this.ep = ep;
    }

    /** The EP state ({@code dat_ep_get_status}'s first answer). */
    DatEpState state() {
        Fabric.LOCK.lock();
        try {
            ep.requireOpen("dat_ep_get_status");
            return ep.state;
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    /** {@code dat_ep_get_status}. */
    DatEpStatus getStatus() {
        Fabric.LOCK.lock();
        try {
            ep.requireOpen("dat_ep_get_status");
            return new DatEpStatus(ep.state, ep.data.recvsIdle(), ep.data.requestsIdle());
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    /** {@code dat_ep_query}. */
    DatEpParam query() {
        Fabric.LOCK.lock();
        try {
            ep.requireOpen("dat_ep_query");
            ExampleEpConnection c = ep.connection;
            return new DatEpParam(ep.owner(), ep.state, Fabric.ADDRESS, c.localPortQual, c.remoteAddress,
                    c.remotePortQual, ep.pz, ep.recvEvd, ep.requestEvd, ep.connectEvd, null, ep.data.attr());
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    /** {@code dat_ep_modify}, after the shell's checks ({@link dat.spi.AbstractEp#modify}). */
    void modify(DatEpAttr newAttr) {
        Fabric.LOCK.lock();
        try {
            String call = "dat_ep_modify";
            ep.requireOpen(call);
            ep.requireState(call, DatEpState.UNCONNECTED);
            // The queues are rebuilt empty, so posted work would be lost: the consumer reaps it first.
            if (!ep.data.requestsIdle() || !ep.data.recvsIdle()) {
                throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_NOTREADY,
                        call + ": the EP has work requests outstanding; reap them first");
            }
            ep.data.configure(newAttr);
        } finally {
            Fabric.LOCK.unlock();
        }
    }
}
