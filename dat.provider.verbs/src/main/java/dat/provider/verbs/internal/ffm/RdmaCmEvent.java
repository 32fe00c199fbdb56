// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

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

    private RdmaCmEvent() {
    }
}
