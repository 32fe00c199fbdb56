// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.Dat;
import dat.api.DatCompletionFlags;
import dat.api.DatEpCreator;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatIovOwnership;
import dat.api.DatProviderAttr;
import dat.api.DatPzSupport;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.spi.DatIaInfo;
import dat.spi.DatProvider;
import dat.spi.DatProviderInfo;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The loopback provider: in-process IAs whose EPs connect to EPs of any loopback IA of the same JVM.
 *
 * <p>A cheap factory: the constructor does nothing, {@link #info()} only builds records; {@link #open} creates
 * the IA. Any IA name can be opened or described (a {@code dat.conf} entry may name one); {@link #info()}
 * lists the names of {@value LoopbackConfig#IAS_PROPERTY}.
 */
public final class LoopbackProvider implements DatProvider {

    /** Creates the provider; does no work. */
    public LoopbackProvider() {
    }

    @Override
    public String name() {
        return LoopbackConfig.PROVIDER_NAME;
    }

    @Override
    public DatProviderInfo info() {
        List<DatIaInfo> ias = new ArrayList<>();
        for (String name : LoopbackConfig.iaNames()) {
            if (isValidName(name)) {
                ias.add(describeIa(name, ""));
            }
        }
        return DatProviderInfo.available(name(), LoopbackConfig.PROVIDER_VERSION, ias, LoopbackConfig.settings());
    }

    /**
     * Describes any IA name: a loopback IA needs no device, so every {@code dat.conf} entry naming this
     * provider is valid. {@code iaParams} has no meaning here and is reported back unchanged.
     */
    @Override
    public DatIaInfo describe(String iaName, String iaParams) {
        requireValidName(iaName, "describe");
        return describeIa(iaName, iaParams == null ? "" : iaParams);
    }

    @Override
    public DatIa open(String iaName, String iaParams, int asyncEvdMinQlen) {
        requireValidName(iaName, "dat_ia_open");
        if (asyncEvdMinQlen < 1 || asyncEvdMinQlen > LoopbackConfig.MAX_EVD_QLEN) {
            throw new DatException(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                    "dat_ia_open: async_evd_min_qlen " + asyncEvdMinQlen + " is outside 1.."
                            + LoopbackConfig.MAX_EVD_QLEN);
        }
        InetAddress address = LoopbackFabric.INSTANCE.acquire(iaName);
        try {
            return new LoopbackIa(iaName, address, providerAttr(), iaAttr(iaName, address), asyncEvdMinQlen);
        } catch (RuntimeException | Error e) {
            LoopbackFabric.INSTANCE.release(iaName);
            throw e;
        }
    }

    private static DatIaInfo describeIa(String iaName, String iaParams) {
        return new DatIaInfo(iaName, iaParams, providerAttr(),
                iaAttr(iaName, LoopbackFabric.INSTANCE.peek(iaName)));
    }

    private static boolean isValidName(String name) {
        if (name == null || name.isEmpty() || name.length() > Dat.DAT_NAME_MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if (Character.isWhitespace(name.charAt(i)) || name.charAt(i) == ',') {
                return false;
            }
        }
        return true;
    }

    private void requireValidName(String iaName, String call) {
        if (!isValidName(iaName)) {
            throw new DatException(DatReturn.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                    call + ": provider " + name() + " offers no IA named '" + iaName
                            + "' (a name is 1.." + Dat.DAT_NAME_MAX_LENGTH + " characters without blanks or commas)");
        }
    }

    /** {@return the provider attributes; every claim here is backed by code and a test} */
    static DatProviderAttr providerAttr() {
        return DatProviderAttr.builder()
                .providerName(LoopbackConfig.PROVIDER_NAME)
                .providerVersionMajor(LoopbackConfig.PROVIDER_VERSION_MAJOR)
                .providerVersionMinor(LoopbackConfig.PROVIDER_VERSION_MINOR)
                .lmrMemTypesSupported(Dat.DAT_MEM_TYPE_VIRTUAL)
                // Triplets are copied into per-queue descriptors at post time.
                .iovOwnershipOnReturn(DatIovOwnership.CONSUMER)
                .datQosSupported(DatQos.BEST_EFFORT.value())
                .completionFlagsSupported(DatCompletionFlags.ALL)
                .isThreadSafe(true)
                .maxPrivateDataSize(LoopbackConfig.MAX_PRIVATE_DATA_SIZE)
                .supportsMultipath(false)
                .epCreator(DatEpCreator.NEVER)
                .pzSupport(DatPzSupport.UNIQUE)
                .optimalBufferAlignment(LoopbackConfig.OPTIMAL_BUFFER_ALIGNMENT)
                // Any EVD takes any mix of the event kinds its flags allow: all 6 x 6 stream pairs merge.
                .evdStreamMergingSupported((1L << 36) - 1)
                .srqSupported(true)
                // Only the SRQ low watermark: messages arrive whole, so an EP never holds SRQ buffers between
                // calls and a per-EP high watermark could never trigger (setWatermark says so).
                .srqWatermarksSupported(Dat.DAT_SRQ_WATERMARK_LOW)
                .srqEpPzDifferenceSupported(true)
                .srqInfoSupported(Dat.DAT_SRQ_INFO_AVAILABLE_DTO_COUNT | Dat.DAT_SRQ_INFO_OUTSTANDING_DTO_COUNT)
                .epRecvInfoSupported(Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED | Dat.DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN)
                .lmrSyncReq(false)
                .dtoAsyncReturnGuaranteed(false)
                .rdmaWriteForRdmaReadReq(false)
                .providerSpecificAttr(Map.of("delivery", "on the posting thread"))
                .build();
    }

    /**
     * {@return the IA attributes; {@link LoopbackIa} enforces every limit}
     *
     * @param iaName the IA name
     * @param address its loopback address
     */
    static DatIaAttr iaAttr(String iaName, InetAddress address) {
        return DatIaAttr.builder()
                .adapterName(iaName)
                .vendorName("jDAT loopback")
                .hardwareVersionMajor(0)
                .firmwareVersionMajor(0)
                .iaAddressPtr(address)
                .maxEps(LoopbackConfig.MAX_EPS)
                .maxDtoPerEp(LoopbackConfig.MAX_DTO_PER_EP)
                .maxRdmaReadPerEpIn(LoopbackConfig.MAX_RDMA_READ_PER_EP)
                .maxRdmaReadPerEpOut(LoopbackConfig.MAX_RDMA_READ_PER_EP)
                .maxEvds(LoopbackConfig.MAX_EVDS)
                .maxEvdQlen(LoopbackConfig.MAX_EVD_QLEN)
                .maxIovSegmentsPerDto(LoopbackConfig.MAX_IOV_SEGMENTS)
                .maxLmrs(LoopbackConfig.MAX_LMRS)
                .maxLmrBlockSize(LoopbackConfig.MAX_LMR_BLOCK_SIZE)
                .maxLmrVirtualAddress(Long.MAX_VALUE)
                .maxPzs(LoopbackConfig.MAX_PZS)
                .maxMessageSize(LoopbackConfig.MAX_MESSAGE_SIZE)
                .maxRdmaSize(LoopbackConfig.MAX_RDMA_SIZE)
                .maxRmrs(LoopbackConfig.MAX_RMRS)
                .maxRmrTargetAddress(Long.MAX_VALUE)
                .maxSrqs(LoopbackConfig.MAX_SRQS)
                .maxEpPerSrq(LoopbackConfig.MAX_EP_PER_SRQ)
                .maxRecvPerSrq(LoopbackConfig.MAX_RECV_PER_SRQ)
                .maxIovSegmentsPerRdmaRead(LoopbackConfig.MAX_IOV_SEGMENTS)
                .maxIovSegmentsPerRdmaWrite(LoopbackConfig.MAX_IOV_SEGMENTS)
                .maxRdmaReadIn(LoopbackConfig.MAX_RDMA_READ_PER_EP)
                .maxRdmaReadOut(LoopbackConfig.MAX_RDMA_READ_PER_EP)
                // RDMA reads complete on the posting thread: the limits always hold.
                .maxRdmaReadPerEpInGuaranteed(true)
                .maxRdmaReadPerEpOutGuaranteed(true)
                .transportAttr(Map.of("transport", "in-process"))
                .build();
    }
}
