// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.api.Dat;
import dat.api.DatCompletionFlags;
import dat.api.DatEpCreator;
import dat.api.DatIaAttr;
import dat.api.DatIovOwnership;
import dat.api.DatProviderAttr;
import dat.api.DatPzSupport;
import dat.api.DatQos;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * DAT provider and IA attributes of one device port, from {@code ibv_query_device} and {@code ibv_query_port}.
 *
 * <p>Where a DAT attribute has a verbs counterpart it is copied: {@code max_qp} to {@code max_eps},
 * {@code max_qp_wr} to {@code max_dto_per_ep}, {@code max_sge} to {@code max_iov_segments_per_dto},
 * {@code max_cq}/{@code max_cqe} to {@code max_evds}/{@code max_evd_qlen}, {@code max_mr}/{@code max_mr_size}
 * to {@code max_lmrs}/{@code max_lmr_block_size}, {@code max_pd} to {@code max_pzs}, {@code max_srq}/
 * {@code max_srq_wr} to {@code max_srqs}/{@code max_recv_per_srq}, {@code max_qp_rd_atom}/
 * {@code max_qp_init_rd_atom} to the per-EP RDMA read limits in and out, the port's {@code max_msg_sz} to
 * {@code max_message_size}/{@code max_rdma_size}, {@code max_mw} to {@code max_rmrs} where the device has type 1
 * memory windows and its driver the verbs for them (else 0). Completion flags SUPPRESS, BARRIER_FENCE,
 * EVD_THRESHOLD and (not on iWARP) SOLICITED_WAIT, the SRQ low watermark, and the SRQ's outstanding count are
 * supported; EP receive info (an SRQ EP's buffers cannot be counted), stream merging and EP watermarks are not;
 * the provider is thread safe. Unknown limits are
 * {@link Dat#DAT_VALUE_UNKNOWN}.
 */
final class VerbsAttributes {

    /**
     * Private data of an rdma_cm connect request in the TCP port space: the 92 bytes of an IB CM REQ minus the
     * 36 rdma_cm keeps for its own header (accept allows 196, reject 148, iWARP's MPA 512; the smallest
     * applies to a connect/accept pair): OFA uDAPL's {@code IB_MAX_REQ_PDATA_SIZE}, and what its rdma_cm
     * provider reports. Below DAT's 64-byte minimum, and reported as it is.
     */
    static final int MAX_PRIVATE_DATA_SIZE = 56;

    private VerbsAttributes() {
    }

    /**
     * {@return the provider attributes of {@code port}}
     *
     * @param port the port
     */
    static DatProviderAttr providerAttr(VerbsPort port) {
        DeviceLimits d = port.deviceLimits();
        boolean iwarp = port.transportType() == LibIbverbs.IBV_TRANSPORT_IWARP;
        Map<String, String> specific = new LinkedHashMap<>();
        specific.put("device", port.device());
        specific.put("port", Integer.toString(port.port()));
        specific.put("transport", transportName(port.transportType()));
        specific.put("link_layer", linkLayerName(port.portLimits().linkLayer()));
        return DatProviderAttr.builder()
                .providerName(VerbsConfig.PROVIDER_NAME)
                .providerVersionMajor(VerbsConfig.PROVIDER_VERSION_MAJOR)
                .providerVersionMinor(VerbsConfig.PROVIDER_VERSION_MINOR)
                .lmrMemTypesSupported(Dat.DAT_MEM_TYPE_VIRTUAL)
                // ibv_post_send/recv copy the work request and its SGEs into the queue before returning.
                .iovOwnershipOnReturn(DatIovOwnership.CONSUMER)
                .datQosSupported(DatQos.BEST_EFFORT.value())
                // IBV_SEND_SIGNALED (suppress clears it) and IBV_SEND_FENCE; solicited waits, unsignalled
                // completions and EVD thresholds have no verbs counterpart the provider maps.
                // SOLICITED_WAIT travels as immediate data, which iWARP does not carry.
                .completionFlagsSupported(DatCompletionFlags.SUPPRESS | DatCompletionFlags.BARRIER_FENCE
                        | DatCompletionFlags.EVD_THRESHOLD | (iwarp ? 0 : DatCompletionFlags.SOLICITED_WAIT))
                // Every object serialises itself: an EP's posts and state changes on its lock, an EVD's ring and CQ
                // on its lock, an SRQ on its lock, creates and frees on the IA's lifecycle lock; the data path's
                // lookups (lkey, QP number) read immutable tables published through a volatile field.
                .isThreadSafe(true)
                .maxPrivateDataSize(MAX_PRIVATE_DATA_SIZE)
                .supportsMultipath(false)
                .epCreator(DatEpCreator.NEVER)
                .pzSupport(DatPzSupport.UNIQUE)
                .optimalBufferAlignment(Dat.DAT_OPTIMAL_ALIGNMENT)
                .evdStreamMergingSupported(0)
                .srqSupported(d.maxSrq() > 0)
                .srqWatermarksSupported(d.maxSrq() > 0 ? Dat.DAT_SRQ_WATERMARK_LOW : 0)
                .srqEpPzDifferenceSupported(false)
                .srqInfoSupported(d.maxSrq() > 0 ? Dat.DAT_SRQ_INFO_OUTSTANDING_DTO_COUNT : 0)
                // None: an SRQ buffer a message is still arriving into is not visible to verbs, so dat_ep_recv_query
                // answers DAT_MODEL_NOT_SUPPORTED for every EP (VerbsEpControl.recvQuery says why).
                .epRecvInfoSupported(0)
                .lmrSyncReq(false)
                .dtoAsyncReturnGuaranteed(false)
                // iWARP (RFC 5040): the sink of an RDMA read is written by the remote peer.
                .rdmaWriteForRdmaReadReq(iwarp)
                .providerSpecificAttr(specific)
                .build();
    }

    /**
     * {@return the IA attributes of {@code port}}
     *
     * @param port the port
     */
    static DatIaAttr iaAttr(VerbsPort port) {
        DeviceLimits d = port.deviceLimits();
        PortLimits p = port.portLimits();
        int[] fw = firmwareVersion(d.fwVer());
        Map<String, String> transport = new LinkedHashMap<>();
        transport.put("transport", transportName(port.transportType()));
        transport.put("link_layer", linkLayerName(p.linkLayer()));
        transport.put("port", Integer.toString(port.port()));
        transport.put("active_mtu", Integer.toString(p.activeMtuBytes()));
        transport.put("gid", port.gid());
        Map<String, String> vendor = new LinkedHashMap<>();
        vendor.put("fw_ver", d.fwVer());
        vendor.put("vendor_id", "0x" + Integer.toHexString(d.vendorId()));
        vendor.put("vendor_part_id", Integer.toString(d.vendorPartId()));
        vendor.put("node_guid", HexFormat.of().toHexDigits(d.nodeGuid()));
        vendor.put("max_srq_sge", Integer.toString(d.maxSrqSge()));
        vendor.put("max_sge_rd", Integer.toString(d.maxSgeRd()));
        vendor.put("atomic_cap", Integer.toString(d.atomicCap()));
        long maxMessage = p.maxMsgSz() > 0 ? p.maxMsgSz() : Dat.DAT_VALUE_UNKNOWN;
        return DatIaAttr.builder()
                .adapterName(port.device())
                .vendorName("vendor 0x" + Integer.toHexString(d.vendorId()))
                .hardwareVersionMajor(d.hwVer())
                .hardwareVersionMinor(0)
                .firmwareVersionMajor(fw[0])
                .firmwareVersionMinor(fw[1])
                .iaAddressPtr(port.address())
                .maxEps(d.maxQp())
                .maxDtoPerEp(d.maxQpWr())
                .maxRdmaReadPerEpIn(d.maxQpRdAtom())
                .maxRdmaReadPerEpOut(d.maxQpInitRdAtom())
                .maxEvds(d.maxCq())
                .maxEvdQlen(d.maxCqe())
                .maxIovSegmentsPerDto(d.maxSge())
                .maxLmrs(d.maxMr())
                // max_mr_size is unsigned 64-bit; "no limit" devices report all ones.
                .maxLmrBlockSize(d.maxMrSize() < 0 ? Long.MAX_VALUE : d.maxMrSize())
                .maxLmrVirtualAddress(Dat.DAT_VALUE_UNKNOWN)
                .maxPzs(d.maxPd())
                .maxMessageSize(maxMessage)
                .maxRdmaSize(maxMessage)
                .maxRmrs(maxRmrs(port))
                .maxRmrTargetAddress(Dat.DAT_VALUE_UNKNOWN)
                .maxSrqs(d.maxSrq())
                .maxEpPerSrq(d.maxSrq() > 0 ? d.maxQp() : 0)
                .maxRecvPerSrq(d.maxSrqWr())
                .maxIovSegmentsPerRdmaRead(d.maxSgeRd() > 0 ? d.maxSgeRd() : d.maxSge())
                .maxIovSegmentsPerRdmaWrite(d.maxSge())
                .maxRdmaReadIn(d.maxResRdAtom() > 0 ? d.maxResRdAtom() : d.maxQpRdAtom())
                .maxRdmaReadOut(d.maxQpInitRdAtom())
                .maxRdmaReadPerEpInGuaranteed(false)
                .maxRdmaReadPerEpOutGuaranteed(false)
                .transportAttr(transport)
                .vendorAttr(vendor)
                .build();
    }

    /**
     * {@return {@code max_mw} where the device reports type 1 windows ({@code IBV_DEVICE_MEM_WINDOW}) and its driver
     * implements the window verbs; 0 otherwise, so {@code dat_rmr_create} is refused}
     *
     * @param port the port
     */
    static int maxRmrs(VerbsPort port) {
        DeviceLimits d = port.deviceLimits();
        return port.windowVerbs() && (d.deviceCapFlags() & LibIbverbs.IBV_DEVICE_MEM_WINDOW) != 0
                ? Math.max(0, d.maxMw()) : 0;
    }

    /** {@return {major, minor} from a firmware string such as {@code 16.35.2000}; zeros when it has no digits} */
    static int[] firmwareVersion(String fwVer) {
        int[] out = new int[2];
        String[] parts = fwVer.strip().split("[^0-9]+", -1);
        int n = 0;
        for (String part : parts) {
            if (!part.isEmpty() && n < 2) {
                try {
                    out[n++] = Integer.parseInt(part);
                } catch (NumberFormatException e) {
                    out[n++] = Integer.MAX_VALUE;
                }
            }
        }
        return out;
    }

    static String transportName(int transportType) {
        return switch (transportType) {
            case LibIbverbs.IBV_TRANSPORT_IB -> "InfiniBand";
            case LibIbverbs.IBV_TRANSPORT_IWARP -> "iWARP";
            default -> "transport " + transportType;
        };
    }

    static String linkLayerName(int linkLayer) {
        return switch (linkLayer) {
            case LibIbverbs.IBV_LINK_LAYER_INFINIBAND -> "InfiniBand";
            case LibIbverbs.IBV_LINK_LAYER_ETHERNET -> "Ethernet";
            default -> "unspecified";
        };
    }
}
