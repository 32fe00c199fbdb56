// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.api.Dat;
import dat.api.DatCompletionFlags;
import dat.api.DatEpCreator;
import dat.api.DatIaAttr;
import dat.api.DatIovOwnership;
import dat.api.DatProviderAttr;
import dat.api.DatPzSupport;
import dat.api.DatQos;
import dat.provider.ofi.internal.ffm.LibFabric;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * DAT provider and IA attributes of one {@code fi_info} entry.
 *
 * <p>Copied where libfabric has the number: {@code ep_cnt} to {@code max_eps}, the smaller of {@code tx_attr->size}
 * and {@code rx_attr->size} to {@code max_dto_per_ep} (and the RDMA reads per EP, which share the transmit queue),
 * {@code cq_cnt} to {@code max_evds}, the smaller iov limit to {@code max_iov_segments_per_dto} and the RDMA iov
 * limits, {@code max_msg_size} to {@code max_message_size} and {@code max_rdma_size} (libfabric bounds an RMA by
 * it), {@code mr_cnt} to {@code max_lmrs} ({@link #MAX_LMRS} when the domain reports 0, no limit), the
 * passive endpoint's {@code FI_OPT_CM_DATA_SIZE} to {@code max_private_data_size} less the one byte a reject spends
 * (see {@link OfiCr}). A protection zone is the provider's own (libfabric's domain is the protection domain), so
 * {@code max_pzs} is the provider's bound, {@link #MAX_PZS}. SRQs where the provider keeps receiver credits
 * ({@link #srq}): {@code max_srqs} and {@code max_ep_per_srq} from {@code ep_cnt}, {@code max_recv_per_srq} the
 * receive queue size {@code rx_attr->size}, the low watermark (the provider's: libfabric has none) and the
 * outstanding count. Receive counts
 * ({@code dat_ep_recv_query}): both, for an EP with its own queue; an SRQ EP answers DAT_VALUE_UNKNOWN
 * ({@link OfiEpControl#recvQuery}). No memory windows (RMRs) yet: denied, so the kit skips them. Completion flags:
 * SUPPRESS (the provider drops a successful suppressed completion) and the default. {@code inject_size},
 * {@code mr_mode} and the libfabric names appear in the provider-specific attributes ({@code dat info -v}).
 */
final class OfiAttributes {

    /** {@code max_pzs}: a zone is the provider's own object (libfabric's domain is the protection domain). */
    static final int MAX_PZS = 1 << 16;
    /** {@code max_lmrs} where the domain states no limit ({@code mr_cnt} 0): the provider's own bound. */
    static final int MAX_LMRS = 1 << 20;

    /** The largest EVD the provider builds: its queue is a Java ring. */
    static final int MAX_EVD_QLEN = 1 << 16;

    private OfiAttributes() {
    }

    /**
     * {@return whether DAT SRQs run on the entry}: wherever the provider keeps receiver credits (OfiCredit: every
     * {@code FI_EP_MSG} entry but libfabric's verbs, and the RDM associations), whose pool lends its buffers to the
     * connections whose peers hold messages for them ({@link OfiSrq}). No fabric's shared receive context is used.
     * On verbs the queue pair's RNR would take a message with no buffer; an SRQ there would be the fabric's, and is
     * not built yet.
     */
    static boolean srq(OfiEntry e) {
        return OfiCredit.framed(e) || e.limits().epType() == LibFabric.FI_EP_RDM;
    }

    static int clamp(long v) {
        return v > Integer.MAX_VALUE || v < 0 ? Integer.MAX_VALUE : (int) v;
    }

    /**
     * {@return {@code max_private_data_size}: the connection data, less the byte a reject spends on its mark and the
     * credit header}
     */
    static int maxPrivateData(OfiEntry e) {
        if (e.limits().epType() == LibFabric.FI_EP_RDM) {
            // The protocol's reject is a message type of its own: no byte is spent (docs/ofi-rdm-protocol.md).
            return clamp(e.limits().cmDataSize());
        }
        // Less the credit header of a fabric without hardware RNR (OfiCredit).
        return clamp(Math.max(0, e.limits().cmDataSize() - 1 - (OfiCredit.framed(e) ? OfiCredit.CM_BYTES : 0)));
    }

    static DatProviderAttr providerAttr(OfiEntry e) {
        OfiEntry.Limits l = e.limits();
        Map<String, String> specific = new LinkedHashMap<>();
        specific.put("fi_provider", e.provider());
        specific.put("fi_fabric", e.fabric());
        specific.put("fi_domain", e.domain());
        specific.put("fi_ep_type", epTypeName(l.epType()));
        specific.put("fi_mr_mode", mrModeNames(l.mrMode()));
        specific.put("fi_inject_size", Long.toString(l.injectSize()));
        specific.put("fi_cm_data_size", Long.toString(l.cmDataSize()));
        specific.put("fi_max_ep_srx_ctx", Long.toString(l.maxEpSrxCtx()));
        if (e.unusable() != null) {
            specific.put("unavailable", e.unusable());
        }
        return DatProviderAttr.builder()
                .providerName(OfiConfig.PROVIDER_NAME)
                .providerVersionMajor(OfiConfig.PROVIDER_VERSION_MAJOR)
                .providerVersionMinor(OfiConfig.PROVIDER_VERSION_MINOR)
                .lmrMemTypesSupported(Dat.DAT_MEM_TYPE_VIRTUAL)
                // fi_sendmsg and friends copy the iov and descriptors before returning.
                .iovOwnershipOnReturn(DatIovOwnership.CONSUMER)
                .datQosSupported(DatQos.BEST_EFFORT.value())
                .completionFlagsSupported(DatCompletionFlags.SUPPRESS)
                // Every call of an IA's objects runs under the IA's lock.
                .isThreadSafe(true)
                .maxPrivateDataSize(maxPrivateData(e))
                .supportsMultipath(false)
                .epCreator(DatEpCreator.NEVER)
                .pzSupport(DatPzSupport.UNIQUE)
                .optimalBufferAlignment(Dat.DAT_OPTIMAL_ALIGNMENT)
                .evdStreamMergingSupported(0)
                .srqSupported(srq(e))
                .srqWatermarksSupported(srq(e) ? Dat.DAT_SRQ_WATERMARK_LOW : 0)
                // An SRQ is a context of its PZ's domain, and an endpoint binds only contexts of its own domain.
                .srqEpPzDifferenceSupported(false)
                .srqInfoSupported(srq(e) ? Dat.DAT_SRQ_INFO_OUTSTANDING_DTO_COUNT : 0)
                .epRecvInfoSupported(Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED | Dat.DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN)
                .lmrSyncReq(false)
                .dtoAsyncReturnGuaranteed(false)
                .rdmaWriteForRdmaReadReq(false)
                .providerSpecificAttr(specific)
                .build();
    }

    static DatIaAttr iaAttr(OfiEntry e) {
        OfiEntry.Limits l = e.limits();
        int dto = clamp(Math.min(l.txSize(), l.rxSize()));
        int iov = clamp(Math.min(l.txIovLimit(), l.rxIovLimit()));
        Map<String, String> transport = new LinkedHashMap<>();
        transport.put("fi_provider", e.provider());
        transport.put("fi_fabric", e.fabric());
        transport.put("fi_domain", e.domain());
        Map<String, String> vendor = new LinkedHashMap<>();
        vendor.put("fi_tx_size", Long.toString(l.txSize()));
        vendor.put("fi_rx_size", Long.toString(l.rxSize()));
        vendor.put("fi_rma_iov_limit", Long.toString(l.rmaIovLimit()));
        vendor.put("fi_threading", Integer.toString(l.threading()));
        vendor.put("fi_data_progress", Integer.toString(l.dataProgress()));
        return DatIaAttr.builder()
                .adapterName(e.iaName())
                .vendorName("libfabric " + e.provider())
                .iaAddressPtr(e.address())
                .maxEps(clamp(l.epCnt()))
                .maxDtoPerEp(dto)
                .maxRdmaReadPerEpIn(clamp(l.txSize()))
                .maxRdmaReadPerEpOut(clamp(l.txSize()))
                .maxEvds(clamp(l.cqCnt()))
                .maxEvdQlen(MAX_EVD_QLEN)
                .maxIovSegmentsPerDto(iov)
                .maxLmrs(l.mrCnt() == 0 ? MAX_LMRS : clamp(l.mrCnt()))
                .maxLmrBlockSize(l.maxMsgSize())
                .maxLmrVirtualAddress(Dat.DAT_VALUE_UNKNOWN)
                .maxPzs(MAX_PZS)
                .maxMessageSize(l.maxMsgSize())
                .maxRdmaSize(l.maxMsgSize())
                .maxRmrs(0)
                .maxRmrTargetAddress(0)
                .maxSrqs(srq(e) ? clamp(l.epCnt()) : 0)
                .maxEpPerSrq(srq(e) ? clamp(l.epCnt()) : 0)
                .maxRecvPerSrq(srq(e) ? clamp(l.rxSize()) : 0)
                .maxIovSegmentsPerRdmaRead(clamp(l.txIovLimit()))
                .maxIovSegmentsPerRdmaWrite(clamp(l.txIovLimit()))
                .maxRdmaReadIn(clamp(l.txSize()))
                .maxRdmaReadOut(clamp(l.txSize()))
                .maxRdmaReadPerEpInGuaranteed(false)
                .maxRdmaReadPerEpOutGuaranteed(false)
                .transportAttr(transport)
                .vendorAttr(vendor)
                .build();
    }

    static String epTypeName(int t) {
        return switch (t) {
            case LibFabric.FI_EP_MSG -> "FI_EP_MSG";
            case LibFabric.FI_EP_RDM -> "FI_EP_RDM";
            case LibFabric.FI_EP_DGRAM -> "FI_EP_DGRAM";
            default -> "type " + t;
        };
    }

    static String mrModeNames(int mode) {
        StringBuilder sb = new StringBuilder();
        String[] names = {"FI_MR_LOCAL", "FI_MR_RAW", "FI_MR_VIRT_ADDR", "FI_MR_ALLOCATED", "FI_MR_PROV_KEY",
            "FI_MR_MMU_NOTIFY", "FI_MR_RMA_EVENT", "FI_MR_ENDPOINT", "FI_MR_HMEM"};
        for (int bit = 2; bit <= 10; bit++) {
            if ((mode & (1 << bit)) != 0) {
                sb.append(sb.isEmpty() ? "" : "|").append(names[bit - 2]);
            }
        }
        return sb.isEmpty() ? "0" : sb.toString();
    }
}
