// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dat.api.DatEpState;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiException;
import dat.provider.ofi.internal.ffm.FidMr;
import dat.provider.ofi.internal.ffm.LibFabric;
import dat.spi.AbstractLmr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Registered memory ({@code dat_lmr_create}): an {@code fi_mr_reg} of the region with local access always and remote
 * read or write as the privileges grant. The {@code rmr_context} is the registration's key: chosen by jDAT at random
 * (a 31-bit value unique in its PZ, whose domain is its own) where the domain lets the consumer choose
 * ({@code FI_MR_PROV_KEY} clear), the provider's own otherwise (the scan refuses domains whose keys are wider than
 * 32 bits). The {@code lmr_context} is a random number of jDAT's naming the LMR in the posts, whose descriptor
 * ({@code fi_mr_desc}) is passed with every segment, which honours {@code FI_MR_LOCAL}.
 *
 * <p>{@code dat_lmr_free} first breaks the connections of EPs that have an operation on the region in flight (as an
 * HCA fails a work request whose MR is deregistered), and for a region with remote write access every connection
 * of its zone ({@link #destroy}), so the provider has no copy into or out of it left when {@code fi_close}
 * returns.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class OfiLmr extends AbstractLmr<OfiIa, OfiPz> {

    private final OfiIa ia;
    private final OfiPz zone;
    private final boolean remoteWrite;
    private final int context;
    final long key;
    final MemorySegment mr;
    /** {@code fi_mr_desc}: what every segment on this region passes as its descriptor. */
    final long desc;

    OfiLmr(OfiPz pz, MemorySegment region, int privileges) {
        super(pz, region, privileges);
        this.ia = pz.ia();
        this.zone = pz;
        this.remoteWrite = (privileges & DatMemPriv.REMOTE_WRITE) != 0;
        this.context = OfiIa.randomContext(ia.lmrs);
        long access = LibFabric.FI_SEND | LibFabric.FI_RECV | LibFabric.FI_READ | LibFabric.FI_WRITE;
        if ((privileges & DatMemPriv.REMOTE_READ) != 0) {
            access |= LibFabric.FI_REMOTE_READ;
        }
        if ((privileges & DatMemPriv.REMOTE_WRITE) != 0) {
            access |= LibFabric.FI_REMOTE_WRITE;
        }
        boolean provKey = (ia.entry.limits().mrMode() & LibFabric.FI_MR_PROV_KEY) != 0;
        long requested = 0;
        if (!provKey) {
            do {
                requested = OfiIa.RANDOM.nextInt() & 0x7fffffffL;
            } while (requested == 0 || pz.keys.containsKey(requested));
        }
        MemorySegment fid;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc = Fi.fi_mr_reg(pz.domain, region.address(), Math.max(region.byteSize(), 1), access, requested, out);
            ia.fi.check("fi_mr_reg", rc);
            fid = out.get(ADDRESS, 0).reinterpret(FidMr.SIZEOF);
        } catch (FiException e) {
            throw OfiIa.resources("dat_lmr_create", e);
        }
        long k = FidMr.key(fid);
        if (k != (int) k && k >>> 32 != 0) {
            Fi.fi_close(fid);
            throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                    "dat_lmr_create: the provider's key 0x" + Long.toHexString(k) + " is wider than rmr_context");
        }
        this.mr = fid;
        this.key = k;
        this.desc = FidMr.memDesc(fid).address();
    }

    /**
     * Under the lifecycle lock (the IA's lock): EPs using the region lose their connection, and so does every
     * connection of the zone when the region has remote write access, then the registration goes.
     *
     * <p>tcp checks an RDMA write's key when the write's header arrives and then copies the payload into the region
     * as the stream brings it, in whichever progress call reads it: {@code fi_close} of the registration stops new
     * writes but not one already under way, and nothing tells the target one is. Closing the endpoint does (it
     * takes the endpoint out of progress and drops its socket). Only an endpoint of the LMR's zone (its domain) can
     * have accepted the key, so those are the connections that go; the peer sees them break, as an RC peer sees a
     * write into a deregistered region fail. On libfabric's verbs provider the HCA checks every write against the
     * registration, so its close is enough there, as in jDAT's own verbs provider: the connections stay.
     */
    @Override
    protected void destroy() {
        markClosed();
        for (OfiEp ep : ia.epsByKey.values()) {
            if (ep.data.inFlightOn(this)) {
                ep.connection.breakConnection(true, DatEventType.CONNECTION_EVENT_BROKEN);
            } else if (remoteWrite && !ia.entry.ibVerbs() && ep.pz == zone && (ep.state == DatEpState.CONNECTED
                    || ep.state == DatEpState.COMPLETION_PENDING)) {
                ep.connection.breakConnection(true, DatEventType.CONNECTION_EVENT_BROKEN);
            }
        }
        for (OfiSrq srq : ia.srqs) {
            srq.lmrFreed(this);
        }
        ia.lmrs.remove(context);
        zone.keys.remove(key);
        Fi.fi_close(mr);
    }

    @Override
    public int lmrContext() {
        return context;
    }

    @Override
    public int rmrContext() {
        return (int) key;
    }
}
