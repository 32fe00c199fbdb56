// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import dat.api.Dat;
import dat.api.DatHandleType;
import dat.api.DatLmr;
import dat.api.DatLmrParam;
import dat.api.DatMemPriv;
import dat.api.DatReturnSubtype;
import dat.provider.verbs.internal.ffm.IbvMr;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.NativeCallException;
import dat.spi.ProviderHandle;
import java.lang.foreign.MemorySegment;

/**
 * A local memory region ({@code dat_lmr_create}, {@code DAT_MEM_TYPE_VIRTUAL}): {@code ibv_reg_mr} over the
 * consumer's segment. {@code lmr_context} is the MR's {@code lkey} and {@code rmr_context} its {@code rkey}, so a
 * DAT triplet becomes an {@code ibv_sge} without a lookup, and the rkey a peer is given is the one the HCA checks.
 */
final class VerbsLmr extends VerbsHandle implements DatLmr {

    final VerbsPz pz;
    final MemorySegment segment;
    final long address;
    final long length;
    final int privileges;
    /** The {@code struct ibv_mr *}. */
    final MemorySegment mr;
    private final int lkey;
    private final int rkey;

    VerbsLmr(VerbsPz pz, MemorySegment segment, int privileges) {
        this.pz = pz;
        this.segment = segment;
        this.address = segment.address();
        this.length = segment.byteSize();
        this.privileges = privileges;
        try {
            this.mr = pz.ia().verbs.ibv_reg_mr(pz.pd, segment, length, access(privileges));
        } catch (NativeCallException e) {
            throw VerbsIa.resources("dat_lmr_create", e);
        }
        this.lkey = mr.get(JAVA_INT, IbvMr.LKEY);
        this.rkey = mr.get(JAVA_INT, IbvMr.RKEY);
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
    VerbsIa owner() {
        return pz.ia();
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_LMR;
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_LMR_IN_USE;
    }

    @Override
    protected String freeCall() {
        return "dat_lmr_free";
    }

    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == pz;
    }

    @Override
    protected void destroy() {
        markClosed();
        owner().lmrsByLkey.remove(lkey);
        owner().verbs.ibv_dereg_mr(mr);
    }

    /**
     * {@return whether {@code [virtualAddress, virtualAddress + len)} lies inside the region}
     *
     * @param virtualAddress first byte
     * @param len byte count
     */
    boolean contains(long virtualAddress, long len) {
        long offset = virtualAddress - address;
        return len >= 0 && offset >= 0 && offset <= length && len <= length - offset;
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.LMR;
    }

    @Override
    public int lmrContext() {
        return lkey;
    }

    @Override
    public int rmrContext() {
        return rkey;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public int privileges() {
        return privileges;
    }

    @Override
    public VerbsPz pz() {
        return pz;
    }

    @Override
    public DatLmrParam query() {
        requireOpen("dat_lmr_query");
        return new DatLmrParam(owner(), Dat.DAT_MEM_TYPE_VIRTUAL, segment, length, pz, privileges, lkey, rkey, length,
                address);
    }
}
