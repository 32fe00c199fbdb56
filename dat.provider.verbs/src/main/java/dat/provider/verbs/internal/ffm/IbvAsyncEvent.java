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
 * {@code struct ibv_async_event} (verbs.h): one event of {@code ibv_get_async_event} (DAT async EVD).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type               field
 *      0    8  struct ibv_cq *      element.cq
 *      0    8  struct ibv_qp *      element.qp
 *      0    8  struct ibv_srq *     element.srq
 *      0    8  struct ibv_wq *      element.wq
 *      0    4  int                  element.port_num
 *      8    4  enum ibv_event_type  event_type
 * sizeof 16, alignof 8</pre>
 */
public final class IbvAsyncEvent {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            MemoryLayout.unionLayout(
                    ADDRESS.withName("cq"),
                    ADDRESS.withName("qp"),
                    ADDRESS.withName("srq"),
                    ADDRESS.withName("wq"),
                    JAVA_INT.withName("port_num")).withName("element"),
            JAVA_INT.withName("event_type"),
            MemoryLayout.paddingLayout(4)).withName("struct ibv_async_event");

    /** {@code sizeof(struct ibv_async_event)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code element.cq}. */
    public static final long ELEMENT_CQ = NativeTypes.offset(LAYOUT, "element.cq");

    /** Offset of {@code element.qp}. */
    public static final long ELEMENT_QP = NativeTypes.offset(LAYOUT, "element.qp");

    /** Offset of {@code element.srq}. */
    public static final long ELEMENT_SRQ = NativeTypes.offset(LAYOUT, "element.srq");

    /** Offset of {@code element.wq}. */
    public static final long ELEMENT_WQ = NativeTypes.offset(LAYOUT, "element.wq");

    /** Offset of {@code element.port_num}. */
    public static final long ELEMENT_PORT_NUM = NativeTypes.offset(LAYOUT, "element.port_num");

    /** Offset of {@code event_type}. */
    public static final long EVENT_TYPE = NativeTypes.offset(LAYOUT, "event_type");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final AddressLayout ELEMENT_QP$LAYOUT = NativeTypes.member(LAYOUT, "element.qp", AddressLayout.class);
    static final ValueLayout.OfInt EVENT_TYPE$LAYOUT =
            NativeTypes.member(LAYOUT, "event_type", ValueLayout.OfInt.class);

    /**
     * {@return {@code element.qp} ({@code struct ibv_qp *}), a zero-length segment}
     *
     * @param struct a {@code struct ibv_async_event}
     */
    public static MemorySegment elementQp(MemorySegment struct) {
        return struct.get(ELEMENT_QP$LAYOUT, ELEMENT_QP);
    }

    /**
     * {@return {@code event_type} ({@code enum ibv_event_type})}
     *
     * @param struct a {@code struct ibv_async_event}
     */
    public static int eventType(MemorySegment struct) {
        return struct.get(EVENT_TYPE$LAYOUT, EVENT_TYPE);
    }

    private IbvAsyncEvent() {
    }
}
