// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.api.DatEpAttr;
import dat.api.DatEpParam;
import dat.api.DatEpState;
import dat.api.DatEpStatus;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;

/**
 * Query and modify of one {@link OfiEp}: {@code dat_ep_query}, {@code dat_ep_modify}, {@code dat_ep_get_status}.
 * {@code dat_ep_recv_query} and {@code dat_ep_set_watermark} are refused by the shell, as the attributes say.
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
                    ep.pz, ep.recvEvd, ep.requestEvd, ep.connectEvd, null, ep.data.attr());
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
