// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_send_wr} (verbs.h): a send-queue work request; {@code wr.rdma} carries the remote buffer of RDMA
 * read/write.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type                   field
 *      0    8  uint64_t                 wr_id
 *      8    8  struct ibv_send_wr *     next
 *     16    8  struct ibv_sge *         sg_list
 *     24    4  int                      num_sge
 *     28    4  enum ibv_wr_opcode       opcode
 *     32    4  unsigned int             send_flags
 *     36    4  __be32                   imm_data
 *     36    4  uint32_t                 invalidate_rkey
 *     40    8  uint64_t                 wr.rdma.remote_addr
 *     48    4  uint32_t                 wr.rdma.rkey
 *     40    8  uint64_t                 wr.atomic.remote_addr
 *     48    8  uint64_t                 wr.atomic.compare_add
 *     56    8  uint64_t                 wr.atomic.swap
 *     64    4  uint32_t                 wr.atomic.rkey
 *     40    8  struct ibv_ah *          wr.ud.ah
 *     48    4  uint32_t                 wr.ud.remote_qpn
 *     52    4  uint32_t                 wr.ud.remote_qkey
 *     72    4  uint32_t                 qp_type.xrc.remote_srqn
 *     80    8  struct ibv_mw *          bind_mw.mw
 *     88    4  uint32_t                 bind_mw.rkey
 *     96   32  struct ibv_mw_bind_info  bind_mw.bind_info
 *     80    8  void *                   tso.hdr
 *     88    2  uint16_t                 tso.hdr_sz
 *     90    2  uint16_t                 tso.mss
 * sizeof 128, alignof 8</pre>
 */
