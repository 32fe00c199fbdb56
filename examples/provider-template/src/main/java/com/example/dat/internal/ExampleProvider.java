// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

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
import java.util.List;
import java.util.Map;

/**
 * The example provider: a cheap factory, as {@link DatProvider} asks. {@link #info()} builds records and touches
 * nothing; {@link #open} creates the IA. A hardware provider would check here that its library and device exist
 * and report itself unavailable with the fix when they do not ({@link DatProviderInfo#unavailable}).
 *
 * <p>The attributes deny what this provider does not do, and the code refuses it as DAT says: no SRQ
 * ({@code srq_supported} false: {@code DAT_MODEL_NOT_SUPPORTED}), no memory windows ({@code max_rmrs} 0), no
 * completion flag but the default (a post flag: {@code DAT_MODEL_NOT_SUPPORTED}, UNSIGNALLED:
 * {@code DAT_INVALID_PARAMETER}), no receive counts ({@code ep_recv_info_supported} 0), no EP watermarks. The kit
 * skips the rules of denied features, with the reason.
 */
public final class ExampleProvider implements DatProvider {

    /** The provider name, {@code dat tck --provider example}. */
    static final String NAME = "example";
    /** The IA {@link #info()} lists; any other valid name opens too. */
    static final String IA_NAME = "example0";
    static final String VERSION = "1.0";

    static final int MAX_PRIVATE_DATA_SIZE = Dat.DAT_MIN_PRIVATE_DATA_SIZE;
    static final int MAX_EPS = 256;
    static final int MAX_DTO_PER_EP = 1024;
    static final int MAX_EVDS = 256;
    static final int MAX_EVD_QLEN = 1 << 16;
    static final int MAX_IOV_SEGMENTS = 8;
    static final int MAX_LMRS = 1024;
    static final int MAX_PZS = 16;
    static final long MAX_LMR_BLOCK_SIZE = 1L << 30;
    static final long MAX_MESSAGE_SIZE = 1L << 20;
    static final long MAX_RDMA_SIZE = 1L << 20;
    static final int MAX_RDMA_READ = 4;

    /** Creates the provider; does no work. */
    public ExampleProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public DatProviderInfo info() {
        return DatProviderInfo.available(NAME, VERSION, List.of(describe(IA_NAME, "")), List.of());
    }

    @Override
    public DatIaInfo describe(String iaName, String iaParams) {
        requireValidName(iaName, "describe");
        return new DatIaInfo(iaName, iaParams == null ? "" : iaParams, providerAttr(), iaAttr(iaName));
    }

    @Override
    public DatIa open(String iaName, String iaParams, int asyncEvdMinQlen) {
        requireValidName(iaName, "dat_ia_open");
        if (asyncEvdMinQlen < 1 || asyncEvdMinQlen > MAX_EVD_QLEN) {
            throw new DatException(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                    "dat_ia_open: async_evd_min_qlen " + asyncEvdMinQlen + " is outside 1.." + MAX_EVD_QLEN);
        }
        return new ExampleIa(iaName, providerAttr(), iaAttr(iaName), asyncEvdMinQlen);
    }

    private static void requireValidName(String iaName, String call) {
        if (iaName == null || iaName.isEmpty() || iaName.length() > Dat.DAT_NAME_MAX_LENGTH
                || iaName.chars().anyMatch(c -> Character.isWhitespace(c) || c == ',')) {
            throw new DatException(DatReturn.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                    call + ": provider " + NAME + " offers no IA named '" + iaName + "'");
        }
    }

    /** {@return what the provider does; every claim is backed by code and checked by the kit} */
    static DatProviderAttr providerAttr() {
        return DatProviderAttr.builder()
                .providerName(NAME)
                .providerVersionMajor(1)
                .providerVersionMinor(0)
                .lmrMemTypesSupported(Dat.DAT_MEM_TYPE_VIRTUAL)
                // Each post copies its triplets into the EP's queue: the consumer's Iov is free again on return.
                .iovOwnershipOnReturn(DatIovOwnership.CONSUMER)
                .datQosSupported(DatQos.BEST_EFFORT.value())
                .completionFlagsSupported(DatCompletionFlags.DEFAULT)
                // One lock for every object of the provider: simple, and safe for any number of threads.
                .isThreadSafe(true)
                .maxPrivateDataSize(MAX_PRIVATE_DATA_SIZE)
                .supportsMultipath(false)
                .epCreator(DatEpCreator.NEVER)
                .pzSupport(DatPzSupport.UNIQUE)
                .optimalBufferAlignment(64)
                .srqSupported(false)
                .srqWatermarksSupported(0)
                .srqEpPzDifferenceSupported(false)
                .srqInfoSupported(0)
                .epRecvInfoSupported(0)
                .lmrSyncReq(false)
                .dtoAsyncReturnGuaranteed(false)
                .rdmaWriteForRdmaReadReq(false)
                .providerSpecificAttr(Map.of("transport", "in-process example"))
                .build();
    }

    /** {@return the limits {@link ExampleIa} and its objects enforce} */
    static DatIaAttr iaAttr(String iaName) {
        return DatIaAttr.builder()
                .adapterName(iaName)
                .vendorName("Example, Inc.")
                .iaAddressPtr(Fabric.ADDRESS)
                .maxEps(MAX_EPS)
                .maxDtoPerEp(MAX_DTO_PER_EP)
                .maxRdmaReadPerEpIn(MAX_RDMA_READ)
                .maxRdmaReadPerEpOut(MAX_RDMA_READ)
                .maxEvds(MAX_EVDS)
                .maxEvdQlen(MAX_EVD_QLEN)
                .maxIovSegmentsPerDto(MAX_IOV_SEGMENTS)
                .maxLmrs(MAX_LMRS)
                .maxLmrBlockSize(MAX_LMR_BLOCK_SIZE)
                .maxLmrVirtualAddress(Long.MAX_VALUE)
                .maxPzs(MAX_PZS)
                .maxMessageSize(MAX_MESSAGE_SIZE)
                .maxRdmaSize(MAX_RDMA_SIZE)
                .maxRmrs(0)
                .maxRmrTargetAddress(0)
                .maxSrqs(0)
                .maxEpPerSrq(0)
                .maxRecvPerSrq(0)
                .maxIovSegmentsPerRdmaRead(MAX_IOV_SEGMENTS)
                .maxIovSegmentsPerRdmaWrite(MAX_IOV_SEGMENTS)
                .maxRdmaReadIn(MAX_RDMA_READ)
                .maxRdmaReadOut(MAX_RDMA_READ)
                .maxRdmaReadPerEpInGuaranteed(true)
                .maxRdmaReadPerEpOutGuaranteed(true)
                .build();
    }
}
