// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static dat.provider.udapl.internal.ffm.CStruct.offset;
import static dat.provider.udapl.internal.ffm.DatStructs.DAT_IA_ATTR;
import static dat.provider.udapl.internal.ffm.DatStructs.DAT_NAMED_ATTR;
import static dat.provider.udapl.internal.ffm.DatStructs.DAT_NAME_MAX_LENGTH;
import static dat.provider.udapl.internal.ffm.DatStructs.DAT_PROVIDER_ATTR;

import dat.api.DatEpCreator;
import dat.api.DatIaAttr;
import dat.api.DatIovOwnership;
import dat.api.DatProviderAttr;
import dat.api.DatPzSupport;
import dat.provider.udapl.internal.ffm.CStruct;
import dat.provider.udapl.internal.ffm.DatStatus;
import dat.provider.udapl.internal.ffm.LibDat2;
import dat.spi.DatIaInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The C provider's {@code DAT_IA_ATTR} and {@code DAT_PROVIDER_ATTR} (DAT 2.0) as jDAT's DAT 1.2 records, value
 * for value: nothing is raised, lowered or invented. Where the two versions differ the mapping is exact:
 * {@code DAT_SEG_LENGTH} sizes are unsigned 32-bit, DAT 2.0's {@code DAT_PZ_SHAREABLE} (1) is 1.2's
 * {@code DAT_PZ_SHAREABLE} (2), and the members 1.2 lacks ({@code zb_supported}, {@code rmr_scope_supported},
 * {@code is_signal_safe}, {@code ha_*} ...) are kept, with their C names, in the vendor or provider-specific
 * attributes beside the C provider's own, so nothing the C side says is lost.
 */
final class UdaplAttributes {

    /** At most this many named attributes are read from one C list, whatever its count says. */
    static final int MAX_NAMED_ATTRS = 256;
    /** {@code AF_INET} on Linux. */
    static final int AF_INET = 2;
    /** {@code AF_INET6} on Linux. */
    static final int AF_INET6 = 10;

    private UdaplAttributes() {
    }

    private static int i(MemorySegment s, StructLayout l, String name) {
        return s.get(ValueLayout.JAVA_INT, offset(l, name));
    }

    private static long u32(MemorySegment s, StructLayout l, String name) {
        return Integer.toUnsignedLong(i(s, l, name));
    }

    private static long j(MemorySegment s, StructLayout l, String name) {
        return s.get(ValueLayout.JAVA_LONG, offset(l, name));
    }

    private static boolean b(MemorySegment s, StructLayout l, String name) {
        return i(s, l, name) != 0;
    }

