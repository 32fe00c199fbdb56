// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.api.DatHandle;
import dat.api.DatPspFlags;
import dat.spi.AbstractPsp;

/**
 * A public service point ({@code dat_psp_create}, {@code dat_psp_create_any}): a passive endpoint listening on the
 * IA's address at the qualifier as TCP port ({@link OfiPassive}); {@code create_any} lets the kernel choose it.
 */
final class OfiPsp extends AbstractPsp<OfiIa, OfiEvd> implements OfiPassive.Listener {

    private final OfiPassive passive;

    OfiPsp(OfiIa ia, String call, int port, OfiEvd crEvd, DatPspFlags flags) {
        super(ia, crEvd, flags);
        this.passive = new OfiPassive(ia, this, call, port);
    }

    @Override
    public long connQual() {
        return passive.port;
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
        return null;
    }

    @Override
    public boolean takesRequest() {
        return !isClosed();
    }

    @Override
    protected void destroy() {
        markClosed();
        passive.close();
    }
}
