// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct ibv_device_attr} (verbs.h): what {@code ibv_query_device} reports; the source of most DAT IA limits.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type               field
 *      0   64  char[64]             fw_ver
 *     64    8  __be64               node_guid
 *     72    8  __be64               sys_image_guid
 *     80    8  uint64_t             max_mr_size
 *     88    8  uint64_t             page_size_cap
 *     96    4  uint32_t             vendor_id
 *    100    4  uint32_t             vendor_part_id
 *    104    4  uint32_t             hw_ver
 *    108    4  int                  max_qp
 *    112    4  int                  max_qp_wr
 *    116    4  unsigned int         device_cap_flags
 *    120    4  int                  max_sge
 *    124    4  int                  max_sge_rd
 *    128    4  int                  max_cq
 *    132    4  int                  max_cqe
 *    136    4  int                  max_mr
 *    140    4  int                  max_pd
 *    144    4  int                  max_qp_rd_atom
 *    148    4  int                  max_ee_rd_atom
 *    152    4  int                  max_res_rd_atom
 *    156    4  int                  max_qp_init_rd_atom
 *    160    4  int                  max_ee_init_rd_atom
 *    164    4  enum ibv_atomic_cap  atomic_cap
 *    168    4  int                  max_ee
 *    172    4  int                  max_rdd
 *    176    4  int                  max_mw
 *    180    4  int                  max_raw_ipv6_qp
 *    184    4  int                  max_raw_ethy_qp
 *    188    4  int                  max_mcast_grp
 *    192    4  int                  max_mcast_qp_attach
 *    196    4  int                  max_total_mcast_qp_attach
 *    200    4  int                  max_ah
 *    204    4  int                  max_fmr
 *    208    4  int                  max_map_per_fmr
 *    212    4  int                  max_srq
 *    216    4  int                  max_srq_wr
 *    220    4  int                  max_srq_sge
 *    224    2  uint16_t             max_pkeys
 *    226    1  uint8_t              local_ca_ack_delay
 *    227    1  uint8_t              phys_port_cnt
 * sizeof 232, alignof 8</pre>
 */
