// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_cm_event} (rdma_cma.h): one event of {@code rdma_get_cm_event}; {@code param.conn} carries the
 * peer's private data.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type                   field
 *      0    8  struct rdma_cm_id *      id
 *      8    8  struct rdma_cm_id *      listen_id
 *     16    4  enum rdma_cm_event_type  event
 *     20    4  int                      status
 *     24   24  struct rdma_conn_param   param.conn
 *     24   56  struct rdma_ud_param     param.ud
 * sizeof 80, alignof 8</pre>
 */
public final class RdmaCmEvent {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("id"),
            ADDRESS.withName("listen_id"),
            JAVA_INT.withName("event"),
            JAVA_INT.withName("status"),
            MemoryLayout.unionLayout(
                    RdmaConnParam.LAYOUT.withName("conn"),
                    RdmaUdParam.LAYOUT.withName("ud")).withName("param")).withName("struct rdma_cm_event");

    /** {@code sizeof(struct rdma_cm_event)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code id}. */
    public static final long ID = NativeTypes.offset(LAYOUT, "id");

    /** Offset of {@code listen_id}. */
    public static final long LISTEN_ID = NativeTypes.offset(LAYOUT, "listen_id");

    /** Offset of {@code event}. */
    public static final long EVENT = NativeTypes.offset(LAYOUT, "event");

    /** Offset of {@code status}. */
    public static final long STATUS = NativeTypes.offset(LAYOUT, "status");

    /** Offset of {@code param.conn}. */
    public static final long PARAM_CONN = NativeTypes.offset(LAYOUT, "param.conn");

    /** Offset of {@code param.ud}. */
    public static final long PARAM_UD = NativeTypes.offset(LAYOUT, "param.ud");

    /** Offset of {@code param.conn.private_data}. */
    public static final long PARAM_CONN_PRIVATE_DATA = NativeTypes.offset(LAYOUT, "param.conn.private_data");

    /** Offset of {@code param.conn.private_data_len}. */
    public static final long PARAM_CONN_PRIVATE_DATA_LEN = NativeTypes.offset(LAYOUT, "param.conn.private_data_len");

    /** Offset of {@code param.conn.responder_resources}. */
    public static final long PARAM_CONN_RESPONDER_RESOURCES =
            NativeTypes.offset(LAYOUT, "param.conn.responder_resources");

    /** Offset of {@code param.conn.initiator_depth}. */
    public static final long PARAM_CONN_INITIATOR_DEPTH = NativeTypes.offset(LAYOUT, "param.conn.initiator_depth");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final AddressLayout ID$LAYOUT = NativeTypes.member(LAYOUT, "id", AddressLayout.class);
    static final AddressLayout LISTEN_ID$LAYOUT = NativeTypes.member(LAYOUT, "listen_id", AddressLayout.class);
    static final ValueLayout.OfInt EVENT$LAYOUT = NativeTypes.member(LAYOUT, "event", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt STATUS$LAYOUT = NativeTypes.member(LAYOUT, "status", ValueLayout.OfInt.class);
    static final AddressLayout PARAM_CONN_PRIVATE_DATA$LAYOUT =
            NativeTypes.member(LAYOUT, "param.conn.private_data", AddressLayout.class);
    static final ValueLayout.OfByte PARAM_CONN_PRIVATE_DATA_LEN$LAYOUT =
            NativeTypes.member(LAYOUT, "param.conn.private_data_len", ValueLayout.OfByte.class);
    static final ValueLayout.OfByte PARAM_CONN_RESPONDER_RESOURCES$LAYOUT =
            NativeTypes.member(LAYOUT, "param.conn.responder_resources", ValueLayout.OfByte.class);
    static final ValueLayout.OfByte PARAM_CONN_INITIATOR_DEPTH$LAYOUT =
            NativeTypes.member(LAYOUT, "param.conn.initiator_depth", ValueLayout.OfByte.class);

    /**
     * {@return {@code id} ({@code struct rdma_cm_id *}), a zero-length segment}
     *
     * @param struct a {@code struct rdma_cm_event}
     */
    public static MemorySegment id(MemorySegment struct) {
        return struct.get(ID$LAYOUT, ID);
    }

    /**
     * {@return {@code listen_id} ({@code struct rdma_cm_id *}), a zero-length segment}
     *
     * @param struct a {@code struct rdma_cm_event}
     */
    public static MemorySegment listenId(MemorySegment struct) {
        return struct.get(LISTEN_ID$LAYOUT, LISTEN_ID);
    }

    /**
     * {@return {@code event} ({@code enum rdma_cm_event_type})}
     *
     * @param struct a {@code struct rdma_cm_event}
     */
    public static int event(MemorySegment struct) {
        return struct.get(EVENT$LAYOUT, EVENT);
    }

    /**
     * {@return {@code status} ({@code int})}
     *
     * @param struct a {@code struct rdma_cm_event}
     */
    public static int status(MemorySegment struct) {
        return struct.get(STATUS$LAYOUT, STATUS);
    }

    /**
     * {@return {@code param.conn.private_data} ({@code const void *}), a zero-length segment}
     *
     * @param struct a {@code struct rdma_cm_event}
     */
    public static MemorySegment paramConnPrivateData(MemorySegment struct) {
        return struct.get(PARAM_CONN_PRIVATE_DATA$LAYOUT, PARAM_CONN_PRIVATE_DATA);
    }

    /**
     * {@return {@code param.conn.private_data_len} ({@code uint8_t}, unsigned)}
     *
     * @param struct a {@code struct rdma_cm_event}
     */
    public static byte paramConnPrivateDataLen(MemorySegment struct) {
        return struct.get(PARAM_CONN_PRIVATE_DATA_LEN$LAYOUT, PARAM_CONN_PRIVATE_DATA_LEN);
    }

    /**
     * {@return {@code param.conn.responder_resources} ({@code uint8_t}, unsigned)}
     *
     * @param struct a {@code struct rdma_cm_event}
     */
    public static byte paramConnResponderResources(MemorySegment struct) {
        return struct.get(PARAM_CONN_RESPONDER_RESOURCES$LAYOUT, PARAM_CONN_RESPONDER_RESOURCES);
    }

    /**
     * {@return {@code param.conn.initiator_depth} ({@code uint8_t}, unsigned)}
     *
     * @param struct a {@code struct rdma_cm_event}
     */
    public static byte paramConnInitiatorDepth(MemorySegment struct) {
        return struct.get(PARAM_CONN_INITIATOR_DEPTH$LAYOUT, PARAM_CONN_INITIATOR_DEPTH);
    }

    private RdmaCmEvent() {
    }
}