    /**
     * {@return the jDAT IA attributes of a filled {@code DAT_IA_ATTR}}
     *
     * @param s the struct, {@code DAT_IA_ATTR.byteSize()} bytes
     * @param fallbackAddress the address to report when the C provider gives none or one jDAT cannot represent
     */
    static DatIaAttr iaAttr(MemorySegment s, InetAddress fallbackAddress) {
        StructLayout l = DAT_IA_ATTR;
        Map<String, String> vendor = named(s.get(ValueLayout.ADDRESS, offset(l, "vendor_attr")),
                i(s, l, "num_vendor_attr"));
        // DAT 2.0 members DAT 1.2 has no field for, by their C names.
        vendor.putIfAbsent("zb_supported", Boolean.toString(b(s, l, "zb_supported")));
        vendor.putIfAbsent("extension_supported", Integer.toString(i(s, l, "extension_supported")));
        vendor.putIfAbsent("extension_version", Integer.toString(i(s, l, "extension_version")));
        InetAddress address = sockaddr(s.get(ValueLayout.ADDRESS, offset(l, "ia_address_ptr")));
        return DatIaAttr.builder()
                .adapterName(CStruct.string(s, offset(l, "adapter_name"), DAT_NAME_MAX_LENGTH))
                .vendorName(CStruct.string(s, offset(l, "vendor_name"), DAT_NAME_MAX_LENGTH))
                .hardwareVersionMajor(i(s, l, "hardware_version_major"))
                .hardwareVersionMinor(i(s, l, "hardware_version_minor"))
                .firmwareVersionMajor(i(s, l, "firmware_version_major"))
                .firmwareVersionMinor(i(s, l, "firmware_version_minor"))
                .iaAddressPtr(address != null ? address : fallbackAddress)
                .maxEps(i(s, l, "max_eps"))
                .maxDtoPerEp(i(s, l, "max_dto_per_ep"))
                .maxRdmaReadPerEpIn(i(s, l, "max_rdma_read_per_ep_in"))
                .maxRdmaReadPerEpOut(i(s, l, "max_rdma_read_per_ep_out"))
                .maxEvds(i(s, l, "max_evds"))
                .maxEvdQlen(i(s, l, "max_evd_qlen"))
                .maxIovSegmentsPerDto(i(s, l, "max_iov_segments_per_dto"))
                .maxLmrs(i(s, l, "max_lmrs"))
                .maxLmrBlockSize(u32(s, l, "max_lmr_block_size"))
                .maxLmrVirtualAddress(j(s, l, "max_lmr_virtual_address"))
                .maxPzs(i(s, l, "max_pzs"))
                .maxMessageSize(u32(s, l, "max_message_size"))
                .maxRdmaSize(u32(s, l, "max_rdma_size"))
                .maxRmrs(i(s, l, "max_rmrs"))
                .maxRmrTargetAddress(j(s, l, "max_rmr_target_address"))
                .maxSrqs(i(s, l, "max_srqs"))
                .maxEpPerSrq(i(s, l, "max_ep_per_srq"))
                .maxRecvPerSrq(i(s, l, "max_recv_per_srq"))
                .maxIovSegmentsPerRdmaRead(i(s, l, "max_iov_segments_per_rdma_read"))
                .maxIovSegmentsPerRdmaWrite(i(s, l, "max_iov_segments_per_rdma_write"))
                .maxRdmaReadIn(i(s, l, "max_rdma_read_in"))
                .maxRdmaReadOut(i(s, l, "max_rdma_read_out"))
                .maxRdmaReadPerEpInGuaranteed(b(s, l, "max_rdma_read_per_ep_in_guaranteed"))
                .maxRdmaReadPerEpOutGuaranteed(b(s, l, "max_rdma_read_per_ep_out_guaranteed"))
                .transportAttr(named(s.get(ValueLayout.ADDRESS, offset(l, "transport_attr")),
                        i(s, l, "num_transport_attr")))
                .vendorAttr(vendor)
                .build();
    }

