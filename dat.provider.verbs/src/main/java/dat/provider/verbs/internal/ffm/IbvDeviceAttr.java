// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.ValueLayout;

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

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final SequenceLayout FW_VER$LAYOUT = NativeTypes.member(LAYOUT, "fw_ver", SequenceLayout.class);
    static final ValueLayout.OfLong NODE_GUID$LAYOUT =
            NativeTypes.member(LAYOUT, "node_guid", ValueLayout.OfLong.class);
    static final ValueLayout.OfLong MAX_MR_SIZE$LAYOUT =
            NativeTypes.member(LAYOUT, "max_mr_size", ValueLayout.OfLong.class);
    static final ValueLayout.OfInt VENDOR_ID$LAYOUT = NativeTypes.member(LAYOUT, "vendor_id", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt VENDOR_PART_ID$LAYOUT =
            NativeTypes.member(LAYOUT, "vendor_part_id", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt HW_VER$LAYOUT = NativeTypes.member(LAYOUT, "hw_ver", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_QP$LAYOUT = NativeTypes.member(LAYOUT, "max_qp", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_QP_WR$LAYOUT = NativeTypes.member(LAYOUT, "max_qp_wr", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt DEVICE_CAP_FLAGS$LAYOUT =
            NativeTypes.member(LAYOUT, "device_cap_flags", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_SGE$LAYOUT = NativeTypes.member(LAYOUT, "max_sge", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_SGE_RD$LAYOUT =
            NativeTypes.member(LAYOUT, "max_sge_rd", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_CQ$LAYOUT = NativeTypes.member(LAYOUT, "max_cq", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_CQE$LAYOUT = NativeTypes.member(LAYOUT, "max_cqe", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_MR$LAYOUT = NativeTypes.member(LAYOUT, "max_mr", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_PD$LAYOUT = NativeTypes.member(LAYOUT, "max_pd", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_QP_RD_ATOM$LAYOUT =
            NativeTypes.member(LAYOUT, "max_qp_rd_atom", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_RES_RD_ATOM$LAYOUT =
            NativeTypes.member(LAYOUT, "max_res_rd_atom", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_QP_INIT_RD_ATOM$LAYOUT =
            NativeTypes.member(LAYOUT, "max_qp_init_rd_atom", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt ATOMIC_CAP$LAYOUT =
            NativeTypes.member(LAYOUT, "atomic_cap", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_MW$LAYOUT = NativeTypes.member(LAYOUT, "max_mw", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_SRQ$LAYOUT = NativeTypes.member(LAYOUT, "max_srq", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_SRQ_WR$LAYOUT =
            NativeTypes.member(LAYOUT, "max_srq_wr", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_SRQ_SGE$LAYOUT =
            NativeTypes.member(LAYOUT, "max_srq_sge", ValueLayout.OfInt.class);
    static final ValueLayout.OfShort MAX_PKEYS$LAYOUT =
            NativeTypes.member(LAYOUT, "max_pkeys", ValueLayout.OfShort.class);
    static final ValueLayout.OfByte PHYS_PORT_CNT$LAYOUT =
            NativeTypes.member(LAYOUT, "phys_port_cnt", ValueLayout.OfByte.class);

    /**
     * {@return {@code fw_ver} ({@code char[64]}), its bytes in place: a slice of {@code struct}}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static MemorySegment fwVer(MemorySegment struct) {
        return struct.asSlice(FW_VER, FW_VER$LAYOUT.byteSize());
    }

    /**
     * {@return {@code node_guid} ({@code __be64}, network byte order)}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static long nodeGuid(MemorySegment struct) {
        return struct.get(NODE_GUID$LAYOUT, NODE_GUID);
    }

    /**
     * {@return {@code max_mr_size} ({@code uint64_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static long maxMrSize(MemorySegment struct) {
        return struct.get(MAX_MR_SIZE$LAYOUT, MAX_MR_SIZE);
    }

    /**
     * Sets {@code max_mr_size} ({@code uint64_t}, unsigned).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxMrSize(MemorySegment struct, long value) {
        struct.set(MAX_MR_SIZE$LAYOUT, MAX_MR_SIZE, value);
    }

    /**
     * {@return {@code vendor_id} ({@code uint32_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int vendorId(MemorySegment struct) {
        return struct.get(VENDOR_ID$LAYOUT, VENDOR_ID);
    }

    /**
     * Sets {@code vendor_id} ({@code uint32_t}, unsigned).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void vendorId(MemorySegment struct, int value) {
        struct.set(VENDOR_ID$LAYOUT, VENDOR_ID, value);
    }

    /**
     * {@return {@code vendor_part_id} ({@code uint32_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int vendorPartId(MemorySegment struct) {
        return struct.get(VENDOR_PART_ID$LAYOUT, VENDOR_PART_ID);
    }

    /**
     * {@return {@code hw_ver} ({@code uint32_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int hwVer(MemorySegment struct) {
        return struct.get(HW_VER$LAYOUT, HW_VER);
    }

    /**
     * {@return {@code max_qp} ({@code int})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int maxQp(MemorySegment struct) {
        return struct.get(MAX_QP$LAYOUT, MAX_QP);
    }

    /**
     * Sets {@code max_qp} ({@code int}).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxQp(MemorySegment struct, int value) {
        struct.set(MAX_QP$LAYOUT, MAX_QP, value);
    }

    /**
     * {@return {@code max_qp_wr} ({@code int})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int maxQpWr(MemorySegment struct) {
        return struct.get(MAX_QP_WR$LAYOUT, MAX_QP_WR);
    }

    /**
     * Sets {@code max_qp_wr} ({@code int}).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxQpWr(MemorySegment struct, int value) {
        struct.set(MAX_QP_WR$LAYOUT, MAX_QP_WR, value);
    }

    /**
     * {@return {@code device_cap_flags} ({@code unsigned int}, unsigned)}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int deviceCapFlags(MemorySegment struct) {
        return struct.get(DEVICE_CAP_FLAGS$LAYOUT, DEVICE_CAP_FLAGS);
    }

    /**
     * Sets {@code device_cap_flags} ({@code unsigned int}, unsigned).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void deviceCapFlags(MemorySegment struct, int value) {
        struct.set(DEVICE_CAP_FLAGS$LAYOUT, DEVICE_CAP_FLAGS, value);
    }

    /**
     * {@return {@code max_sge} ({@code int})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int maxSge(MemorySegment struct) {
        return struct.get(MAX_SGE$LAYOUT, MAX_SGE);
    }

    /**
     * Sets {@code max_sge} ({@code int}).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxSge(MemorySegment struct, int value) {
        struct.set(MAX_SGE$LAYOUT, MAX_SGE, value);
    }

    /**
     * {@return {@code max_sge_rd} ({@code int})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int maxSgeRd(MemorySegment struct) {
        return struct.get(MAX_SGE_RD$LAYOUT, MAX_SGE_RD);
    }

    /**
     * Sets {@code max_sge_rd} ({@code int}).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxSgeRd(MemorySegment struct, int value) {
        struct.set(MAX_SGE_RD$LAYOUT, MAX_SGE_RD, value);
    }

    /**
     * {@return {@code max_cq} ({@code int})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int maxCq(MemorySegment struct) {
        return struct.get(MAX_CQ$LAYOUT, MAX_CQ);
    }

    /**
     * Sets {@code max_cq} ({@code int}).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxCq(MemorySegment struct, int value) {
        struct.set(MAX_CQ$LAYOUT, MAX_CQ, value);
    }

    /**
     * {@return {@code max_cqe} ({@code int})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int maxCqe(MemorySegment struct) {
        return struct.get(MAX_CQE$LAYOUT, MAX_CQE);
    }

    /**
     * Sets {@code max_cqe} ({@code int}).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxCqe(MemorySegment struct, int value) {
        struct.set(MAX_CQE$LAYOUT, MAX_CQE, value);
    }

    /**
     * {@return {@code max_mr} ({@code int})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int maxMr(MemorySegment struct) {
        return struct.get(MAX_MR$LAYOUT, MAX_MR);
    }

    /**
     * Sets {@code max_mr} ({@code int}).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxMr(MemorySegment struct, int value) {
        struct.set(MAX_MR$LAYOUT, MAX_MR, value);
    }

    /**
     * {@return {@code max_pd} ({@code int})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int maxPd(MemorySegment struct) {
        return struct.get(MAX_PD$LAYOUT, MAX_PD);
    }

    /**
     * Sets {@code max_pd} ({@code int}).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxPd(MemorySegment struct, int value) {
        struct.set(MAX_PD$LAYOUT, MAX_PD, value);
    }

    /**
     * {@return {@code max_qp_rd_atom} ({@code int})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int maxQpRdAtom(MemorySegment struct) {
        return struct.get(MAX_QP_RD_ATOM$LAYOUT, MAX_QP_RD_ATOM);
    }

    /**
     * Sets {@code max_qp_rd_atom} ({@code int}).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxQpRdAtom(MemorySegment struct, int value) {
        struct.set(MAX_QP_RD_ATOM$LAYOUT, MAX_QP_RD_ATOM, value);
    }

    /**
     * {@return {@code max_res_rd_atom} ({@code int})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int maxResRdAtom(MemorySegment struct) {
        return struct.get(MAX_RES_RD_ATOM$LAYOUT, MAX_RES_RD_ATOM);
    }

    /**
     * Sets {@code max_res_rd_atom} ({@code int}).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxResRdAtom(MemorySegment struct, int value) {
        struct.set(MAX_RES_RD_ATOM$LAYOUT, MAX_RES_RD_ATOM, value);
    }

    /**
     * {@return {@code max_qp_init_rd_atom} ({@code int})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int maxQpInitRdAtom(MemorySegment struct) {
        return struct.get(MAX_QP_INIT_RD_ATOM$LAYOUT, MAX_QP_INIT_RD_ATOM);
    }

    /**
     * Sets {@code max_qp_init_rd_atom} ({@code int}).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxQpInitRdAtom(MemorySegment struct, int value) {
        struct.set(MAX_QP_INIT_RD_ATOM$LAYOUT, MAX_QP_INIT_RD_ATOM, value);
    }

    /**
     * {@return {@code atomic_cap} ({@code enum ibv_atomic_cap})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int atomicCap(MemorySegment struct) {
        return struct.get(ATOMIC_CAP$LAYOUT, ATOMIC_CAP);
    }

    /**
     * {@return {@code max_mw} ({@code int})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int maxMw(MemorySegment struct) {
        return struct.get(MAX_MW$LAYOUT, MAX_MW);
    }

    /**
     * Sets {@code max_mw} ({@code int}).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxMw(MemorySegment struct, int value) {
        struct.set(MAX_MW$LAYOUT, MAX_MW, value);
    }

    /**
     * {@return {@code max_srq} ({@code int})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int maxSrq(MemorySegment struct) {
        return struct.get(MAX_SRQ$LAYOUT, MAX_SRQ);
    }

    /**
     * Sets {@code max_srq} ({@code int}).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxSrq(MemorySegment struct, int value) {
        struct.set(MAX_SRQ$LAYOUT, MAX_SRQ, value);
    }

    /**
     * {@return {@code max_srq_wr} ({@code int})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int maxSrqWr(MemorySegment struct) {
        return struct.get(MAX_SRQ_WR$LAYOUT, MAX_SRQ_WR);
    }

    /**
     * Sets {@code max_srq_wr} ({@code int}).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxSrqWr(MemorySegment struct, int value) {
        struct.set(MAX_SRQ_WR$LAYOUT, MAX_SRQ_WR, value);
    }

    /**
     * {@return {@code max_srq_sge} ({@code int})}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static int maxSrqSge(MemorySegment struct) {
        return struct.get(MAX_SRQ_SGE$LAYOUT, MAX_SRQ_SGE);
    }

    /**
     * Sets {@code max_srq_sge} ({@code int}).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void maxSrqSge(MemorySegment struct, int value) {
        struct.set(MAX_SRQ_SGE$LAYOUT, MAX_SRQ_SGE, value);
    }

    /**
     * {@return {@code max_pkeys} ({@code uint16_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static short maxPkeys(MemorySegment struct) {
        return struct.get(MAX_PKEYS$LAYOUT, MAX_PKEYS);
    }

    /**
     * {@return {@code phys_port_cnt} ({@code uint8_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_device_attr}
     */
    public static byte physPortCnt(MemorySegment struct) {
        return struct.get(PHYS_PORT_CNT$LAYOUT, PHYS_PORT_CNT);
    }

    /**
     * Sets {@code phys_port_cnt} ({@code uint8_t}, unsigned).
     *
     * @param struct a {@code struct ibv_device_attr}
     * @param value the new value
     */
    public static void physPortCnt(MemorySegment struct, byte value) {
        struct.set(PHYS_PORT_CNT$LAYOUT, PHYS_PORT_CNT, value);
    }

    private IbvDeviceAttr() {
    }
}
