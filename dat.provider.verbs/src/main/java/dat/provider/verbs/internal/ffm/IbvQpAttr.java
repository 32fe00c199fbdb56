// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_qp_attr} (verbs.h): the argument of {@code ibv_modify_qp} / {@code ibv_query_qp}.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type              field
 *      0    4  enum ibv_qp_state   qp_state
 *      4    4  enum ibv_qp_state   cur_qp_state
 *      8    4  enum ibv_mtu        path_mtu
 *     12    4  enum ibv_mig_state  path_mig_state
 *     16    4  uint32_t            qkey
 *     20    4  uint32_t            rq_psn
 *     24    4  uint32_t            sq_psn
 *     28    4  uint32_t            dest_qp_num
 *     32    4  unsigned int        qp_access_flags
 *     36   20  struct ibv_qp_cap   cap
 *     56   32  struct ibv_ah_attr  ah_attr
 *     88   32  struct ibv_ah_attr  alt_ah_attr
 *    120    2  uint16_t            pkey_index
 *    122    2  uint16_t            alt_pkey_index
 *    124    1  uint8_t             en_sqd_async_notify
 *    125    1  uint8_t             sq_draining
 *    126    1  uint8_t             max_rd_atomic
 *    127    1  uint8_t             max_dest_rd_atomic
 *    128    1  uint8_t             min_rnr_timer
 *    129    1  uint8_t             port_num
 *    130    1  uint8_t             timeout
 *    131    1  uint8_t             retry_cnt
 *    132    1  uint8_t             rnr_retry
 *    133    1  uint8_t             alt_port_num
 *    134    1  uint8_t             alt_timeout
 *    136    4  uint32_t            rate_limit
 * sizeof 144, alignof 8</pre>
 */