    /**
     * {@return the jDAT provider attributes of a filled {@code DAT_PROVIDER_ATTR}}
     *
     * @param s the struct
     * @param providerName jDAT's name of the provider ({@code udapl}), which selection matches; the C provider's
     *     own {@code provider_name} goes to the provider-specific attributes as {@code provider_name}
     */
    static DatProviderAttr providerAttr(MemorySegment s, String providerName) {
        StructLayout l = DAT_PROVIDER_ATTR;
        Map<String, String> specific = named(s.get(ValueLayout.ADDRESS, offset(l, "provider_specific_attr")),
                i(s, l, "num_provider_specific_attr"));
        specific.putIfAbsent("provider_name", CStruct.string(s, offset(l, "provider_name"), DAT_NAME_MAX_LENGTH));
        for (String m : new String[] {"rdma_read_lmr_rmr_context_exposure", "is_signal_safe", "ha_supported"}) {
            specific.putIfAbsent(m, Boolean.toString(b(s, l, m)));
        }
        specific.putIfAbsent("rmr_scope_supported", Integer.toString(i(s, l, "rmr_scope_supported")));
        specific.putIfAbsent("ha_loadbalancing", Integer.toString(i(s, l, "ha_loadbalancing")));
        // dapl_version is the DAT API the consumer programs against: through jDAT that is DAT 1.2, whatever the C
        // provider implements underneath (DAT 2.0 for OFA), which stays visible under its C name.
        specific.putIfAbsent("dapl_version", i(s, l, "dapl_version_major") + "." + i(s, l, "dapl_version_minor"));
        return DatProviderAttr.builder()
                .providerName(providerName)
                .providerVersionMajor(i(s, l, "provider_version_major"))
                .providerVersionMinor(i(s, l, "provider_version_minor"))
                .daplVersionMajor(1)
                .daplVersionMinor(2)
                .lmrMemTypesSupported(i(s, l, "lmr_mem_types_supported"))
                .iovOwnershipOnReturn(iovOwnership(i(s, l, "iov_ownership_on_return")))
                .datQosSupported(i(s, l, "dat_qos_supported"))
                .completionFlagsSupported(i(s, l, "completion_flags_supported"))
                .isThreadSafe(b(s, l, "is_thread_safe"))
                .maxPrivateDataSize(i(s, l, "max_private_data_size"))
                .supportsMultipath(b(s, l, "supports_multipath"))
                .epCreator(epCreator(i(s, l, "ep_creator")))
                .pzSupport(pzSupport(i(s, l, "pz_support")))
                .optimalBufferAlignment(i(s, l, "optimal_buffer_alignment"))
                .evdStreamMergingSupported(streamMerging(s))
                .srqSupported(b(s, l, "srq_supported"))
                .srqWatermarksSupported(i(s, l, "srq_watermarks_supported"))
                .srqEpPzDifferenceSupported(b(s, l, "srq_ep_pz_difference_supported"))
                .srqInfoSupported(i(s, l, "srq_info_supported"))
                .epRecvInfoSupported(i(s, l, "ep_recv_info_supported"))
                .lmrSyncReq(b(s, l, "lmr_sync_req"))
                .dtoAsyncReturnGuaranteed(b(s, l, "dto_async_return_guaranteed"))
                .rdmaWriteForRdmaReadReq(b(s, l, "rdma_write_for_rdma_read_req"))
                .providerSpecificAttr(specific)
                .build();
    }

    /** The 6x6 {@code DAT_BOOLEAN} matrix as jDAT's bit {@code 6 * row + column}. */
    static long streamMerging(MemorySegment s) {
        long base = offset(DAT_PROVIDER_ATTR, "evd_stream_merging_supported");
        long bits = 0;
        for (int k = 0; k < 36; k++) {
            if (s.get(ValueLayout.JAVA_INT, base + 4L * k) != 0) {
                bits |= 1L << k;
            }
        }
        return bits;
    }

    static DatIovOwnership iovOwnership(int v) {
        return switch (v) {
            case 1 -> DatIovOwnership.PROVIDER_NOMOD;
            case 2 -> DatIovOwnership.PROVIDER_MOD;
            default -> DatIovOwnership.CONSUMER;
        };
    }

    static DatEpCreator epCreator(int v) {
        return switch (v) {
            case 1 -> DatEpCreator.IFASKED;
            case 2 -> DatEpCreator.ALWAYS;
            default -> DatEpCreator.NEVER;
        };
    }

    /** DAT 2.0 has {@code DAT_PZ_UNIQUE} = 0 and {@code DAT_PZ_SHAREABLE} = 1; 1.2 put {@code SAME} between them. */
    static DatPzSupport pzSupport(int v) {
        return v == 1 ? DatPzSupport.SHAREABLE : DatPzSupport.UNIQUE;
    }

    /**
     * {@return a C {@code DAT_NAMED_ATTR[count]} as a map in C order; NULL names are skipped, NULL values empty}
     *
     * @param array the array pointer
     * @param count its length as C reports it; at most {@value #MAX_NAMED_ATTRS} entries are read
     */
    @SuppressWarnings("restricted") // a pointer the C provider returned with its count
    static Map<String, String> named(MemorySegment array, int count) {
        Map<String, String> out = new LinkedHashMap<>();
        if (array.address() == 0 || count <= 0) {
            return out;
        }
        int n = Math.min(count, MAX_NAMED_ATTRS);
        MemorySegment a = array.reinterpret(DAT_NAMED_ATTR.byteSize() * n);
        for (int k = 0; k < n; k++) {
            MemorySegment e = a.asSlice(DAT_NAMED_ATTR.byteSize() * k, DAT_NAMED_ATTR.byteSize());
            String name = CStruct.string(e.get(ValueLayout.ADDRESS, offset(DAT_NAMED_ATTR, "name")));
            String value = CStruct.string(e.get(ValueLayout.ADDRESS, offset(DAT_NAMED_ATTR, "value")));
            if (name != null) {
                out.putIfAbsent(name, value == null ? "" : value);
            }
        }
        return out;
    }

