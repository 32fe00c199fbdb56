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

    /** {@code DAT_LMR_TRIPLET} (DAT 2.0: a 32-bit {@code segment_length}, DAT 1.2's is 64-bit). */
    public static final StructLayout DAT_LMR_TRIPLET = CStruct.of(
            C_LONG.withName("virtual_address"),
            C_INT.withName("segment_length"),
            C_INT.withName("lmr_context"));

    /** {@code DAT_RMR_TRIPLET} (DAT 2.0: 32-bit {@code segment_length}; DAT 1.2 orders context first). */
    public static final StructLayout DAT_RMR_TRIPLET = CStruct.of(
            C_LONG.withName("virtual_address"),
            C_INT.withName("segment_length"),
            C_INT.withName("rmr_context"));

    /** {@code DAT_COMM} (DAT 2.0 only: the communicator of an {@code DAT_EP_PARAM}). */
    public static final StructLayout DAT_COMM = CStruct.of(
            C_INT.withName("domain"),
            C_INT.withName("type"),
            C_INT.withName("protocol"));

    /** {@code DAT_EP_ATTR} (DAT 2.0: 32-bit message and RDMA sizes, {@code max_rdma_read_iov} and
     * {@code max_rdma_write_iov} added). */
    public static final StructLayout DAT_EP_ATTR = CStruct.of(
            C_INT.withName("service_type"),
            C_INT.withName("max_message_size"),
            C_INT.withName("max_rdma_size"),
            C_INT.withName("qos"),
            C_INT.withName("recv_completion_flags"),
            C_INT.withName("request_completion_flags"),
            C_INT.withName("max_recv_dtos"),
            C_INT.withName("max_request_dtos"),
            C_INT.withName("max_recv_iov"),
            C_INT.withName("max_request_iov"),
            C_INT.withName("max_rdma_read_in"),
            C_INT.withName("max_rdma_read_out"),
            C_INT.withName("srq_soft_hw"),
            C_INT.withName("max_rdma_read_iov"),
            C_INT.withName("max_rdma_write_iov"),
            C_INT.withName("ep_transport_specific_count"),
            C_POINTER.withName("ep_transport_specific"),
            C_INT.withName("ep_provider_specific_count"),
            C_POINTER.withName("ep_provider_specific"));

    /** {@code DAT_EP_PARAM} (DAT 2.0 adds {@code comm}). */
    public static final StructLayout DAT_EP_PARAM = CStruct.of(
            C_POINTER.withName("ia_handle"),
            C_INT.withName("ep_state"),
            DAT_COMM.withName("comm"),
            C_POINTER.withName("local_ia_address_ptr"),
            C_LONG.withName("local_port_qual"),
            C_POINTER.withName("remote_ia_address_ptr"),
            C_LONG.withName("remote_port_qual"),
            C_POINTER.withName("pz_handle"),
            C_POINTER.withName("recv_evd_handle"),
            C_POINTER.withName("request_evd_handle"),
            C_POINTER.withName("connect_evd_handle"),
            C_POINTER.withName("srq_handle"),
            DAT_EP_ATTR.withName("ep_attr"));

    /** {@code DAT_EVD_PARAM}. */
    public static final StructLayout DAT_EVD_PARAM = CStruct.of(
            C_POINTER.withName("ia_handle"),
            C_INT.withName("evd_qlen"),
            C_INT.withName("evd_state"),
            C_POINTER.withName("cno_handle"),
            C_INT.withName("evd_flags"));

    /** {@code DAT_CNO_PARAM}; {@code proxy} is the 16-byte union of the agent, an fd and a pointer. */
    public static final StructLayout DAT_CNO_PARAM = CStruct.of(
            C_POINTER.withName("ia_handle"),
            C_INT.withName("proxy_type"),
            MemoryLayout.sequenceLayout(2, C_POINTER).withName("proxy"));

    /** {@code DAT_LMR_PARAM}; {@code region_desc} is the 16-byte {@code DAT_REGION_DESCRIPTION} union. */
    public static final StructLayout DAT_LMR_PARAM = CStruct.of(
            C_POINTER.withName("ia_handle"),
            C_INT.withName("mem_type"),
            MemoryLayout.sequenceLayout(2, C_LONG).withName("region_desc"),
            C_LONG.withName("length"),
            C_POINTER.withName("pz_handle"),
            C_INT.withName("mem_priv"),
            C_INT.withName("va_type"),
            C_INT.withName("lmr_context"),
            C_INT.withName("rmr_context"),
            C_LONG.withName("registered_size"),
            C_LONG.withName("registered_address"));

    /** {@code DAT_RMR_PARAM} (DAT 2.0 adds {@code rmr_scope} and {@code va_type}). */
    public static final StructLayout DAT_RMR_PARAM = CStruct.of(
            C_POINTER.withName("ia_handle"),
            C_POINTER.withName("pz_handle"),
            DAT_LMR_TRIPLET.withName("lmr_triplet"),
            C_INT.withName("mem_priv"),
            C_INT.withName("rmr_context"),
            C_INT.withName("rmr_scope"),
            C_INT.withName("va_type"));

    /** {@code DAT_PZ_PARAM}. */
    public static final StructLayout DAT_PZ_PARAM = CStruct.of(
            C_POINTER.withName("ia_handle"));

    /** {@code DAT_PSP_PARAM}. */
    public static final StructLayout DAT_PSP_PARAM = CStruct.of(
            C_POINTER.withName("ia_handle"),
            C_LONG.withName("conn_qual"),
            C_POINTER.withName("evd_handle"),
            C_INT.withName("psp_flags"));

    /** {@code DAT_RSP_PARAM}. */
    public static final StructLayout DAT_RSP_PARAM = CStruct.of(
            C_POINTER.withName("ia_handle"),
            C_LONG.withName("conn_qual"),
            C_POINTER.withName("evd_handle"),
            C_POINTER.withName("ep_handle"));

    /** {@code DAT_CR_PARAM}. */
    public static final StructLayout DAT_CR_PARAM = CStruct.of(
            C_POINTER.withName("remote_ia_address_ptr"),
            C_LONG.withName("remote_port_qual"),
            C_INT.withName("private_data_size"),
            C_POINTER.withName("private_data"),
            C_POINTER.withName("local_ep_handle"));

    /** {@code DAT_DTO_COMPLETION_EVENT_DATA} (DAT 2.0 adds {@code operation} and {@code rmr_context}). */
    public static final StructLayout DAT_DTO_COMPLETION_EVENT_DATA = CStruct.of(
            C_POINTER.withName("ep_handle"),
            C_LONG.withName("user_cookie"),
            C_INT.withName("status"),
            C_INT.withName("transfered_length"),
            C_INT.withName("operation"),
            C_INT.withName("rmr_context"));

    /** {@code DAT_RMR_BIND_COMPLETION_EVENT_DATA}. */
    public static final StructLayout DAT_RMR_BIND_COMPLETION_EVENT_DATA = CStruct.of(
            C_POINTER.withName("rmr_handle"),
            C_LONG.withName("user_cookie"),
            C_INT.withName("status"));

    /** {@code DAT_CR_ARRIVAL_EVENT_DATA} (DAT 2.0 adds {@code truncate_flag}). */
    public static final StructLayout DAT_CR_ARRIVAL_EVENT_DATA = CStruct.of(
            C_POINTER.withName("sp_handle"),
            C_POINTER.withName("local_ia_address_ptr"),
            C_LONG.withName("conn_qual"),
            C_POINTER.withName("cr_handle"),
            C_INT.withName("truncate_flag"));

    /** {@code DAT_CONNECTION_EVENT_DATA}. */
    public static final StructLayout DAT_CONNECTION_EVENT_DATA = CStruct.of(
            C_POINTER.withName("ep_handle"),
            C_INT.withName("private_data_size"),
            C_POINTER.withName("private_data"));

    /** {@code DAT_ASYNCH_ERROR_EVENT_DATA} (DAT 2.0 adds {@code reason}). */
    public static final StructLayout DAT_ASYNCH_ERROR_EVENT_DATA = CStruct.of(
            C_POINTER.withName("dat_handle"),
            C_INT.withName("reason"));

    /** Bytes of the {@code DAT_EVENT_DATA} union: its largest member, {@code DAT_CR_ARRIVAL_EVENT_DATA}. */
    static final long EVENT_DATA_LONGS = 5;

    /**
     * {@code DAT_EVENT} (DAT 2.0 adds {@code event_extension_data[8]}, so it is 120 bytes where DAT 1.2's is 56):
     * {@code event_data} is the union, read through the {@code *_EVENT_DATA} layouts at its offset.
     */
    public static final StructLayout DAT_EVENT = CStruct.of(
            C_INT.withName("event_number"),
            C_POINTER.withName("evd_handle"),
            MemoryLayout.sequenceLayout(EVENT_DATA_LONGS, C_LONG).withName("event_data"),
            MemoryLayout.sequenceLayout(8, C_LONG).withName("event_extension_data"));

    /** {@code DAT_DTO_COMPLETION_EVENT}. */
    public static final int DAT_DTO_COMPLETION_EVENT = 0x00001;
    /** {@code DAT_RMR_BIND_COMPLETION_EVENT}. */
    public static final int DAT_RMR_BIND_COMPLETION_EVENT = 0x01001;
    /** {@code DAT_CONNECTION_REQUEST_EVENT}. */
    public static final int DAT_CONNECTION_REQUEST_EVENT = 0x02001;
    /** {@code DAT_CONNECTION_EVENT_ESTABLISHED}. */
    public static final int DAT_CONNECTION_EVENT_ESTABLISHED = 0x04001;
    /** {@code DAT_CONNECTION_EVENT_PEER_REJECTED}. */
    public static final int DAT_CONNECTION_EVENT_PEER_REJECTED = 0x04002;
    /** {@code DAT_CONNECTION_EVENT_NON_PEER_REJECTED}. */
    public static final int DAT_CONNECTION_EVENT_NON_PEER_REJECTED = 0x04003;
    /** {@code DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR}. */
    public static final int DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR = 0x04004;
    /** {@code DAT_CONNECTION_EVENT_DISCONNECTED}. */
    public static final int DAT_CONNECTION_EVENT_DISCONNECTED = 0x04005;
    /** {@code DAT_CONNECTION_EVENT_BROKEN}. */
    public static final int DAT_CONNECTION_EVENT_BROKEN = 0x04006;
    /** {@code DAT_CONNECTION_EVENT_TIMED_OUT}. */
    public static final int DAT_CONNECTION_EVENT_TIMED_OUT = 0x04007;
    /** {@code DAT_CONNECTION_EVENT_UNREACHABLE}. */
    public static final int DAT_CONNECTION_EVENT_UNREACHABLE = 0x04008;
    /** {@code DAT_ASYNC_ERROR_EVD_OVERFLOW}. */
    public static final int DAT_ASYNC_ERROR_EVD_OVERFLOW = 0x08001;
    /** {@code DAT_ASYNC_ERROR_IA_CATASTROPHIC}. */
    public static final int DAT_ASYNC_ERROR_IA_CATASTROPHIC = 0x08002;
    /** {@code DAT_ASYNC_ERROR_EP_BROKEN}. */
    public static final int DAT_ASYNC_ERROR_EP_BROKEN = 0x08003;
    /** {@code DAT_ASYNC_ERROR_TIMED_OUT}. */
    public static final int DAT_ASYNC_ERROR_TIMED_OUT = 0x08004;
    /** {@code DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR}. */
    public static final int DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR = 0x08005;
    /** {@code DAT_HA_DOWN_TO_1} (DAT 2.0 only). */
    public static final int DAT_HA_DOWN_TO_1 = 0x08101;
    /** {@code DAT_HA_UP_TO_MULTI_PATH} (DAT 2.0 only). */
    public static final int DAT_HA_UP_TO_MULTI_PATH = 0x08102;
    /** {@code DAT_SOFTWARE_EVENT}. */
    public static final int DAT_SOFTWARE_EVENT = 0x10001;

    /** {@code DAT_MEM_TYPE_VIRTUAL}. */
    public static final int DAT_MEM_TYPE_VIRTUAL = 0x00;
    /** {@code DAT_VA_TYPE_VA}: the LMR is addressed by virtual address. */
    public static final int DAT_VA_TYPE_VA = 0x0;
    /** {@code DAT_RMR_FIELD_LMR_TRIPLET}: OFA's {@code dat_rmr_query} refuses it for an unbound RMR. */
    public static final int DAT_RMR_FIELD_LMR_TRIPLET = 0x04;
    /** {@code DAT_RMR_FIELD_ALL}. */
    public static final int DAT_RMR_FIELD_ALL = 0x7F;
    /** {@code DAT_PZ_FIELD_ALL}. */
    public static final int DAT_PZ_FIELD_ALL = 0x01;
    /** {@code DAT_PSP_FIELD_ALL}. */
    public static final int DAT_PSP_FIELD_ALL = 0x0F;

    /** {@code DAT_CNO_FIELD_ALL}. */
    public static final int DAT_CNO_FIELD_ALL = 0x4;
    /** {@code DAT_PROXY_TYPE_AGENT}: {@code DAT_CNO_PARAM.proxy} holds an agent. */
    public static final int DAT_PROXY_TYPE_AGENT = 0x1;

    /** {@code DAT_IA_FIELD_ALL}: every {@code DAT_IA_ATTR} member. */
    public static final long DAT_IA_FIELD_ALL = 0x3FFFFFFFFFL;
    /** {@code DAT_PROVIDER_FIELD_ALL}: every {@code DAT_PROVIDER_ATTR} member. */
    public static final long DAT_PROVIDER_FIELD_ALL = 0x7FFFFFFFL;

    private DatStructs() {
    }
}
