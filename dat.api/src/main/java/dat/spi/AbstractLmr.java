// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.Dat;
import dat.api.DatHandleType;
import dat.api.DatLmr;
import dat.api.DatLmrParam;
import dat.api.DatReturnSubtype;
import java.lang.foreign.MemorySegment;

/**
 * The shell of a local memory region ({@code dat_lmr_create} with {@code DAT_MEM_TYPE_VIRTUAL},
 * {@code dat_lmr_query}, {@code dat_lmr_free}): the consumer's segment, its PZ and privileges, the bounds check every
 * post makes ({@link #contains}, {@link DtoArgs#segment}) and the query. The provider supplies the two contexts (a
 * random tag, an HCA's keys) and registers and releases the memory.
 *
 * <p>Duties the shell cannot check for you (the kit does):
 * <ul>
 * <li>The contexts are unguessable: drawn from a cryptographic generator (or a keyed PRF over a counter), never a
 * counter or an address, so a peer that saw some contexts cannot name memory it was not given. {@code dat_lmr_create}
 * promises the consumer this ({@link dat.api.DatIa#createLmr}).
 * <li>Registration fails on memory the provider cannot touch for the region's whole length: pages that are not
 * mapped, as an HCA's pinning does ({@code DAT_INVALID_PARAMETER} or the code your registration's failure maps to).
 * <li>{@link #destroy()} returns only when no transfer can move another byte into or out of the region, and both
 * contexts have stopped resolving (see {@link ProviderHandle#destroy()}).
 * </ul>
 *
 * @param <I> the provider's IA class
 * @param <P> its PZ class
 */
public abstract class AbstractLmr<I extends AbstractIa<I, ?, ?, ?, ?>, P extends AbstractPz<I>>
        extends AbstractHandle<I> implements DatLmr {

    private final P pz;
    private final MemorySegment segment;
    private final long address;
    private final long length;
    private final int privileges;

    /**
     * Creates the shell's part of an LMR ({@code dat_lmr_create}).
     *
     * @param pz the PZ the region belongs to
     * @param segment the consumer's memory, checked by {@link DatArgs#lmrCreate}
     * @param privileges the DAT privileges
     */
    protected AbstractLmr(P pz, MemorySegment segment, int privileges) {
        super(pz.owner());
        this.pz = pz;
        this.segment = segment;
        this.address = segment.address();
        this.length = segment.byteSize();
        this.privileges = privileges;
    }

    @Override
    public final DatHandleType handleType() {
        return DatHandleType.LMR;
    }

    @Override
    protected final DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_LMR;
    }

    @Override
    protected final DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_LMR_IN_USE;
    }

    @Override
    protected final String freeCall() {
        return "dat_lmr_free";
    }

    /** Its PZ; a provider whose RMRs bind to LMRs adds their bindings to its {@link #checkFree()}. */
    @Override
    protected final boolean dependsOn(ProviderHandle other) {
        return other == pz;
    }

    /**
     * {@return whether {@code [virtualAddress, virtualAddress + len)} lies inside the region}
     *
     * @param virtualAddress first byte
     * @param len byte count
     */
    public final boolean contains(long virtualAddress, long len) {
        long offset = virtualAddress - address;
        return len >= 0 && offset >= 0 && offset <= length && len <= length - offset;
    }

    @Override
    public final MemorySegment segment() {
        return segment;
    }

    @Override
    public final long address() {
        return address;
    }

    @Override
    public final long length() {
        return length;
    }

    @Override
    public final int privileges() {
        return privileges;
    }

    @Override
    public final P pz() {
        return pz;
    }

    /** {@code dat_lmr_query}. */
    @Override
    public final DatLmrParam query() {
        requireOpen("dat_lmr_query");
        return new DatLmrParam(owner(), Dat.DAT_MEM_TYPE_VIRTUAL, segment, length, pz, privileges, lmrContext(),
                rmrContext(), length, address);
    }
}