    /** {@return the address of a C {@code struct sockaddr}, {@code null} for NULL or a family other than IP} */
    @SuppressWarnings("restricted") // the C provider's ia_address_ptr
    static InetAddress sockaddr(MemorySegment p) {
        if (p.address() == 0) {
            return null;
        }
        MemorySegment sa = p.reinterpret(28);
        int family = Short.toUnsignedInt(sa.get(ValueLayout.JAVA_SHORT, 0));
        try {
            if (family == AF_INET) {
                return InetAddress.getByAddress(sa.asSlice(4, 4).toArray(ValueLayout.JAVA_BYTE));
            }
            if (family == AF_INET6) {
                return InetAddress.getByAddress(sa.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE));
            }
        } catch (UnknownHostException e) {
            return null;
        }
        return null;
    }

    /**
     * {@return {@code info} as the bridge reports it: the C provider's attributes, except that {@code max_rmrs} is 0
     * when the C provider claims windows its {@code dat_rmr_create} cannot make}
     *
     * <p>OFA 2.1.10's {@code dat_ia_query} reports the device's {@code max_mw} as {@code max_rmrs} (524287 on rxe),
     * while its verbs layer never allocates a window: {@code dapls_ib_mw_alloc} ({@code
     * dapl/openib_common/mem.c:417-423}) returns {@code DAT_NOT_IMPLEMENTED}, which {@code dapl_rmr_create} turns into
     * {@code DAT_INSUFFICIENT_RESOURCES/DAT_RESOURCE_MEMORY_REGION} for every RMR. DAT gives no other way to learn
     * it, so an IA whose C provider claims windows creates one on a scratch PZ and frees it; when that fails, the
     * bridge denies RMRs (the kit then skips their rules rather than failing each on its first call) and keeps the
     * C provider's claim and the failure as {@code provider_specific_attr} {@code max_rmrs} and
     * {@code dat_rmr_create}. A C provider that does make windows keeps its {@code max_rmrs}.
     *
     * @param lib libdat2
     * @param ia the open C IA
     * @param info its attributes as C reports them
     */
    static DatIaInfo windowsProbed(LibDat2 lib, MemorySegment ia, DatIaInfo info) {
        int claimed = info.iaAttr().maxRmrs();
        if (claimed == 0) {
            return info;
        }
        String failure = rmrCreateFailure(lib, ia);
        if (failure == null) {
            return info;
        }
        Map<String, String> specific = new LinkedHashMap<>(info.providerAttr().providerSpecificAttr());
        specific.put("max_rmrs", Integer.toString(claimed));
        specific.put("dat_rmr_create", failure);
        return new DatIaInfo(info.iaName(), info.iaParams(),
                info.providerAttr().toBuilder().providerSpecificAttr(specific).build(),
                info.iaAttr().toBuilder().maxRmrs(0).build());
    }

    /** {@return why {@code dat_rmr_create} fails on a fresh PZ of {@code ia}, or {@code null} when it works} */
    private static String rmrCreateFailure(LibDat2 lib, MemorySegment ia) {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment out = local.allocate(ValueLayout.ADDRESS);
            int rc = lib.pzCreate(ia, out);
            if (!DatStatus.ok(rc)) {
                return "not tried: dat_pz_create returned " + DatStatus.describe(rc);
            }
            MemorySegment pz = out.get(ValueLayout.ADDRESS, 0);
            try {
                rc = lib.rmrCreate(pz, out);
                if (!DatStatus.ok(rc)) {
                    return "returned " + DatStatus.describe(rc);
                }
                rc = lib.rmrFree(out.get(ValueLayout.ADDRESS, 0));
                return DatStatus.ok(rc) ? null : "created, but dat_rmr_free returned " + DatStatus.describe(rc);
            } finally {
                lib.pzFree(pz);
            }
        }
    }
}
