// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * A Remote Memory Region: {@code DAT_RMR_HANDLE}, a window onto part of an LMR that a peer reaches by RDMA
 * with {@link #rmrContext()}.
 *
 * <p>Binding is posted on an EP's request queue and completes with a
 * {@link DatEventType#RMR_BIND_COMPLETION} event on its request EVD; each bind gives the RMR a new, random
 * {@code rmr_context}, so an old context stops working at once.
 */
public interface DatRmr extends DatHandle {

    /** {@return the current {@code rmr_context}; changes on every bind and unbind} */
    int rmrContext();

    /** {@return the protection zone of the RMR} */
    DatPz pz();

    /**
     * {@code dat_rmr_bind}: binds the RMR to {@code [offset, offset + length)} of {@code lmr}.
     *
     * @param lmr the region to expose; must be of the RMR's PZ and the EP's PZ
     * @param offset byte offset within the LMR
     * @param length byte length; 0 unbinds (DAT's unbind is a bind of length 0)
     * @param memPrivileges {@link DatMemPriv#REMOTE_READ} and/or {@link DatMemPriv#REMOTE_WRITE}
     * @param ep a connected EP; the RMR is usable only over its connection
     * @param userCookie returned in the bind completion
     * @param completionFlags {@link DatCompletionFlags} for the bind
     * @return {@link DatReturn#DAT_SUCCESS}; {@link DatReturn#DAT_INVALID_PARAMETER} for a range outside
     *     the LMR or bad privileges; {@link DatReturn#DAT_PRIVILEGES_VIOLATION} when the LMR lacks a
     *     privilege the bind asks for; {@link DatReturn#DAT_PROTECTION_VIOLATION} on a PZ mismatch;
     *     {@link DatReturn#DAT_INVALID_STATE} when the EP is not connected;
     *     {@link DatReturn#DAT_INVALID_HANDLE}; {@link DatReturn#DAT_INSUFFICIENT_RESOURCES}
     */
    int bind(DatLmr lmr, long offset, long length, int memPrivileges, DatEp ep, long userCookie,
             int completionFlags);

    /**
     * {@code dat_rmr_bind} with a zero-length triplet: unbinds the RMR.
     *
     * @param ep the EP the unbind is posted on
     * @param userCookie returned in the bind completion
     * @param completionFlags {@link DatCompletionFlags} for the unbind
     * @return as {@link #bind}
     */
    int unbind(DatEp ep, long userCookie, int completionFlags);

    /**
     * {@code dat_rmr_query}.
     *
     * @return the RMR parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE} when closed
     */
    DatRmrParam query();
}
