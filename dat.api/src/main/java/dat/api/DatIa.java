// SPDX-License-Identifier: Apache-2.0
package dat.api;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;

/**
 * An open Interface Adapter: {@code DAT_IA_HANDLE}, the root of every other DAT object.
 *
 * <p>Obtained from {@code dat_ia_open} (in Java: {@code DatRegistry.open(iaName)} or
 * {@link dat.spi.DatProvider#open}). Creation calls that DAT places on the IA live here and take the
 * protection zone as an argument, exactly as in C, so the man page of each call reads straight across.
 *
 * <p>{@link #close()} is a graceful {@code dat_ia_close}: it refuses with {@link DatReturn#INVALID_STATE}
 * while any object created from this IA (other than its async EVD) is alive.
 */
public interface DatIa extends DatHandle {

    /** {@return the IA name this instance was opened by, for example {@code loopback0}} */
    String name();

    /**
     * {@code dat_ia_query}: the IA attributes.
     *
     * @return an immutable snapshot
     * @throws DatException {@link DatReturn#INVALID_HANDLE} when the IA is closed
     */
    DatIaAttr query();

    /**
     * {@code dat_ia_query}: the provider attributes as this IA reports them.
     *
     * @return an immutable snapshot
     * @throws DatException {@link DatReturn#INVALID_HANDLE} when the IA is closed
     */
    DatProviderAttr providerAttr();

    /**
     * The asynchronous event dispatcher {@code dat_ia_open} created (its {@code async_evd_handle}). It
     * receives {@link DatEventType#ASYNC_ERROR_EVD_OVERFLOW}, {@link DatEventType#ASYNC_ERROR_EP_BROKEN},
     * the SRQ low-watermark event and the other asynchronous events of this IA. It is freed with the IA.
     *
     * @return the async EVD
     */
    DatEvd asyncEvd();

    /**
     * {@code dat_ia_close}.
     *
     * @param flags {@link DatCloseFlags#GRACEFUL}: fail with {@link DatReturn#INVALID_STATE} while objects
     *     remain; {@link DatCloseFlags#ABRUPT}: destroy every object of this IA (EPs are disconnected
     *     abruptly, their outstanding DTOs flushed) and close
     * @throws DatException {@link DatReturn#INVALID_STATE} for a graceful close with live objects
     */
    void close(DatCloseFlags flags);

    /**
     * {@code dat_pz_create}.
     *
     * @return a new protection zone
     * @throws DatException {@link DatReturn#INSUFFICIENT_RESOURCES} past {@link DatIaAttr#maxPzs()},
     *     {@link DatReturn#INVALID_HANDLE} when the IA is closed
     */
    DatPz createPz();

    /**
     * {@code dat_evd_create}.
     *
     * @param evdMinQlen the minimum number of events the EVD must hold, {@code 1..max_evd_qlen}
     * @param cno the CNO to notify, or {@code null}
     * @param evdFlags a combination of {@link DatEvdFlags}
     * @return a new event dispatcher, enabled
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a bad qlen or flags,
     *     {@link DatReturn#MODEL_NOT_SUPPORTED} for a flag combination the provider does not support,
     *     {@link DatReturn#INSUFFICIENT_RESOURCES}, {@link DatReturn#INVALID_HANDLE}
     */
    DatEvd createEvd(int evdMinQlen, DatCno cno, int evdFlags);

    /**
     * {@code dat_cno_create}.
     *
     * @param agent the wait proxy agent called when an event arrives on an EVD bound to the CNO, or
     *     {@code null}
     * @return a new consumer notification object
     * @throws DatException {@link DatReturn#MODEL_NOT_SUPPORTED} when the provider has no CNO
     */
    DatCno createCno(DatCno.Agent agent);

    /**
     * {@code dat_lmr_create} with {@code DAT_MEM_TYPE_VIRTUAL}: registers the caller's native memory.
     *
     * <p>Memory safety, as the JVM needs it and C leaves to the programmer:
     * <ul>
     * <li>The region must be native, alive and shared: a heap segment, a segment of a closed arena, or of a
     * confined arena (transfers touch it from other threads, and an HCA at any time) is refused with
     * {@link DatReturn#INVALID_PARAMETER}.
     * <li>The segment stays owned by the caller's {@link java.lang.foreign.Arena}, whose scope must outlive the
     * LMR: close the LMR ({@code dat_lmr_free}) before the arena, as C code must not free registered memory.
     * Memory freed while registered is never touched by a software provider (the transfer completes
     * unsuccessfully), but a hardware provider's HCA may still write it.
     * <li>When {@code dat_lmr_free} returns, no transfer moves another byte into or out of the region: transfers
     * under way when it was called have finished, later ones fail.
     * <li>An {@link Iov} whose own memory is dead or confined to another thread makes a post return
     * {@link DatReturn#DAT_INVALID_PARAMETER}; the data path never throws.
     * <li>{@code lmr_context} and {@code rmr_context} come from a cryptographic generator: a peer cannot guess the
     * context of memory it was not given.
     * </ul>
     *
     * @param pz the protection zone the region belongs to
     * @param region native memory; its address is the LMR's {@code registered_address}
     * @param privileges a combination of {@link DatMemPriv} flags
     * @return the new LMR, with fresh unguessable {@code lmr_context} and {@code rmr_context}
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a heap, dead, confined or zero-length segment, a
     *     length
     *     over {@code max_lmr_block_size} or unknown privilege bits; {@link DatReturn#INVALID_HANDLE} for a
     *     closed or foreign PZ; {@link DatReturn#INSUFFICIENT_RESOURCES} past {@code max_lmrs}
     */
    DatLmr createLmr(DatPz pz, MemorySegment region, int privileges);

