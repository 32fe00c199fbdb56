// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_cm_id} (rdma_cma.h): an rdma_cm communication identifier (DAT EP connection, PSP listener).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type                       field
 *      0    8  struct ibv_context *         verbs
 *      8    8  struct rdma_event_channel *  channel
 *     16    8  void *                       context
 *     24    8  struct ibv_qp *              qp
 *     32  312  struct rdma_route            route
 *    344    4  enum rdma_port_space         ps
 *    348    1  uint8_t                      port_num
 *    352    8  struct rdma_cm_event *       event
 *    360    8  struct ibv_comp_channel *    send_cq_channel
 *    368    8  struct ibv_cq *              send_cq
 *    376    8  struct ibv_comp_channel *    recv_cq_channel
 *    384    8  struct ibv_cq *              recv_cq
 *    392    8  struct ibv_srq *             srq
 *    400    8  struct ibv_pd *              pd
 *    408    4  enum ibv_qp_type             qp_type
 * sizeof 416, alignof 8</pre>
 */
public final class RdmaCmId {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("verbs"),
            ADDRESS.withName("channel"),
            ADDRESS.withName("context"),
            ADDRESS.withName("qp"),
            RdmaRoute.LAYOUT.withName("route"),
            JAVA_INT.withName("ps"),
            JAVA_BYTE.withName("port_num"),
            MemoryLayout.paddingLayout(3),
            ADDRESS.withName("event"),
            ADDRESS.withName("send_cq_channel"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq_channel"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            ADDRESS.withName("pd"),
            JAVA_INT.withName("qp_type"),
            MemoryLayout.paddingLayout(4)).withName("struct rdma_cm_id");

    /** {@code sizeof(struct rdma_cm_id)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code verbs}. */
    public static final long VERBS = NativeTypes.offset(LAYOUT, "verbs");

    /** Offset of {@code channel}. */
    public static final long CHANNEL = NativeTypes.offset(LAYOUT, "channel");

    /** Offset of {@code context}. */
    public static final long CONTEXT = NativeTypes.offset(LAYOUT, "context");

    /** Offset of {@code qp}. */
    public static final long QP = NativeTypes.offset(LAYOUT, "qp");

    /** Offset of {@code route}. */
    public static final long ROUTE = NativeTypes.offset(LAYOUT, "route");

    /** Offset of {@code ps}. */
    public static final long PS = NativeTypes.offset(LAYOUT, "ps");

    /** Offset of {@code port_num}. */
    public static final long PORT_NUM = NativeTypes.offset(LAYOUT, "port_num");

    /** Offset of {@code event}. */
    public static final long EVENT = NativeTypes.offset(LAYOUT, "event");

    /** Offset of {@code send_cq_channel}. */
    public static final long SEND_CQ_CHANNEL = NativeTypes.offset(LAYOUT, "send_cq_channel");

    /** Offset of {@code send_cq}. */
    public static final long SEND_CQ = NativeTypes.offset(LAYOUT, "send_cq");

    /** Offset of {@code recv_cq_channel}. */
    public static final long RECV_CQ_CHANNEL = NativeTypes.offset(LAYOUT, "recv_cq_channel");

    /** Offset of {@code recv_cq}. */
    public static final long RECV_CQ = NativeTypes.offset(LAYOUT, "recv_cq");

    /** Offset of {@code srq}. */
    public static final long SRQ = NativeTypes.offset(LAYOUT, "srq");

    /** Offset of {@code pd}. */
    public static final long PD = NativeTypes.offset(LAYOUT, "pd");

    /** Offset of {@code qp_type}. */
    public static final long QP_TYPE = NativeTypes.offset(LAYOUT, "qp_type");

    /** Offset of {@code route.addr.dst_addr.sa_family}. */
    public static final long ROUTE_ADDR_DST_ADDR_SA_FAMILY =
            NativeTypes.offset(LAYOUT, "route.addr.dst_addr.sa_family");