public final class IbvSendWr {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("wr_id"),
            ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"),
            JAVA_INT.withName("num_sge"),
            JAVA_INT.withName("opcode"),
            JAVA_INT.withName("send_flags"),
            MemoryLayout.unionLayout(
                    JAVA_INT.withName("imm_data"),
                    JAVA_INT.withName("invalidate_rkey")),
            MemoryLayout.unionLayout(
                    MemoryLayout.structLayout(
                            JAVA_LONG.withName("remote_addr"),
                            JAVA_INT.withName("rkey"),
                            MemoryLayout.paddingLayout(4)).withName("rdma"),
                    MemoryLayout.structLayout(
                            JAVA_LONG.withName("remote_addr"),
                            JAVA_LONG.withName("compare_add"),
                            JAVA_LONG.withName("swap"),
                            JAVA_INT.withName("rkey"),
                            MemoryLayout.paddingLayout(4)).withName("atomic"),
                    MemoryLayout.structLayout(
                            ADDRESS.withName("ah"),
                            JAVA_INT.withName("remote_qpn"),
                            JAVA_INT.withName("remote_qkey")).withName("ud")).withName("wr"),
            MemoryLayout.unionLayout(
                    MemoryLayout.structLayout(
                            JAVA_INT.withName("remote_srqn")).withName("xrc")).withName("qp_type"),
            MemoryLayout.paddingLayout(4),
            MemoryLayout.unionLayout(
                    MemoryLayout.structLayout(
                            ADDRESS.withName("mw"),
                            JAVA_INT.withName("rkey"),
                            MemoryLayout.paddingLayout(4),
                            IbvMwBindInfo.LAYOUT.withName("bind_info")).withName("bind_mw"),
                    MemoryLayout.structLayout(
                            ADDRESS.withName("hdr"),
                            JAVA_SHORT.withName("hdr_sz"),
                            JAVA_SHORT.withName("mss"),
                            MemoryLayout.paddingLayout(4)).withName("tso"))).withName("struct ibv_send_wr");

    /** {@code sizeof(struct ibv_send_wr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code wr_id}. */
    public static final long WR_ID = NativeTypes.offset(LAYOUT, "wr_id");

    /** Offset of {@code next}. */
    public static final long NEXT = NativeTypes.offset(LAYOUT, "next");

    /** Offset of {@code sg_list}. */
    public static final long SG_LIST = NativeTypes.offset(LAYOUT, "sg_list");

    /** Offset of {@code num_sge}. */
    public static final long NUM_SGE = NativeTypes.offset(LAYOUT, "num_sge");

    /** Offset of {@code opcode}. */
    public static final long OPCODE = NativeTypes.offset(LAYOUT, "opcode");

    /** Offset of {@code send_flags}. */
    public static final long SEND_FLAGS = NativeTypes.offset(LAYOUT, "send_flags");

    /** Offset of {@code imm_data}. */
    public static final long IMM_DATA = NativeTypes.offset(LAYOUT, "imm_data");

    /** Offset of {@code invalidate_rkey}. */
    public static final long INVALIDATE_RKEY = NativeTypes.offset(LAYOUT, "invalidate_rkey");

    /** Offset of {@code wr.rdma.remote_addr}. */
    public static final long WR_RDMA_REMOTE_ADDR = NativeTypes.offset(LAYOUT, "wr.rdma.remote_addr");

    /** Offset of {@code wr.rdma.rkey}. */
    public static final long WR_RDMA_RKEY = NativeTypes.offset(LAYOUT, "wr.rdma.rkey");

    /** Offset of {@code wr.atomic.remote_addr}. */
    public static final long WR_ATOMIC_REMOTE_ADDR = NativeTypes.offset(LAYOUT, "wr.atomic.remote_addr");

    /** Offset of {@code wr.atomic.compare_add}. */
    public static final long WR_ATOMIC_COMPARE_ADD = NativeTypes.offset(LAYOUT, "wr.atomic.compare_add");

    /** Offset of {@code wr.atomic.swap}. */
    public static final long WR_ATOMIC_SWAP = NativeTypes.offset(LAYOUT, "wr.atomic.swap");

    /** Offset of {@code wr.atomic.rkey}. */
    public static final long WR_ATOMIC_RKEY = NativeTypes.offset(LAYOUT, "wr.atomic.rkey");

    /** Offset of {@code wr.ud.ah}. */
    public static final long WR_UD_AH = NativeTypes.offset(LAYOUT, "wr.ud.ah");

    /** Offset of {@code wr.ud.remote_qpn}. */
    public static final long WR_UD_REMOTE_QPN = NativeTypes.offset(LAYOUT, "wr.ud.remote_qpn");

    /** Offset of {@code wr.ud.remote_qkey}. */
    public static final long WR_UD_REMOTE_QKEY = NativeTypes.offset(LAYOUT, "wr.ud.remote_qkey");

    /** Offset of {@code qp_type.xrc.remote_srqn}. */
    public static final long QP_TYPE_XRC_REMOTE_SRQN = NativeTypes.offset(LAYOUT, "qp_type.xrc.remote_srqn");

    /** Offset of {@code bind_mw.mw}. */
    public static final long BIND_MW_MW = NativeTypes.offset(LAYOUT, "bind_mw.mw");

    /** Offset of {@code bind_mw.rkey}. */
    public static final long BIND_MW_RKEY = NativeTypes.offset(LAYOUT, "bind_mw.rkey");

    /** Offset of {@code bind_mw.bind_info}. */
    public static final long BIND_MW_BIND_INFO = NativeTypes.offset(LAYOUT, "bind_mw.bind_info");

    /** Offset of {@code tso.hdr}. */
    public static final long TSO_HDR = NativeTypes.offset(LAYOUT, "tso.hdr");

    /** Offset of {@code tso.hdr_sz}. */
    public static final long TSO_HDR_SZ = NativeTypes.offset(LAYOUT, "tso.hdr_sz");

    /** Offset of {@code tso.mss}. */
    public static final long TSO_MSS = NativeTypes.offset(LAYOUT, "tso.mss");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfLong WR_ID$LAYOUT = NativeTypes.member(LAYOUT, "wr_id", ValueLayout.OfLong.class);
    static final AddressLayout SG_LIST$LAYOUT = NativeTypes.member(LAYOUT, "sg_list", AddressLayout.class);
    static final ValueLayout.OfInt NUM_SGE$LAYOUT = NativeTypes.member(LAYOUT, "num_sge", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt OPCODE$LAYOUT = NativeTypes.member(LAYOUT, "opcode", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt SEND_FLAGS$LAYOUT =
            NativeTypes.member(LAYOUT, "send_flags", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt IMM_DATA$LAYOUT = NativeTypes.member(LAYOUT, "imm_data", ValueLayout.OfInt.class);
    static final ValueLayout.OfLong WR_RDMA_REMOTE_ADDR$LAYOUT =
            NativeTypes.member(LAYOUT, "wr.rdma.remote_addr", ValueLayout.OfLong.class);
    static final ValueLayout.OfInt WR_RDMA_RKEY$LAYOUT =
            NativeTypes.member(LAYOUT, "wr.rdma.rkey", ValueLayout.OfInt.class);

    /**
     * {@return {@code wr_id} ({@code uint64_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_send_wr}
     */
    public static long wrId(MemorySegment struct) {
        return struct.get(WR_ID$LAYOUT, WR_ID);
    }

    /**
     * Sets {@code wr_id} ({@code uint64_t}, unsigned).
     *
     * @param struct a {@code struct ibv_send_wr}
     * @param value the new value
     */
    public static void wrId(MemorySegment struct, long value) {
        struct.set(WR_ID$LAYOUT, WR_ID, value);
    }

    /**
     * Sets {@code sg_list} ({@code struct ibv_sge *}).
     *
     * @param struct a {@code struct ibv_send_wr}
     * @param value the new value
     */
    public static void sgList(MemorySegment struct, MemorySegment value) {
        struct.set(SG_LIST$LAYOUT, SG_LIST, value);
    }

    /**
     * Sets {@code num_sge} ({@code int}).
     *
     * @param struct a {@code struct ibv_send_wr}
     * @param value the new value
     */
    public static void numSge(MemorySegment struct, int value) {
        struct.set(NUM_SGE$LAYOUT, NUM_SGE, value);
    }

    /**
     * Sets {@code opcode} ({@code enum ibv_wr_opcode}).
     *
     * @param struct a {@code struct ibv_send_wr}
     * @param value the new value
     */
    public static void opcode(MemorySegment struct, int value) {
        struct.set(OPCODE$LAYOUT, OPCODE, value);
    }

    /**
     * {@return {@code send_flags} ({@code unsigned int}, unsigned)}
     *
     * @param struct a {@code struct ibv_send_wr}
     */
    public static int sendFlags(MemorySegment struct) {
        return struct.get(SEND_FLAGS$LAYOUT, SEND_FLAGS);
    }

    /**
     * Sets {@code send_flags} ({@code unsigned int}, unsigned).
     *
     * @param struct a {@code struct ibv_send_wr}
     * @param value the new value
     */
    public static void sendFlags(MemorySegment struct, int value) {
        struct.set(SEND_FLAGS$LAYOUT, SEND_FLAGS, value);
    }

    /**
     * Sets {@code imm_data} ({@code __be32}, network byte order).
     *
     * @param struct a {@code struct ibv_send_wr}
     * @param value the new value
     */
    public static void immData(MemorySegment struct, int value) {
        struct.set(IMM_DATA$LAYOUT, IMM_DATA, value);
    }

    /**
     * Sets {@code wr.rdma.remote_addr} ({@code uint64_t}, unsigned).
     *
     * @param struct a {@code struct ibv_send_wr}
     * @param value the new value
     */
    public static void wrRdmaRemoteAddr(MemorySegment struct, long value) {
        struct.set(WR_RDMA_REMOTE_ADDR$LAYOUT, WR_RDMA_REMOTE_ADDR, value);
    }

    /**
     * Sets {@code wr.rdma.rkey} ({@code uint32_t}, unsigned).
     *
     * @param struct a {@code struct ibv_send_wr}
     * @param value the new value
     */
    public static void wrRdmaRkey(MemorySegment struct, int value) {
        struct.set(WR_RDMA_RKEY$LAYOUT, WR_RDMA_RKEY, value);
    }

    private IbvSendWr() {
    }
}
