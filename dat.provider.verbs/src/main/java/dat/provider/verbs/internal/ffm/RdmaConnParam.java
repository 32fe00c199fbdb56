// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_conn_param} (rdma_cma.h): connection parameters of {@code rdma_connect} / {@code rdma_accept} and
 * of connection events.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type        field
 *      0    8  const void *  private_data
 *      8    1  uint8_t       private_data_len
 *      9    1  uint8_t       responder_resources
 *     10    1  uint8_t       initiator_depth
 *     11    1  uint8_t       flow_control
 *     12    1  uint8_t       retry_count
 *     13    1  uint8_t       rnr_retry_count
 *     14    1  uint8_t       srq
 *     16    4  uint32_t      qp_num
 * sizeof 24, alignof 8</pre>
 */
public final class RdmaConnParam {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("private_data"),
            JAVA_BYTE.withName("private_data_len"),
            JAVA_BYTE.withName("responder_resources"),
            JAVA_BYTE.withName("initiator_depth"),
            JAVA_BYTE.withName("flow_control"),
            JAVA_BYTE.withName("retry_count"),
            JAVA_BYTE.withName("rnr_retry_count"),
            JAVA_BYTE.withName("srq"),
            MemoryLayout.paddingLayout(1),
            JAVA_INT.withName("qp_num"),
            MemoryLayout.paddingLayout(4)).withName("struct rdma_conn_param");

    /** {@code sizeof(struct rdma_conn_param)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code private_data}. */
    public static final long PRIVATE_DATA = NativeTypes.offset(LAYOUT, "private_data");

    /** Offset of {@code private_data_len}. */
    public static final long PRIVATE_DATA_LEN = NativeTypes.offset(LAYOUT, "private_data_len");

    /** Offset of {@code responder_resources}. */
    public static final long RESPONDER_RESOURCES = NativeTypes.offset(LAYOUT, "responder_resources");

    /** Offset of {@code initiator_depth}. */
    public static final long INITIATOR_DEPTH = NativeTypes.offset(LAYOUT, "initiator_depth");

    /** Offset of {@code flow_control}. */
    public static final long FLOW_CONTROL = NativeTypes.offset(LAYOUT, "flow_control");

    /** Offset of {@code retry_count}. */
    public static final long RETRY_COUNT = NativeTypes.offset(LAYOUT, "retry_count");

    /** Offset of {@code rnr_retry_count}. */
    public static final long RNR_RETRY_COUNT = NativeTypes.offset(LAYOUT, "rnr_retry_count");

    /** Offset of {@code srq}. */
    public static final long SRQ = NativeTypes.offset(LAYOUT, "srq");

    /** Offset of {@code qp_num}. */
    public static final long QP_NUM = NativeTypes.offset(LAYOUT, "qp_num");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final AddressLayout PRIVATE_DATA$LAYOUT = NativeTypes.member(LAYOUT, "private_data", AddressLayout.class);
    static final ValueLayout.OfByte PRIVATE_DATA_LEN$LAYOUT =
            NativeTypes.member(LAYOUT, "private_data_len", ValueLayout.OfByte.class);
    static final ValueLayout.OfByte RESPONDER_RESOURCES$LAYOUT =
            NativeTypes.member(LAYOUT, "responder_resources", ValueLayout.OfByte.class);
    static final ValueLayout.OfByte INITIATOR_DEPTH$LAYOUT =
            NativeTypes.member(LAYOUT, "initiator_depth", ValueLayout.OfByte.class);
    static final ValueLayout.OfByte FLOW_CONTROL$LAYOUT =
            NativeTypes.member(LAYOUT, "flow_control", ValueLayout.OfByte.class);
    static final ValueLayout.OfByte RETRY_COUNT$LAYOUT =
            NativeTypes.member(LAYOUT, "retry_count", ValueLayout.OfByte.class);
    static final ValueLayout.OfByte RNR_RETRY_COUNT$LAYOUT =
            NativeTypes.member(LAYOUT, "rnr_retry_count", ValueLayout.OfByte.class);
    static final ValueLayout.OfByte SRQ$LAYOUT = NativeTypes.member(LAYOUT, "srq", ValueLayout.OfByte.class);
    static final ValueLayout.OfInt QP_NUM$LAYOUT = NativeTypes.member(LAYOUT, "qp_num", ValueLayout.OfInt.class);

    /**
     * Sets {@code private_data} ({@code const void *}).
     *
     * @param struct a {@code struct rdma_conn_param}
     * @param value the new value
     */
    public static void privateData(MemorySegment struct, MemorySegment value) {
        struct.set(PRIVATE_DATA$LAYOUT, PRIVATE_DATA, value);
    }

    /**
     * Sets {@code private_data_len} ({@code uint8_t}, unsigned).
     *
     * @param struct a {@code struct rdma_conn_param}
     * @param value the new value
     */
    public static void privateDataLen(MemorySegment struct, byte value) {
        struct.set(PRIVATE_DATA_LEN$LAYOUT, PRIVATE_DATA_LEN, value);
    }

    /**
     * Sets {@code responder_resources} ({@code uint8_t}, unsigned).
     *
     * @param struct a {@code struct rdma_conn_param}
     * @param value the new value
     */
    public static void responderResources(MemorySegment struct, byte value) {
        struct.set(RESPONDER_RESOURCES$LAYOUT, RESPONDER_RESOURCES, value);
    }

    /**
     * Sets {@code initiator_depth} ({@code uint8_t}, unsigned).
     *
     * @param struct a {@code struct rdma_conn_param}
     * @param value the new value
     */
    public static void initiatorDepth(MemorySegment struct, byte value) {
        struct.set(INITIATOR_DEPTH$LAYOUT, INITIATOR_DEPTH, value);
    }

    /**
     * Sets {@code flow_control} ({@code uint8_t}, unsigned).
     *
     * @param struct a {@code struct rdma_conn_param}
     * @param value the new value
     */
    public static void flowControl(MemorySegment struct, byte value) {
        struct.set(FLOW_CONTROL$LAYOUT, FLOW_CONTROL, value);
    }

    /**
     * Sets {@code retry_count} ({@code uint8_t}, unsigned).
     *
     * @param struct a {@code struct rdma_conn_param}
     * @param value the new value
     */
    public static void retryCount(MemorySegment struct, byte value) {
        struct.set(RETRY_COUNT$LAYOUT, RETRY_COUNT, value);
    }

    /**
     * Sets {@code rnr_retry_count} ({@code uint8_t}, unsigned).
     *
     * @param struct a {@code struct rdma_conn_param}
     * @param value the new value
     */
    public static void rnrRetryCount(MemorySegment struct, byte value) {
        struct.set(RNR_RETRY_COUNT$LAYOUT, RNR_RETRY_COUNT, value);
    }

    /**
     * Sets {@code srq} ({@code uint8_t}, unsigned).
     *
     * @param struct a {@code struct rdma_conn_param}
     * @param value the new value
     */
    public static void srq(MemorySegment struct, byte value) {
        struct.set(SRQ$LAYOUT, SRQ, value);
    }

    /**
     * Sets {@code qp_num} ({@code uint32_t}, unsigned).
     *
     * @param struct a {@code struct rdma_conn_param}
     * @param value the new value
     */
    public static void qpNum(MemorySegment struct, int value) {
        struct.set(QP_NUM$LAYOUT, QP_NUM, value);
    }

    private RdmaConnParam() {
    }
}