public final class IbvDeviceAttr {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("fw_ver"),
            JAVA_LONG.withName("node_guid"),
            JAVA_LONG.withName("sys_image_guid"),
            JAVA_LONG.withName("max_mr_size"),
            JAVA_LONG.withName("page_size_cap"),
            JAVA_INT.withName("vendor_id"),
            JAVA_INT.withName("vendor_part_id"),
            JAVA_INT.withName("hw_ver"),
            JAVA_INT.withName("max_qp"),
            JAVA_INT.withName("max_qp_wr"),
            JAVA_INT.withName("device_cap_flags"),
            JAVA_INT.withName("max_sge"),
            JAVA_INT.withName("max_sge_rd"),
            JAVA_INT.withName("max_cq"),
            JAVA_INT.withName("max_cqe"),
            JAVA_INT.withName("max_mr"),
            JAVA_INT.withName("max_pd"),
            JAVA_INT.withName("max_qp_rd_atom"),
            JAVA_INT.withName("max_ee_rd_atom"),
            JAVA_INT.withName("max_res_rd_atom"),
            JAVA_INT.withName("max_qp_init_rd_atom"),
            JAVA_INT.withName("max_ee_init_rd_atom"),
            JAVA_INT.withName("atomic_cap"),
            JAVA_INT.withName("max_ee"),
            JAVA_INT.withName("max_rdd"),
            JAVA_INT.withName("max_mw"),
            JAVA_INT.withName("max_raw_ipv6_qp"),
            JAVA_INT.withName("max_raw_ethy_qp"),
            JAVA_INT.withName("max_mcast_grp"),
            JAVA_INT.withName("max_mcast_qp_attach"),
            JAVA_INT.withName("max_total_mcast_qp_attach"),
            JAVA_INT.withName("max_ah"),
            JAVA_INT.withName("max_fmr"),
            JAVA_INT.withName("max_map_per_fmr"),
            JAVA_INT.withName("max_srq"),
            JAVA_INT.withName("max_srq_wr"),
            JAVA_INT.withName("max_srq_sge"),
            JAVA_SHORT.withName("max_pkeys"),
            JAVA_BYTE.withName("local_ca_ack_delay"),
            JAVA_BYTE.withName("phys_port_cnt"),
            MemoryLayout.paddingLayout(4)).withName("struct ibv_device_attr");

    /** {@code sizeof(struct ibv_device_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code fw_ver}. */
    public static final long FW_VER = NativeTypes.offset(LAYOUT, "fw_ver");

    /** Offset of {@code node_guid}. */
    public static final long NODE_GUID = NativeTypes.offset(LAYOUT, "node_guid");

    /** Offset of {@code sys_image_guid}. */
    public static final long SYS_IMAGE_GUID = NativeTypes.offset(LAYOUT, "sys_image_guid");

    /** Offset of {@code max_mr_size}. */
    public static final long MAX_MR_SIZE = NativeTypes.offset(LAYOUT, "max_mr_size");

    /** Offset of {@code page_size_cap}. */
    public static final long PAGE_SIZE_CAP = NativeTypes.offset(LAYOUT, "page_size_cap");

    /** Offset of {@code vendor_id}. */
    public static final long VENDOR_ID = NativeTypes.offset(LAYOUT, "vendor_id");

    /** Offset of {@code vendor_part_id}. */
    public static final long VENDOR_PART_ID = NativeTypes.offset(LAYOUT, "vendor_part_id");

    /** Offset of {@code hw_ver}. */
    public static final long HW_VER = NativeTypes.offset(LAYOUT, "hw_ver");

    /** Offset of {@code max_qp}. */
    public static final long MAX_QP = NativeTypes.offset(LAYOUT, "max_qp");

    /** Offset of {@code max_qp_wr}. */
    public static final long MAX_QP_WR = NativeTypes.offset(LAYOUT, "max_qp_wr");

    /** Offset of {@code device_cap_flags}. */
    public static final long DEVICE_CAP_FLAGS = NativeTypes.offset(LAYOUT, "device_cap_flags");

    /** Offset of {@code max_sge}. */
    public static final long MAX_SGE = NativeTypes.offset(LAYOUT, "max_sge");

    /** Offset of {@code max_sge_rd}. */
    public static final long MAX_SGE_RD = NativeTypes.offset(LAYOUT, "max_sge_rd");

    /** Offset of {@code max_cq}. */
    public static final long MAX_CQ = NativeTypes.offset(LAYOUT, "max_cq");

    /** Offset of {@code max_cqe}. */
    public static final long MAX_CQE = NativeTypes.offset(LAYOUT, "max_cqe");

    /** Offset of {@code max_mr}. */
    public static final long MAX_MR = NativeTypes.offset(LAYOUT, "max_mr");

    /** Offset of {@code max_pd}. */
    public static final long MAX_PD = NativeTypes.offset(LAYOUT, "max_pd");

    /** Offset of {@code max_qp_rd_atom}. */
    public static final long MAX_QP_RD_ATOM = NativeTypes.offset(LAYOUT, "max_qp_rd_atom");

    /** Offset of {@code max_ee_rd_atom}. */
    public static final long MAX_EE_RD_ATOM = NativeTypes.offset(LAYOUT, "max_ee_rd_atom");

    /** Offset of {@code max_res_rd_atom}. */
    public static final long MAX_RES_RD_ATOM = NativeTypes.offset(LAYOUT, "max_res_rd_atom");

    /** Offset of {@code max_qp_init_rd_atom}. */
    public static final long MAX_QP_INIT_RD_ATOM = NativeTypes.offset(LAYOUT, "max_qp_init_rd_atom");

    /** Offset of {@code max_ee_init_rd_atom}. */
    public static final long MAX_EE_INIT_RD_ATOM = NativeTypes.offset(LAYOUT, "max_ee_init_rd_atom");

    /** Offset of {@code atomic_cap}. */
    public static final long ATOMIC_CAP = NativeTypes.offset(LAYOUT, "atomic_cap");

    /** Offset of {@code max_ee}. */
    public static final long MAX_EE = NativeTypes.offset(LAYOUT, "max_ee");

    /** Offset of {@code max_rdd}. */
    public static final long MAX_RDD = NativeTypes.offset(LAYOUT, "max_rdd");

    /** Offset of {@code max_mw}. */
    public static final long MAX_MW = NativeTypes.offset(LAYOUT, "max_mw");

    /** Offset of {@code max_raw_ipv6_qp}. */
    public static final long MAX_RAW_IPV6_QP = NativeTypes.offset(LAYOUT, "max_raw_ipv6_qp");

    /** Offset of {@code max_raw_ethy_qp}. */
    public static final long MAX_RAW_ETHY_QP = NativeTypes.offset(LAYOUT, "max_raw_ethy_qp");

    /** Offset of {@code max_mcast_grp}. */
    public static final long MAX_MCAST_GRP = NativeTypes.offset(LAYOUT, "max_mcast_grp");

    /** Offset of {@code max_mcast_qp_attach}. */
    public static final long MAX_MCAST_QP_ATTACH = NativeTypes.offset(LAYOUT, "max_mcast_qp_attach");

    /** Offset of {@code max_total_mcast_qp_attach}. */
    public static final long MAX_TOTAL_MCAST_QP_ATTACH = NativeTypes.offset(LAYOUT, "max_total_mcast_qp_attach");

    /** Offset of {@code max_ah}. */
    public static final long MAX_AH = NativeTypes.offset(LAYOUT, "max_ah");

    /** Offset of {@code max_fmr}. */
    public static final long MAX_FMR = NativeTypes.offset(LAYOUT, "max_fmr");

    /** Offset of {@code max_map_per_fmr}. */
    public static final long MAX_MAP_PER_FMR = NativeTypes.offset(LAYOUT, "max_map_per_fmr");

    /** Offset of {@code max_srq}. */
    public static final long MAX_SRQ = NativeTypes.offset(LAYOUT, "max_srq");

    /** Offset of {@code max_srq_wr}. */
    public static final long MAX_SRQ_WR = NativeTypes.offset(LAYOUT, "max_srq_wr");

    /** Offset of {@code max_srq_sge}. */
    public static final long MAX_SRQ_SGE = NativeTypes.offset(LAYOUT, "max_srq_sge");

    /** Offset of {@code max_pkeys}. */
    public static final long MAX_PKEYS = NativeTypes.offset(LAYOUT, "max_pkeys");

    /** Offset of {@code local_ca_ack_delay}. */
    public static final long LOCAL_CA_ACK_DELAY = NativeTypes.offset(LAYOUT, "local_ca_ack_delay");

    /** Offset of {@code phys_port_cnt}. */
    public static final long PHYS_PORT_CNT = NativeTypes.offset(LAYOUT, "phys_port_cnt");

    private IbvDeviceAttr() {
    }
}
