// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * DAT 1.2 constants that belong to no single object.
 */
public final class Dat {

    private Dat() {
    }

    /** {@code DAT_VERSION_MAJOR} of the API this library implements. */
    public static final int DAT_VERSION_MAJOR = 1;
    /** {@code DAT_VERSION_MINOR} of the API this library implements. */
    public static final int DAT_VERSION_MINOR = 2;

    /** {@code DAT_VALUE_UNKNOWN}: a count the provider cannot obtain at a reasonable cost. */
    public static final int DAT_VALUE_UNKNOWN = -2;
    /** {@code DAT_WATERMARK_INFINITE}: a high watermark that never triggers. */
    public static final int DAT_WATERMARK_INFINITE = -1;
    /** {@code DAT_HW_DEFAULT}: the default EP soft high watermark ({@code srq_soft_hw}), infinite. */
    public static final int DAT_HW_DEFAULT = DAT_WATERMARK_INFINITE;
    /** {@code DAT_SRQ_LW_DEFAULT}: no SRQ low watermark; the value {@code dat_srq_create} requires. */
    public static final int DAT_SRQ_LW_DEFAULT = 0;
    /** {@code DAT_OPTIMAL_ALIGNMENT}: the buffer alignment portable consumers use; 256 bytes. */
    public static final int DAT_OPTIMAL_ALIGNMENT = 256;
    /** {@code DAT_TIMEOUT_INFINITE}: wait for ever ({@code (DAT_TIMEOUT)~0} microseconds). */
    public static final long DAT_TIMEOUT_INFINITE = 0xFFFF_FFFFL;
    /** {@code DAT_NAME_MAX_LENGTH}: the longest IA, adapter, vendor or provider name. */
    public static final int DAT_NAME_MAX_LENGTH = 256;
    /** The least {@code max_private_data_size} any provider reports (DAT: at least 64 bytes). */
    public static final int DAT_MIN_PRIVATE_DATA_SIZE = 64;

    /**
     * {@code ep_recv_info_supported} bit and {@link DatEp#recvQuery} selector: {@code nbufs_allocated}.
     */
    public static final int DAT_EP_RECV_INFO_NBUFS_ALLOCATED = 0x01;
    /**
     * {@code ep_recv_info_supported} bit and {@link DatEp#recvQuery} selector: {@code bufs_alloc_span}.
     */
    public static final int DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN = 0x10;

    /** {@code srq_info_supported} bit: {@code available_dto_count} is a real count. */
    public static final int DAT_SRQ_INFO_AVAILABLE_DTO_COUNT = 0x01;
    /** {@code srq_info_supported} bit: {@code outstanding_dto_count} is a real count. */
    public static final int DAT_SRQ_INFO_OUTSTANDING_DTO_COUNT = 0x10;

    /** {@code srq_watermarks_supported} bit: the SRQ low watermark ({@code dat_srq_set_lw}). */
    public static final int DAT_SRQ_WATERMARK_LOW = 0x001;
    /** {@code srq_watermarks_supported} bit: the EP soft high watermark. */
    public static final int DAT_SRQ_WATERMARK_SOFT_HIGH = 0x010;
    /** {@code srq_watermarks_supported} bit: the EP hard high watermark. */
    public static final int DAT_SRQ_WATERMARK_HARD_HIGH = 0x100;

    /** {@code DAT_MEM_TYPE_VIRTUAL}, the only {@code lmr_mem_types_supported} value jDAT registers. */
    public static final int DAT_MEM_TYPE_VIRTUAL = 0x00;
    /** {@code DAT_MEM_TYPE_LMR}. */
    public static final int DAT_MEM_TYPE_LMR = 0x01;
    /** {@code DAT_MEM_TYPE_SHARED_VIRTUAL}. */
    public static final int DAT_MEM_TYPE_SHARED_VIRTUAL = 0x02;
}