    /**
     * {@code dat_lmr_sync_rdma_read}: makes data written into local memory by RDMA reads visible to the
     * consumer on platforms whose {@link DatProviderAttr#lmrSyncReq()} is true. A no-op otherwise.
     *
     * @param localSegments the segments to synchronise
     * @param numSegments how many of them
     * @return {@link DatReturn#DAT_SUCCESS}, {@link DatReturn#DAT_INVALID_PARAMETER} for a segment outside its
     *     LMR, {@link DatReturn#DAT_INVALID_HANDLE}
     */
    int lmrSyncRdmaRead(Iov localSegments, int numSegments);

    /**
     * {@code dat_lmr_sync_rdma_write}: makes consumer stores visible to later RDMA writes and reads of the
     * peer on platforms whose {@link DatProviderAttr#lmrSyncReq()} is true. A no-op otherwise.
     *
     * @param localSegments the segments to synchronise
     * @param numSegments how many of them
     * @return as {@link #lmrSyncRdmaRead}
     */
    int lmrSyncRdmaWrite(Iov localSegments, int numSegments);

    /**
     * {@code dat_ep_create}.
     *
     * @param pz the EP's protection zone
     * @param recvEvd EVD for receive completions ({@link DatEvdFlags#DTO}), or {@code null}
     * @param requestEvd EVD for send, RDMA and RMR-bind completions, or {@code null}
     * @param connectEvd EVD for connection events ({@link DatEvdFlags#CONNECTION}), or {@code null}
     * @param attr requested attributes, or {@code null} for the provider's defaults
     * @return a new EP in {@link DatEpState#UNCONNECTED}
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for attributes over the IA limits or an
     *     UNSIGNALLED recv flag, {@link DatReturn#INVALID_HANDLE} for a closed or foreign handle, an EVD
     *     without the needed flag, {@link DatReturn#INSUFFICIENT_RESOURCES} past {@code max_eps}
     */
    DatEp createEp(DatPz pz, DatEvd recvEvd, DatEvd requestEvd, DatEvd connectEvd, DatEpAttr attr);

    /**
     * {@code dat_ep_create_with_srq}: an EP whose receives come from {@code srq}.
     *
     * @param pz the EP's protection zone; may differ from the SRQ's only where
     *     {@link DatProviderAttr#srqEpPzDifferenceSupported()}
     * @param recvEvd EVD for receive completions, or {@code null}
     * @param requestEvd EVD for request completions, or {@code null}
     * @param connectEvd EVD for connection events, or {@code null}
     * @param srq the shared receive queue
     * @param attr requested attributes ({@code max_recv_dtos} and {@code max_recv_iov} are ignored), or
     *     {@code null}
     * @return a new EP in {@link DatEpState#UNCONNECTED}
     * @throws DatException {@link DatReturn#MODEL_NOT_SUPPORTED} when the provider has no SRQ or the PZs
     *     differ where the provider requires them equal; otherwise as {@link #createEp}
     */
    DatEp createEpWithSrq(DatPz pz, DatEvd recvEvd, DatEvd requestEvd, DatEvd connectEvd, DatSrq srq,
                          DatEpAttr attr);

    /**
     * {@code dat_srq_create}.
     *
     * @param pz the protection zone posted buffers must belong to
     * @param attr requested attributes; {@code low_watermark} must be {@link Dat#DAT_SRQ_LW_DEFAULT}
     * @return a new SRQ, unattached, with at least the requested queue size and IOV limit
     * @throws DatException {@link DatReturn#MODEL_NOT_SUPPORTED} when {@link DatProviderAttr#srqSupported()}
     *     is false; {@link DatReturn#INVALID_PARAMETER} for a bad attribute or combination;
     *     {@link DatReturn#INVALID_HANDLE} for a closed IA or PZ; {@link DatReturn#INSUFFICIENT_RESOURCES}
     */
    DatSrq createSrq(DatPz pz, DatSrqAttr attr);

    /**
     * {@code dat_psp_create}: listens on a connection qualifier.
     *
     * @param connQual the qualifier (port) to listen on
     * @param crEvd EVD with {@link DatEvdFlags#CR} for connection requests
     * @param flags who creates the EP for incoming requests
     * @return the new public service point
     * @throws DatException {@link DatReturn#CONN_QUAL_IN_USE} when the qualifier is taken on this IA
     */
    DatPsp createPsp(long connQual, DatEvd crEvd, DatPspFlags flags);

    /**
     * {@code dat_psp_create_any}: listens on a qualifier the provider chooses.
     *
     * @param crEvd EVD with {@link DatEvdFlags#CR}
     * @param flags who creates the EP for incoming requests
     * @return the new public service point; {@link DatPsp#connQual()} says which qualifier
     */
    DatPsp createPspAny(DatEvd crEvd, DatPspFlags flags);

    /**
     * {@code dat_rsp_create}: a reserved service point bound to one EP.
     *
     * @param connQual the qualifier to listen on
     * @param ep the EP incoming requests connect to; it moves to {@link DatEpState#RESERVED}
     * @param crEvd EVD with {@link DatEvdFlags#CR}
     * @return the new reserved service point
     * @throws DatException {@link DatReturn#CONN_QUAL_IN_USE}, {@link DatReturn#INVALID_STATE} when the EP is
     *     not unconnected
     */
    DatRsp createRsp(long connQual, DatEp ep, DatEvd crEvd);

    /**
     * The address other IAs connect to, as passed to {@link DatEp#connect}.
     *
     * @return this IA's address ({@code ia_address_ptr} of {@link DatIaAttr})
     */
    InetAddress address();
}
