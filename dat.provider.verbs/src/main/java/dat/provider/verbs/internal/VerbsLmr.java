// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.api.DatMemPriv;
import dat.provider.verbs.internal.ffm.IbvMr;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.NativeCallException;
import dat.spi.AbstractLmr;
import java.lang.foreign.MemorySegment;

/**
 * A local memory region ({@code dat_lmr_create}, {@code DAT_MEM_TYPE_VIRTUAL}): {@code ibv_reg_mr} over the
 * consumer's segment. {@code lmr_context} is the MR's {@code lkey} and {@code rmr_context} its {@code rkey}, so a
 * DAT triplet becomes an {@code ibv_sge} without a lookup, and the rkey a peer is given is the one the HCA checks.
 */
final class VerbsLmr extends AbstractLmr<VerbsIa, VerbsPz> {

    /** The {@code struct ibv_mr *}. */
    final MemorySegment mr;
    private final int lkey;
    private final int rkey;

    VerbsLmr(VerbsPz pz, MemorySegment segment, int privileges) {
        super(pz, segment, privileges);
        try {
            this.mr = pz.ia().verbs.ibv_reg_mr(pz.pd, segment, length(), access(privileges));
        } catch (NativeCallException e) {
            throw VerbsIa.resources("dat_lmr_create", e);
        }
        this.lkey = IbvMr.lkey(mr);
        this.rkey = IbvMr.rkey(mr);
    }

    /**
     * DAT privileges as {@code ibv_access_flags}. Local read needs no flag; verbs requires local write wherever
     * remote write is granted, and the DAT consumer asked for remote write, so the HCA gets both. Local write is
     * enforced by the post-time check of the DAT privileges, not only by the HCA.
     */
    static int access(int privileges) {
        int access = 0;
        if ((privileges & (DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_WRITE)) != 0) {
            access |= LibIbverbs.IBV_ACCESS_LOCAL_WRITE;
        }
        if ((privileges & DatMemPriv.REMOTE_WRITE) != 0) {
            access |= LibIbverbs.IBV_ACCESS_REMOTE_WRITE;
        }
        if ((privileges & DatMemPriv.REMOTE_READ) != 0) {
            access |= LibIbverbs.IBV_ACCESS_REMOTE_READ;
        }
        return access;
    }

    @Override
    protected void destroy() {
        markClosed();
        owner().lmrsByLkey.remove(lkey);
        owner().verbs.ibv_dereg_mr(mr);
    }

    @Override
    public int lmrContext() {
        return lkey;
    }

    @Override
    public int rmrContext() {
        return rkey;
    }
}
