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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Registered memory ({@code dat_lmr_create}): an {@code fi_mr_reg} of the region with local access always and remote
 * read or write as the privileges grant. The {@code rmr_context} is the registration's key: chosen by jDAT at random
 * (a 31-bit value unique in its PZ, whose domain is its own) where the domain lets the consumer choose
 * ({@code FI_MR_PROV_KEY} clear), the provider's own otherwise (the scan refuses domains whose keys are wider than
 * 32 bits). The {@code lmr_context} is a random number of jDAT's naming the LMR in the posts, whose descriptor
 * ({@code fi_mr_desc}) is passed with every segment, which honours {@code FI_MR_LOCAL}.
 *
 * <p>{@code dat_lmr_free} first breaks the connections of EPs that have an operation on the region in flight (as an
 * HCA fails a work request whose MR is deregistered), and for a region with remote write access on tcp and over RDM
 * associations fences every other connection of its zone after {@code fi_close} ({@link #destroy}), so the provider
 * has no copy into or out of it left when the free returns.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class OfiLmr extends AbstractLmr<OfiIa, OfiPz> {

    /**
     * How long {@code dat_lmr_free} waits for the fence reads: the peer's IA steps at least every 3 ms (its progress
     * thread every 2 ms while no consumer polls, a polling consumer every millisecond, see OfiProgress), and a read's
     * response waits in the peer's stream for the write it is sending, which on loopback moves some MiB a
     * millisecond; a peer that has not answered by then is taken as not progressing, and its connection breaks.
     */
    static final long FENCE_NANOS = 200_000_000L;
    /** The fence's wait between progress steps that found nothing. */
    private static final long FENCE_PAUSE_NANOS = 10_000;

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
     * Under the lifecycle lock (the IA's lock): EPs using the region lose their connection, the registration goes,
     * and when the region has remote write access every connection of the zone is fenced ({@link #fence}).
     *
     * <p>tcp checks an RDMA write's key when the write's header arrives and then copies the payload into the region
     * as the stream brings it, in whichever progress call reads it: {@code fi_close} of the registration stops new
     * writes but not one already under way, and nothing tells the target one is. Only an endpoint of the LMR's zone
     * (its domain) can have accepted the key, so those are the connections to fence. shm does the same in the
     * target's progress for a write sent in segments (docs/ofi-rdm-protocol.md, "dat_lmr_free"). On libfabric's verbs
     * provider the HCA checks every write against the registration, so its close is enough there, as in jDAT's own
     * verbs provider.
     */
    @Override
    protected void destroy() {
        markClosed();
        List<OfiEp> zoneEps = new ArrayList<>();
        ia.epsByKey.forEach(ep -> {
            if (ep.data.inFlightOn(this)) {
                ep.connection.breakConnection(true, DatEventType.CONNECTION_EVENT_BROKEN);
            } else if (remoteWrite && !ia.entry.ibVerbs() && ep.pz == zone && up(ep)) {
                zoneEps.add(ep);
            }
        });
        for (OfiSrq srq : ia.srqs) {
            srq.lmrFreed(this);
        }
        ia.lmrs.remove(context);
        zone.keys.remove(key);
        Fi.fi_close(mr);
        if (!zoneEps.isEmpty()) {
            fence(zoneEps);
        }
    }

    /**
     * After {@code fi_close} of the registration, so a write header arriving from now on fails its key check: a read
     * of the peer's credit word through each connection of the zone, all sent first, then one wait for all, driving
     * the IA's progress. tcp sends the read's response in the peer's stream after the whole of the write it is
     * sending (a socket's messages never interleave), and this side reads its stream in order, so when the read
     * completes every write whose header this side accepted before the close is copied in full (docs/ofi.md,
     * "Memory safety on tcp"). Over an RDM association the fence is a {@code FENCE}, which the peer answers once the
     * writes it had posted completed (OfiRdmLink#startFence). A connection that cannot fence (not yet established, or a
     * peer that sent no credit header), whose read fails, or whose peer does not answer within {@link #FENCE_NANOS},
     * breaks as an RC peer's write into a deregistered region does: closing its endpoint takes it out of progress.
     */
    private void fence(List<OfiEp> eps) {
        int n = eps.size();
        int[] generation = new int[n];
        boolean[] waiting = new boolean[n];
        int left = 0;
        for (int i = 0; i < n; i++) {
            OfiEp ep = eps.get(i);
            if (ep.data.startFence()) {
                generation[i] = ep.connection.generation();
                waiting[i] = true;
                left++;
            } else {
                breakIfUp(ep);
            }
        }
        long deadline = System.nanoTime() + FENCE_NANOS;
        while (left > 0) {
            boolean found = ia.progressLocked();
            for (int i = 0; i < n; i++) {
                if (!waiting[i]) {
                    continue;
                }
                OfiEp ep = eps.get(i);
                byte state = ep.data.credit.fenceState;
                if (ep.connection.generation() != generation[i]) {
                    // The connection ended while the read was out: its endpoint is closed, nothing lands any more.
                    waiting[i] = false;
                    left--;
                } else if (state != OfiCredit.FENCE_PENDING) {
                    waiting[i] = false;
                    left--;
                    if (state != OfiCredit.FENCE_DONE) {
                        breakIfUp(ep);
                    }
                    ep.data.credit.fenceState = OfiCredit.FENCE_NONE;
                }
            }
            if (left > 0 && System.nanoTime() - deadline >= 0) {
                break;
            }
            if (!found) {
                // The lock stays held (the free is one call); the park leaves the CPU to the peer's progress.
                LockSupport.parkNanos(FENCE_PAUSE_NANOS);
            }
        }
        for (int i = 0; i < n; i++) {
            if (waiting[i] && eps.get(i).connection.generation() == generation[i]) {
                // No answer in time: the peer does not progress, or its stream is stuck behind something else.
                breakIfUp(eps.get(i));
            }
        }
    }

    private static void breakIfUp(OfiEp ep) {
        if (up(ep)) {
            ep.connection.breakConnection(true, DatEventType.CONNECTION_EVENT_BROKEN);
        }
    }

    /** {@return whether the EP's peer may write into its zone: its connection is made, being made, or ending} */
    private static boolean up(OfiEp ep) {
        return ep.state == DatEpState.CONNECTED || ep.state == DatEpState.COMPLETION_PENDING
                || ep.state == DatEpState.DISCONNECT_PENDING;
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
