// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * A Protection Zone: {@code DAT_PZ_HANDLE}. LMRs, RMRs, EPs and SRQs belong to one; a DTO may only touch
 * memory of its own PZ ({@link DatReturn#PROTECTION_VIOLATION} otherwise).
 */
public interface DatPz extends DatHandle {

    /** {@return the IA that created this PZ} */
    DatIa ia();

    /**
     * {@code dat_pz_query}.
     *
     * @return the PZ parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE} when closed
     */
    DatPzParam query();

    /**
     * {@code dat_rmr_create}: an unbound remote memory region of this PZ.
     *
     * @return the new RMR
     * @throws DatException {@link DatReturn#MODEL_NOT_SUPPORTED} when the provider has no RMRs
     *     ({@link DatIaAttr#maxRmrs()} is 0), {@link DatReturn#INSUFFICIENT_RESOURCES} past {@code max_rmrs}
     */
    DatRmr createRmr();
}