    /** Offset of {@code route.addr.dst_sin.sin_addr}. */
    public static final long ROUTE_ADDR_DST_SIN_SIN_ADDR = NativeTypes.offset(LAYOUT, "route.addr.dst_sin.sin_addr");

    /** Offset of {@code route.addr.dst_sin6.sin6_addr}. */
    public static final long ROUTE_ADDR_DST_SIN6_SIN6_ADDR =
            NativeTypes.offset(LAYOUT, "route.addr.dst_sin6.sin6_addr");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final AddressLayout VERBS$LAYOUT = NativeTypes.member(LAYOUT, "verbs", AddressLayout.class);
    static final AddressLayout CONTEXT$LAYOUT = NativeTypes.member(LAYOUT, "context", AddressLayout.class);
    static final ValueLayout.OfShort ROUTE_ADDR_DST_ADDR_SA_FAMILY$LAYOUT =
            NativeTypes.member(LAYOUT, "route.addr.dst_addr.sa_family", ValueLayout.OfShort.class);
    static final SequenceLayout ROUTE_ADDR_DST_SIN_SIN_ADDR$LAYOUT =
            NativeTypes.member(LAYOUT, "route.addr.dst_sin.sin_addr", SequenceLayout.class);
    static final SequenceLayout ROUTE_ADDR_DST_SIN6_SIN6_ADDR$LAYOUT =
            NativeTypes.member(LAYOUT, "route.addr.dst_sin6.sin6_addr", SequenceLayout.class);

    /**
     * {@return {@code verbs} ({@code struct ibv_context *}), a zero-length segment}
     *
     * @param struct a {@code struct rdma_cm_id}
     */
    public static MemorySegment verbs(MemorySegment struct) {
        return struct.get(VERBS$LAYOUT, VERBS);
    }

    /**
     * {@return {@code context} ({@code void *}), a zero-length segment}
     *
     * @param struct a {@code struct rdma_cm_id}
     */
    public static MemorySegment context(MemorySegment struct) {
        return struct.get(CONTEXT$LAYOUT, CONTEXT);
    }

    /**
     * Sets {@code context} ({@code void *}).
     *
     * @param struct a {@code struct rdma_cm_id}
     * @param value the new value
     */
    public static void context(MemorySegment struct, MemorySegment value) {
        struct.set(CONTEXT$LAYOUT, CONTEXT, value);
    }

    /**
     * {@return {@code route.addr.dst_addr.sa_family} ({@code sa_family_t}, unsigned)}
     *
     * @param struct a {@code struct rdma_cm_id}
     */
    public static short routeAddrDstAddrSaFamily(MemorySegment struct) {
        return struct.get(ROUTE_ADDR_DST_ADDR_SA_FAMILY$LAYOUT, ROUTE_ADDR_DST_ADDR_SA_FAMILY);
    }

    /**
     * {@return {@code route.addr.dst_sin.sin_addr} ({@code struct in_addr}),
     *     its bytes in place: a slice of {@code struct}}
     *
     * @param struct a {@code struct rdma_cm_id}
     */
    public static MemorySegment routeAddrDstSinSinAddr(MemorySegment struct) {
        return struct.asSlice(ROUTE_ADDR_DST_SIN_SIN_ADDR, ROUTE_ADDR_DST_SIN_SIN_ADDR$LAYOUT.byteSize());
    }

    /**
     * {@return {@code route.addr.dst_sin6.sin6_addr} ({@code struct in6_addr}),
     *     its bytes in place: a slice of {@code struct}}
     *
     * @param struct a {@code struct rdma_cm_id}
     */
    public static MemorySegment routeAddrDstSin6Sin6Addr(MemorySegment struct) {
        return struct.asSlice(ROUTE_ADDR_DST_SIN6_SIN6_ADDR, ROUTE_ADDR_DST_SIN6_SIN6_ADDR$LAYOUT.byteSize());
    }

    private RdmaCmId() {
    }
}
