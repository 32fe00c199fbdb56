// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal.ffm;

import static dat.provider.udapl.internal.ffm.CStruct.C_INT;
import static dat.provider.udapl.internal.ffm.CStruct.C_LONG;
import static dat.provider.udapl.internal.ffm.CStruct.C_POINTER;
import static dat.provider.udapl.internal.ffm.CStruct.chars;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * The DAT 2.0 structs the bridge reads, member for member as OFA dapl 2.1.10's {@code dat2/dat.h} and
 * {@code dat2/udat.h} declare them. Where DAT 1.2 (jDAT's API) differs, the DAT 2.0 type is what is laid out:
 * {@code max_lmr_block_size}, {@code max_message_size} and {@code max_rdma_size} are {@code DAT_SEG_LENGTH}
 * (32 bits) in DAT 2.0 and {@code DAT_VLEN} (64 bits) in DAT 1.2; DAT 2.0 adds {@code zb_supported},
 * {@code extension_supported}, {@code extension_version} to {@code DAT_IA_ATTR} and
 * {@code rdma_read_lmr_rmr_context_exposure}, {@code rmr_scope_supported}, {@code is_signal_safe},
 * {@code ha_supported}, {@code ha_loadbalancing} to {@code DAT_PROVIDER_ATTR}.
 */
public final class DatStructs {

    /** {@code DAT_NAME_MAX_LENGTH}. */
    public static final int DAT_NAME_MAX_LENGTH = 256;

    /** {@code DAT_PROVIDER_INFO}: what {@code dat_registry_list_providers} returns per {@code dat.conf} entry. */
    public static final StructLayout DAT_PROVIDER_INFO = CStruct.of(
            chars("ia_name", DAT_NAME_MAX_LENGTH),
            C_INT.withName("dapl_version_major"),
            C_INT.withName("dapl_version_minor"),
            C_INT.withName("is_thread_safe"));

    /** {@code DAT_NAMED_ATTR}: a name and a value, both C strings. */
    public static final StructLayout DAT_NAMED_ATTR = CStruct.of(
            C_POINTER.withName("name"),
            C_POINTER.withName("value"));

    /** {@code struct dat_ia_attr} (DAT 2.0). */
    public static final StructLayout DAT_IA_ATTR = CStruct.of(
            chars("adapter_name", DAT_NAME_MAX_LENGTH),
            chars("vendor_name", DAT_NAME_MAX_LENGTH),
            C_INT.withName("hardware_version_major"),
            C_INT.withName("hardware_version_minor"),
            C_INT.withName("firmware_version_major"),
            C_INT.withName("firmware_version_minor"),
            C_POINTER.withName("ia_address_ptr"),
            C_INT.withName("max_eps"),
            C_INT.withName("max_dto_per_ep"),
            C_INT.withName("max_rdma_read_per_ep_in"),
            C_INT.withName("max_rdma_read_per_ep_out"),
            C_INT.withName("max_evds"),
            C_INT.withName("max_evd_qlen"),
            C_INT.withName("max_iov_segments_per_dto"),
            C_INT.withName("max_lmrs"),
            C_INT.withName("max_lmr_block_size"),
            C_LONG.withName("max_lmr_virtual_address"),
            C_INT.withName("max_pzs"),
            C_INT.withName("max_message_size"),
            C_INT.withName("max_rdma_size"),
            C_INT.withName("max_rmrs"),
            C_LONG.withName("max_rmr_target_address"),
            C_INT.withName("max_srqs"),
            C_INT.withName("max_ep_per_srq"),
            C_INT.withName("max_recv_per_srq"),
            C_INT.withName("max_iov_segments_per_rdma_read"),
            C_INT.withName("max_iov_segments_per_rdma_write"),
            C_INT.withName("max_rdma_read_in"),
            C_INT.withName("max_rdma_read_out"),
            C_INT.withName("max_rdma_read_per_ep_in_guaranteed"),
            C_INT.withName("max_rdma_read_per_ep_out_guaranteed"),
            C_INT.withName("zb_supported"),
            C_INT.withName("extension_supported"),
            C_INT.withName("extension_version"),
            C_INT.withName("num_transport_attr"),
            C_POINTER.withName("transport_attr"),
            C_INT.withName("num_vendor_attr"),
            C_POINTER.withName("vendor_attr"));

    /** {@code struct dat_provider_attr} (DAT 2.0). */
    public static final StructLayout DAT_PROVIDER_ATTR = CStruct.of(
            chars("provider_name", DAT_NAME_MAX_LENGTH),
            C_INT.withName("provider_version_major"),
            C_INT.withName("provider_version_minor"),
            C_INT.withName("dapl_version_major"),
            C_INT.withName("dapl_version_minor"),
            C_INT.withName("lmr_mem_types_supported"),
            C_INT.withName("iov_ownership_on_return"),
            C_INT.withName("dat_qos_supported"),
            C_INT.withName("completion_flags_supported"),
            C_INT.withName("is_thread_safe"),
            C_INT.withName("max_private_data_size"),
            C_INT.withName("supports_multipath"),
            C_INT.withName("ep_creator"),
            C_INT.withName("pz_support"),
            C_INT.withName("optimal_buffer_alignment"),
            MemoryLayout.sequenceLayout(6 * 6, C_INT).withName("evd_stream_merging_supported"),
            C_INT.withName("srq_supported"),
            C_INT.withName("srq_watermarks_supported"),
            C_INT.withName("srq_ep_pz_difference_supported"),
            C_INT.withName("srq_info_supported"),
            C_INT.withName("ep_recv_info_supported"),
            C_INT.withName("lmr_sync_req"),
            C_INT.withName("dto_async_return_guaranteed"),
            C_INT.withName("rdma_write_for_rdma_read_req"),
            C_INT.withName("rdma_read_lmr_rmr_context_exposure"),
            C_INT.withName("rmr_scope_supported"),
            C_INT.withName("is_signal_safe"),
            C_INT.withName("ha_supported"),
            C_INT.withName("ha_loadbalancing"),
            C_INT.withName("num_provider_specific_attr"),
            C_POINTER.withName("provider_specific_attr"));

    /** {@code DAT_IA_FIELD_ALL}: every {@code DAT_IA_ATTR} member. */
    public static final long DAT_IA_FIELD_ALL = 0x3FFFFFFFFFL;
    /** {@code DAT_PROVIDER_FIELD_ALL}: every {@code DAT_PROVIDER_ATTR} member. */
    public static final long DAT_PROVIDER_FIELD_ALL = 0x7FFFFFFFL;

    private DatStructs() {
    }
}
