// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.api.DatEpState;
import dat.api.DatHandle;
import dat.spi.AbstractRsp;

/**
 * A reserved service point ({@code dat_rsp_create}): a passive endpoint at the qualifier that takes one request, for
 * the EP it reserved; later requests are refused as if nobody listened.
 */
final class OfiRsp extends AbstractRsp<OfiIa, OfiEvd, OfiEp> implements OfiPassive.Listener {

    private final OfiPassive passive;
    private boolean consumed;

    OfiRsp(OfiIa ia, String call, int port, OfiEp ep, OfiEvd crEvd) {
        super(ia, port, ep, crEvd);
        this.passive = new OfiPassive(ia, this, call, port);
    }

    @Override
    protected boolean reservesEp() {
        return true;
    }

    @Override
    public OfiPassive passive() {
        return passive;
    }

    @Override
    public DatHandle handle() {
        return this;
    }

    @Override
    public OfiEp reservedEp() {
        return ep();
    }

    @Override
    public boolean takesRequest() {
        if (consumed || isClosed()) {
            return false;
        }
        consumed = true;
        return true;
    }

    @Override
    protected void destroy() {
        markClosed();
        passive.close();
        if (ep().state == DatEpState.RESERVED) {
            ep().state = DatEpState.UNCONNECTED;
        }
    }
}