public final class IbvQpAttr {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("qp_state"),
            JAVA_INT.withName("cur_qp_state"),
            JAVA_INT.withName("path_mtu"),
            JAVA_INT.withName("path_mig_state"),
            JAVA_INT.withName("qkey"),
            JAVA_INT.withName("rq_psn"),
            JAVA_INT.withName("sq_psn"),
            JAVA_INT.withName("dest_qp_num"),
            JAVA_INT.withName("qp_access_flags"),
            IbvQpCap.LAYOUT.withName("cap"),
            IbvAhAttr.LAYOUT.withName("ah_attr"),
            IbvAhAttr.LAYOUT.withName("alt_ah_attr"),
            JAVA_SHORT.withName("pkey_index"),
            JAVA_SHORT.withName("alt_pkey_index"),
            JAVA_BYTE.withName("en_sqd_async_notify"),
            JAVA_BYTE.withName("sq_draining"),
            JAVA_BYTE.withName("max_rd_atomic"),
            JAVA_BYTE.withName("max_dest_rd_atomic"),
            JAVA_BYTE.withName("min_rnr_timer"),
            JAVA_BYTE.withName("port_num"),
            JAVA_BYTE.withName("timeout"),
            JAVA_BYTE.withName("retry_cnt"),
            JAVA_BYTE.withName("rnr_retry"),
            JAVA_BYTE.withName("alt_port_num"),
            JAVA_BYTE.withName("alt_timeout"),
            MemoryLayout.paddingLayout(1),
            JAVA_INT.withName("rate_limit"),
            MemoryLayout.paddingLayout(4)).withName("struct ibv_qp_attr");

    /** {@code sizeof(struct ibv_qp_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code qp_state}. */
    public static final long QP_STATE = NativeTypes.offset(LAYOUT, "qp_state");

    /** Offset of {@code cur_qp_state}. */
    public static final long CUR_QP_STATE = NativeTypes.offset(LAYOUT, "cur_qp_state");

    /** Offset of {@code path_mtu}. */
    public static final long PATH_MTU = NativeTypes.offset(LAYOUT, "path_mtu");

    /** Offset of {@code path_mig_state}. */
    public static final long PATH_MIG_STATE = NativeTypes.offset(LAYOUT, "path_mig_state");

    /** Offset of {@code qkey}. */
    public static final long QKEY = NativeTypes.offset(LAYOUT, "qkey");

    /** Offset of {@code rq_psn}. */
    public static final long RQ_PSN = NativeTypes.offset(LAYOUT, "rq_psn");

    /** Offset of {@code sq_psn}. */
    public static final long SQ_PSN = NativeTypes.offset(LAYOUT, "sq_psn");

    /** Offset of {@code dest_qp_num}. */
    public static final long DEST_QP_NUM = NativeTypes.offset(LAYOUT, "dest_qp_num");

    /** Offset of {@code qp_access_flags}. */
    public static final long QP_ACCESS_FLAGS = NativeTypes.offset(LAYOUT, "qp_access_flags");

    /** Offset of {@code cap}. */
    public static final long CAP = NativeTypes.offset(LAYOUT, "cap");

    /** Offset of {@code ah_attr}. */
    public static final long AH_ATTR = NativeTypes.offset(LAYOUT, "ah_attr");

    /** Offset of {@code alt_ah_attr}. */
    public static final long ALT_AH_ATTR = NativeTypes.offset(LAYOUT, "alt_ah_attr");

    /** Offset of {@code pkey_index}. */
    public static final long PKEY_INDEX = NativeTypes.offset(LAYOUT, "pkey_index");

    /** Offset of {@code alt_pkey_index}. */
    public static final long ALT_PKEY_INDEX = NativeTypes.offset(LAYOUT, "alt_pkey_index");

    /** Offset of {@code en_sqd_async_notify}. */
    public static final long EN_SQD_ASYNC_NOTIFY = NativeTypes.offset(LAYOUT, "en_sqd_async_notify");

    /** Offset of {@code sq_draining}. */
    public static final long SQ_DRAINING = NativeTypes.offset(LAYOUT, "sq_draining");

    /** Offset of {@code max_rd_atomic}. */
    public static final long MAX_RD_ATOMIC = NativeTypes.offset(LAYOUT, "max_rd_atomic");

    /** Offset of {@code max_dest_rd_atomic}. */
    public static final long MAX_DEST_RD_ATOMIC = NativeTypes.offset(LAYOUT, "max_dest_rd_atomic");

    /** Offset of {@code min_rnr_timer}. */
    public static final long MIN_RNR_TIMER = NativeTypes.offset(LAYOUT, "min_rnr_timer");

    /** Offset of {@code port_num}. */
    public static final long PORT_NUM = NativeTypes.offset(LAYOUT, "port_num");

    /** Offset of {@code timeout}. */
    public static final long TIMEOUT = NativeTypes.offset(LAYOUT, "timeout");

    /** Offset of {@code retry_cnt}. */
    public static final long RETRY_CNT = NativeTypes.offset(LAYOUT, "retry_cnt");

    /** Offset of {@code rnr_retry}. */
    public static final long RNR_RETRY = NativeTypes.offset(LAYOUT, "rnr_retry");

    /** Offset of {@code alt_port_num}. */
    public static final long ALT_PORT_NUM = NativeTypes.offset(LAYOUT, "alt_port_num");

    /** Offset of {@code alt_timeout}. */
    public static final long ALT_TIMEOUT = NativeTypes.offset(LAYOUT, "alt_timeout");

    /** Offset of {@code rate_limit}. */
    public static final long RATE_LIMIT = NativeTypes.offset(LAYOUT, "rate_limit");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfInt QP_STATE$LAYOUT = NativeTypes.member(LAYOUT, "qp_state", ValueLayout.OfInt.class);
    static final ValueLayout.OfByte PORT_NUM$LAYOUT = NativeTypes.member(LAYOUT, "port_num", ValueLayout.OfByte.class);
    static final ValueLayout.OfInt QP_ACCESS_FLAGS$LAYOUT =
            NativeTypes.member(LAYOUT, "qp_access_flags", ValueLayout.OfInt.class);
    static final ValueLayout.OfByte TIMEOUT$LAYOUT = NativeTypes.member(LAYOUT, "timeout", ValueLayout.OfByte.class);

    /**
     * Sets {@code qp_state} ({@code enum ibv_qp_state}).
     *
     * @param struct a {@code struct ibv_qp_attr}
     * @param value the new value
     */
    public static void qpState(MemorySegment struct, int value) {
        struct.set(QP_STATE$LAYOUT, QP_STATE, value);
    }

    /**
     * Sets {@code port_num} ({@code uint8_t}, unsigned).
     *
     * @param struct a {@code struct ibv_qp_attr}
     * @param value the new value
     */
    public static void portNum(MemorySegment struct, byte value) {
        struct.set(PORT_NUM$LAYOUT, PORT_NUM, value);
    }

    /**
     * Sets {@code qp_access_flags} ({@code unsigned int}, unsigned).
     *
     * @param struct a {@code struct ibv_qp_attr}
     * @param value the new value
     */
    public static void qpAccessFlags(MemorySegment struct, int value) {
        struct.set(QP_ACCESS_FLAGS$LAYOUT, QP_ACCESS_FLAGS, value);
    }

    /**
     * Sets {@code timeout} ({@code uint8_t}, unsigned).
     *
     * @param struct a {@code struct ibv_qp_attr}
     * @param value the new value
     */
    public static void timeout(MemorySegment struct, byte value) {
        struct.set(TIMEOUT$LAYOUT, TIMEOUT, value);
    }

    private IbvQpAttr() {
    }
}
