// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_wc} (verbs.h): one work completion, as {@code ibv_poll_cq} writes it.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type              field
 *      0    8  uint64_t            wr_id
 *      8    4  enum ibv_wc_status  status
 *     12    4  enum ibv_wc_opcode  opcode
 *     16    4  uint32_t            vendor_err
 *     20    4  uint32_t            byte_len
 *     24    4  __be32              imm_data
 *     24    4  uint32_t            invalidated_rkey
 *     28    4  uint32_t            qp_num
 *     32    4  uint32_t            src_qp
 *     36    4  unsigned int        wc_flags
 *     40    2  uint16_t            pkey_index
 *     42    2  uint16_t            slid
 *     44    1  uint8_t             sl
 *     45    1  uint8_t             dlid_path_bits
 * sizeof 48, alignof 8</pre>
 */
public final class IbvWc {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("wr_id"),
            JAVA_INT.withName("status"),
            JAVA_INT.withName("opcode"),
            JAVA_INT.withName("vendor_err"),
            JAVA_INT.withName("byte_len"),
            MemoryLayout.unionLayout(
                    JAVA_INT.withName("imm_data"),
                    JAVA_INT.withName("invalidated_rkey")),
            JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("src_qp"),
            JAVA_INT.withName("wc_flags"),
            JAVA_SHORT.withName("pkey_index"),
            JAVA_SHORT.withName("slid"),
            JAVA_BYTE.withName("sl"),
            JAVA_BYTE.withName("dlid_path_bits"),
            MemoryLayout.paddingLayout(2)).withName("struct ibv_wc");

    /** {@code sizeof(struct ibv_wc)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code wr_id}. */
    public static final long WR_ID = NativeTypes.offset(LAYOUT, "wr_id");

    /** Offset of {@code status}. */
    public static final long STATUS = NativeTypes.offset(LAYOUT, "status");

    /** Offset of {@code opcode}. */
    public static final long OPCODE = NativeTypes.offset(LAYOUT, "opcode");

    /** Offset of {@code vendor_err}. */
    public static final long VENDOR_ERR = NativeTypes.offset(LAYOUT, "vendor_err");

    /** Offset of {@code byte_len}. */
    public static final long BYTE_LEN = NativeTypes.offset(LAYOUT, "byte_len");

    /** Offset of {@code imm_data}. */
    public static final long IMM_DATA = NativeTypes.offset(LAYOUT, "imm_data");

    /** Offset of {@code invalidated_rkey}. */
    public static final long INVALIDATED_RKEY = NativeTypes.offset(LAYOUT, "invalidated_rkey");

    /** Offset of {@code qp_num}. */
    public static final long QP_NUM = NativeTypes.offset(LAYOUT, "qp_num");

    /** Offset of {@code src_qp}. */
    public static final long SRC_QP = NativeTypes.offset(LAYOUT, "src_qp");

    /** Offset of {@code wc_flags}. */
    public static final long WC_FLAGS = NativeTypes.offset(LAYOUT, "wc_flags");

    /** Offset of {@code pkey_index}. */
    public static final long PKEY_INDEX = NativeTypes.offset(LAYOUT, "pkey_index");

    /** Offset of {@code slid}. */
    public static final long SLID = NativeTypes.offset(LAYOUT, "slid");

    /** Offset of {@code sl}. */
    public static final long SL = NativeTypes.offset(LAYOUT, "sl");

    /** Offset of {@code dlid_path_bits}. */
    public static final long DLID_PATH_BITS = NativeTypes.offset(LAYOUT, "dlid_path_bits");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfLong WR_ID$LAYOUT = NativeTypes.member(LAYOUT, "wr_id", ValueLayout.OfLong.class);
    static final ValueLayout.OfInt STATUS$LAYOUT = NativeTypes.member(LAYOUT, "status", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt OPCODE$LAYOUT = NativeTypes.member(LAYOUT, "opcode", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt BYTE_LEN$LAYOUT = NativeTypes.member(LAYOUT, "byte_len", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt IMM_DATA$LAYOUT = NativeTypes.member(LAYOUT, "imm_data", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt QP_NUM$LAYOUT = NativeTypes.member(LAYOUT, "qp_num", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt WC_FLAGS$LAYOUT = NativeTypes.member(LAYOUT, "wc_flags", ValueLayout.OfInt.class);

    /**
     * {@return {@code wr_id} ({@code uint64_t}, unsigned)}
     *
     * @param array {@code struct ibv_wc} entries
     * @param index the entry
     */
    public static long wrId(MemorySegment array, long index) {
        return array.get(WR_ID$LAYOUT, index * SIZE + WR_ID);
    }

    /**
     * {@return {@code status} ({@code enum ibv_wc_status})}
     *
     * @param array {@code struct ibv_wc} entries
     * @param index the entry
     */
    public static int status(MemorySegment array, long index) {
        return array.get(STATUS$LAYOUT, index * SIZE + STATUS);
    }

    /**
     * {@return {@code opcode} ({@code enum ibv_wc_opcode})}
     *
     * @param array {@code struct ibv_wc} entries
     * @param index the entry
     */
    public static int opcode(MemorySegment array, long index) {
        return array.get(OPCODE$LAYOUT, index * SIZE + OPCODE);
    }

    /**
     * {@return {@code byte_len} ({@code uint32_t}, unsigned)}
     *
     * @param array {@code struct ibv_wc} entries
     * @param index the entry
     */
    public static int byteLen(MemorySegment array, long index) {
        return array.get(BYTE_LEN$LAYOUT, index * SIZE + BYTE_LEN);
    }

    /**
     * {@return {@code imm_data} ({@code __be32}, network byte order)}
     *
     * @param array {@code struct ibv_wc} entries
     * @param index the entry
     */
    public static int immData(MemorySegment array, long index) {
        return array.get(IMM_DATA$LAYOUT, index * SIZE + IMM_DATA);
    }

    /**
     * {@return {@code qp_num} ({@code uint32_t}, unsigned)}
     *
     * @param array {@code struct ibv_wc} entries
     * @param index the entry
     */
    public static int qpNum(MemorySegment array, long index) {
        return array.get(QP_NUM$LAYOUT, index * SIZE + QP_NUM);
    }

    /**
     * {@return {@code wc_flags} ({@code unsigned int}, unsigned)}
     *
     * @param array {@code struct ibv_wc} entries
     * @param index the entry
     */
    public static int wcFlags(MemorySegment array, long index) {
        return array.get(WC_FLAGS$LAYOUT, index * SIZE + WC_FLAGS);
    }

    private IbvWc() {
    }
}
