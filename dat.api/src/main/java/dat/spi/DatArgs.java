// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.Dat;
import dat.api.DatCompletionFlags;
import dat.api.DatConnectFlags;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEvdFlags;
import dat.api.DatException;
import dat.api.DatIaAttr;
import dat.api.DatMemPriv;
import dat.api.DatProviderAttr;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatServiceType;
import dat.api.DatSrqAttr;
import java.lang.foreign.MemorySegment;

/**
 * Argument checks of the DAT create calls that depend only on the arguments and the IA's attributes, shared by
 * every provider so that the same mistake gets the same return code and the same message whatever the provider.
 * Each method throws a {@link DatException} naming the call, the argument and the limit it broke.
 */
public final class DatArgs {

    private DatArgs() {
    }

    /**
     * {@return a {@code DAT_INVALID_PARAMETER} exception}
     *
     * @param subtype which argument
     * @param message the call, the argument and why
     */
    public static DatException invalidParameter(DatReturnSubtype subtype, String message) {
        return new DatException(DatReturn.INVALID_PARAMETER, subtype, message);
    }

    /**
     * {@code dat_evd_create}: {@code evd_min_qlen} within 1..{@code max_evd_qlen}, {@code evd_flags} non-empty DAT
     * flags.
     *
     * @param ia the IA's attributes
     * @param evdMinQlen the requested queue length
     * @param evdFlags the requested event kinds
     */
    public static void evdCreate(DatIaAttr ia, int evdMinQlen, int evdFlags) {
        String call = "dat_evd_create";
        if (evdMinQlen < 1 || evdMinQlen > ia.maxEvdQlen()) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": evd_min_qlen " + evdMinQlen
                    + " is outside 1..max_evd_qlen " + ia.maxEvdQlen());
        }
        if (evdFlags == 0 || (evdFlags & ~DatEvdFlags.ALL) != 0) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG4, call + ": evd_flags 0x"
                    + Integer.toHexString(evdFlags) + (evdFlags == 0 ? " asks for no event kind"
                    : " has unknown bits 0x" + Integer.toHexString(evdFlags & ~DatEvdFlags.ALL)));
        }
    }

    /**
     * {@code dat_evd_resize}: {@code evd_min_qlen} within 1..{@code max_evd_qlen}.
     *
     * @param ia the IA's attributes
     * @param evdMinQlen the requested queue length
     */
    public static void evdResize(DatIaAttr ia, int evdMinQlen) {
        if (evdMinQlen < 1 || evdMinQlen > ia.maxEvdQlen()) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG2, "dat_evd_resize: evd_min_qlen " + evdMinQlen
                    + " is outside 1..max_evd_qlen " + ia.maxEvdQlen());
        }
    }

    /**
     * {@code dat_evd_resize} against the EVD's state: never below the events it holds, so none is lost.
     *
     * @param evdMinQlen the requested queue length
     * @param queued the events queued now
     * @throws DatException {@code DAT_INVALID_STATE}
     */
    public static void evdResizeState(int evdMinQlen, int queued) {
        if (evdMinQlen < queued) {
            throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE,
                    "dat_evd_resize: evd_min_qlen " + evdMinQlen + " is below the " + queued + " queued events");
        }
    }

    /**
     * {@code dat_lmr_create} with {@code DAT_MEM_TYPE_VIRTUAL}: a native, alive, shared ({@link DatMemory}),
     * non-empty region within {@code max_lmr_block_size}, DAT privileges, no write privilege on read-only memory.
     *
     * @param ia the IA's attributes
     * @param region the memory to register
     * @param privileges the requested {@link DatMemPriv} bits
     */
    public static void lmrCreate(DatIaAttr ia, MemorySegment region, int privileges) {
        String call = "dat_lmr_create";
        if (region == null) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG3, call + ": region_description is null");
        }
        if (!region.isNative()) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG3,
                    call + ": region_description is a heap segment; only native memory can be registered");
        }
        if (!DatMemory.alive(region)) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG3,
                    call + ": region_description's arena is closed; dead memory cannot be registered");
        }
        if (!DatMemory.shared(region)) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG3, call + ": region_description is confined to one"
                    + " thread; transfers touch it from others: register memory of a shared, automatic or global"
                    + " arena");
        }
        if (region.byteSize() == 0 || region.byteSize() > ia.maxLmrBlockSize()) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG4, call + ": length " + region.byteSize()
                    + " is outside 1..max_lmr_block_size " + ia.maxLmrBlockSize());
        }
        if ((privileges & ~DatMemPriv.ALL) != 0) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG6, call + ": privileges 0x"
                    + Integer.toHexString(privileges) + " has unknown bits 0x"
                    + Integer.toHexString(privileges & ~DatMemPriv.ALL));
        }
        if (region.isReadOnly() && (privileges & (DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_WRITE)) != 0) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG6,
                    call + ": privileges ask for write access to a read-only segment");
        }
    }

    /**
     * {@code dat_srq_create}: {@code max_recv_dtos} within 1..{@code max_recv_per_srq}, {@code max_recv_iov}
     * within 1..{@code max_iov_segments_per_dto}, the low watermark at its default.
     *
     * @param ia the IA's attributes
     * @param attr the requested attributes
     */
    public static void srqCreate(DatIaAttr ia, DatSrqAttr attr) {
        String call = "dat_srq_create";
        if (attr == null) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG3, call + ": srq_attr is null");
        }
        if (attr.maxRecvDtos() < 1 || attr.maxRecvDtos() > ia.maxRecvPerSrq()) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG3, call + ": max_recv_dtos " + attr.maxRecvDtos()
                    + " is outside 1..max_recv_per_srq " + ia.maxRecvPerSrq());
        }
        if (attr.maxRecvIov() < 1 || attr.maxRecvIov() > ia.maxIovSegmentsPerDto()) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG3, call + ": max_recv_iov " + attr.maxRecvIov()
                    + " is outside 1..max_iov_segments_per_dto " + ia.maxIovSegmentsPerDto());
        }
        if (attr.lowWatermark() != Dat.DAT_SRQ_LW_DEFAULT) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG3, call + ": low_watermark " + attr.lowWatermark()
                    + " must be DAT_SRQ_LW_DEFAULT (0) at create; arm it with dat_srq_set_lw");
        }
    }

    /**
     * {@code dat_srq_resize}: at least 1 ({@code DAT_INVALID_PARAMETER}) and at most {@code max_recv_per_srq}
     * ({@code DAT_INSUFFICIENT_RESOURCES}: a size the IA cannot give is a resource limit, not a malformed
     * argument).
     *
     * @param ia the IA's attributes
     * @param srqMaxRecvDto the requested size
     */
    public static void srqResize(DatIaAttr ia, int srqMaxRecvDto) {
        String call = "dat_srq_resize";
        if (srqMaxRecvDto < 1) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": srq_max_recv_dto " + srqMaxRecvDto
                    + " is below 1");
        }
        if (srqMaxRecvDto > ia.maxRecvPerSrq()) {
            throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ, call
                    + ": srq_max_recv_dto " + srqMaxRecvDto + " is above max_recv_per_srq " + ia.maxRecvPerSrq());
        }
    }

    /**
     * {@code dat_ep_create}, {@code dat_ep_create_with_srq}, {@code dat_ep_modify}: EP attributes within the IA's
     * limits and the provider's supported features.
     *
     * @param call the DAT call, for messages
     * @param ia the IA's attributes
     * @param provider the provider's attributes (QoS, completion flags, watermarks)
     * @param a the requested attributes
     * @param withSrq whether the EP receives from an SRQ (its own receive queue limits are then not checked)
     */
    public static void epAttr(String call, DatIaAttr ia, DatProviderAttr provider, DatEpAttr a, boolean withSrq) {
        DatReturnSubtype arg = DatReturnSubtype.INVALID_ARG6;
        if (a.serviceType() != DatServiceType.RC) {
            throw invalidParameter(arg, call + ": service_type " + a.serviceType() + " is not RC");
        }
        checkRange(call, "max_message_size", a.maxMessageSize(), 0, ia.maxMessageSize());
        checkRange(call, "max_rdma_size", a.maxRdmaSize(), 0, ia.maxRdmaSize());
        if (a.qos() != DatQos.BEST_EFFORT && (provider.datQosSupported() & a.qos().value()) == 0) {
            throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": qos " + a.qos()
                    + " is not supported (dat_qos_supported 0x" + Integer.toHexString(provider.datQosSupported())
                    + ")");
        }
        int supported = provider.completionFlagsSupported();
        int recv = a.recvCompletionFlags();
        boolean recvOk = recv == DatCompletionFlags.DEFAULT
                || (withSrq && recv == DatCompletionFlags.UNSIGNALLED)
                || ((recv == DatCompletionFlags.SOLICITED_WAIT || recv == DatCompletionFlags.EVD_THRESHOLD)
                        && (supported & recv) == recv);
        if (!recvOk) {
            throw invalidParameter(arg, call + ": recv_completion_flags 0x" + Integer.toHexString(recv)
                    + " is not DEFAULT or a supported SOLICITED_WAIT or EVD_THRESHOLD (completion_flags_supported 0x"
                    + Integer.toHexString(supported) + ")"
                    + (withSrq ? " or UNSIGNALLED" : "; UNSIGNALLED is only for an EP on an SRQ"));
        }
        int request = a.requestCompletionFlags();
        if (request != DatCompletionFlags.DEFAULT && !(request == DatCompletionFlags.UNSIGNALLED
                && (supported & DatCompletionFlags.UNSIGNALLED) != 0)) {
            throw invalidParameter(arg, call + ": request_completion_flags 0x" + Integer.toHexString(request)
                    + " is not DEFAULT or a supported UNSIGNALLED (completion_flags_supported 0x"
                    + Integer.toHexString(supported) + ")");
        }
        if (!withSrq) {
            checkRange(call, "max_recv_dtos", a.maxRecvDtos(), 1, ia.maxDtoPerEp());
            checkRange(call, "max_recv_iov", a.maxRecvIov(), 1, ia.maxIovSegmentsPerDto());
        }
        checkRange(call, "max_request_dtos", a.maxRequestDtos(), 1, ia.maxDtoPerEp());
        checkRange(call, "max_request_iov", a.maxRequestIov(), 1, ia.maxIovSegmentsPerDto());
        checkRange(call, "max_rdma_read_in", a.maxRdmaReadIn(), 0, ia.maxRdmaReadIn());
        checkRange(call, "max_rdma_read_out", a.maxRdmaReadOut(), 0, ia.maxRdmaReadOut());
        checkRange(call, "max_rdma_read_iov", a.maxRdmaReadIov(), 1, ia.maxIovSegmentsPerRdmaRead());
        checkRange(call, "max_rdma_write_iov", a.maxRdmaWriteIov(), 1, ia.maxIovSegmentsPerRdmaWrite());
        if (a.srqSoftHw() != Dat.DAT_HW_DEFAULT
                && (provider.srqWatermarksSupported() & Dat.DAT_SRQ_WATERMARK_SOFT_HIGH) == 0) {
            throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": srq_soft_hw " + a.srqSoftHw()
                    + " needs EP watermarks, which srq_watermarks_supported denies");
        }
        if (!a.epTransportSpecific().isEmpty() || !a.epProviderSpecific().isEmpty()) {
            throw invalidParameter(arg, call + ": ep_transport_specific and ep_provider_specific must be empty;"
                    + " provider " + provider.providerName() + " defines no such attribute");
        }
    }

    /**
     * {@code dat_srq_resize} against the SRQ's state: never below its outstanding buffers (posted, being filled, or
     * completed but not reaped), so no buffer is lost, nor below its low watermark.
     *
     * @param srqMaxRecvDto the requested size
     * @param outstanding the SRQ's outstanding buffers
     * @param lowWatermark the SRQ's low watermark
     * @throws DatException {@code DAT_INVALID_STATE} naming which bound
     */
    public static void srqResizeState(int srqMaxRecvDto, int outstanding, int lowWatermark) {
        String call = "dat_srq_resize";
        if (srqMaxRecvDto < outstanding) {
            throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE,
                    call + ": srq_max_recv_dto " + srqMaxRecvDto + " is below the " + outstanding
                            + " outstanding buffers");
        }
        if (srqMaxRecvDto < lowWatermark) {
            throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE,
                    call + ": srq_max_recv_dto " + srqMaxRecvDto + " is below the low watermark " + lowWatermark);
        }
    }

    /**
     * {@code dat_srq_set_lw}: the low watermark within {@code 0..max_recv_dtos} (0 disarms it).
     *
     * @param lowWatermark the requested low watermark
     * @param maxRecvDtos the SRQ's current size
     */
    public static void srqLowWatermark(int lowWatermark, int maxRecvDtos) {
        if (lowWatermark < 0 || lowWatermark > maxRecvDtos) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG2, "dat_srq_set_lw: low_watermark " + lowWatermark
                    + " is outside 0..max_recv_dtos " + maxRecvDtos);
        }
    }

    /**
     * A timeout argument ({@code dat_ep_connect}, {@code dat_cno_wait}): within {@code 0..DAT_TIMEOUT_INFINITE}.
     *
     * @param call the DAT call
     * @param timeoutMicros the timeout
     * @param arg which argument it is
     */
    public static void timeout(String call, long timeoutMicros, DatReturnSubtype arg) {
        if (timeoutMicros < 0 || timeoutMicros > Dat.DAT_TIMEOUT_INFINITE) {
            throw invalidParameter(arg, call + ": timeout " + timeoutMicros + " is outside 0..DAT_TIMEOUT_INFINITE");
        }
    }

    /**
     * {@code dat_ep_connect} and {@code dat_ep_dup_connect} of a provider that offers best effort over one path
     * ({@code dat_qos_supported} BEST_EFFORT, {@code supports_multipath} false): a missing qos or unknown flag bits
     * are {@code DAT_INVALID_PARAMETER}, another qos or MULTIPATH {@code DAT_MODEL_NOT_SUPPORTED}.
     *
     * @param call the DAT call
     * @param qos the requested quality of service
     * @param connectFlags the connect flags
     */
    public static void connectQos(String call, DatQos qos, int connectFlags) {
        if (qos == null) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG7, call + ": qos is null");
        }
        if (qos != DatQos.BEST_EFFORT) {
            throw new DatException(DatReturn.MODEL_NOT_SUPPORTED,
                    call + ": qos " + qos + " is not supported (dat_qos_supported is BEST_EFFORT)");
        }
        if ((connectFlags & ~DatConnectFlags.MULTIPATH) != 0) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG8,
                    call + ": connect_flags 0x" + Integer.toHexString(connectFlags) + " has unknown bits");
        }
        if (connectFlags == DatConnectFlags.MULTIPATH) {
            throw new DatException(DatReturn.MODEL_NOT_SUPPORTED,
                    call + ": connect_flags MULTIPATH, but supports_multipath is false");
        }
    }

    /**
     * {@code dat_ep_recv_query}: {@code which} is a non-empty combination of NBUFS_ALLOCATED and BUFS_ALLOC_SPAN.
     *
     * @param which the counts asked for
     */
    public static void recvQueryWhich(int which) {
        int all = Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED | Dat.DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN;
        if (which == 0 || (which & ~all) != 0) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG2, "dat_ep_recv_query: which 0x"
                    + Integer.toHexString(which) + " must be a non-empty combination of NBUFS_ALLOCATED (0x01)"
                    + " and BUFS_ALLOC_SPAN (0x10)");
        }
    }

    /**
     * {@return the {@code DAT_INVALID_STATE} subtype naming {@code state}}
     *
     * @param state an EP state
     */
    public static DatReturnSubtype epStateSubtype(DatEpState state) {
        return switch (state) {
            case UNCONNECTED -> DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED;
            case RESERVED -> DatReturnSubtype.INVALID_STATE_EP_RESERVED;
            case PASSIVE_CONNECTION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_PASSCONNPENDING;
            case ACTIVE_CONNECTION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING;
            case TENTATIVE_CONNECTION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_TENTCONNPENDING;
            case CONNECTED -> DatReturnSubtype.INVALID_STATE_EP_CONNECTED;
            case DISCONNECT_PENDING -> DatReturnSubtype.INVALID_STATE_EP_DISCPENDING;
            case DISCONNECTED -> DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED;
            case COMPLETION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_COMPLPENDING;
            default -> DatReturnSubtype.INVALID_STATE_EP_NOTREADY;
        };
    }

    /**
     * {@return the {@code DAT_INVALID_STATE} exception of an EP in the wrong state, its subtype naming the state}
     *
     * @param call the DAT call
     * @param arg the EP argument, for the message ({@code ep_handle}, {@code dup_ep_handle})
     * @param state the EP's state
     * @param expected the state (or states) the call needs, for the message
     */
    public static DatException epState(String call, String arg, DatEpState state, String expected) {
        return new DatException(DatReturn.INVALID_STATE, epStateSubtype(state),
                call + ": " + arg + " is " + state + ", not " + expected);
    }

    private static void checkRange(String call, String field, long value, long min, long max) {
        if (value < min || value > max) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG6,
                    call + ": " + field + " " + value + " is outside " + min + ".." + max);
        }
    }
}
