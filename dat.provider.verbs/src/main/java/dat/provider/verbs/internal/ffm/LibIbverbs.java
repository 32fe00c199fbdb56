// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.spi.NativeEnvironment;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Bindings to {@code libibverbs.so.1} (rdma-core), named after the C functions, as jextract would name them.
 *
 * <p>Three kinds of binding, because verbs.h is not all exported functions:
 * <ul>
 * <li><b>Exported symbols</b>: one {@link NativeFunction} field per function (found at load, linked at its
 *     first call), named after it, with a typed method
 *     of the same name that passes this thread's errno capture segment and throws {@link NativeCallException}
 *     on failure (the control path). The dynamic loader resolves the default symbol version
 *     ({@code @@IBVERBS_1.1}).</li>
 * <li><b>Macros over exported symbols</b>: verbs.h turns {@code ibv_query_port} into the inline
 *     {@code ___ibv_query_port}, which zeroes a full {@code struct ibv_port_attr} and, on contexts without the
 *     extended op, calls the exported {@code ibv_query_port}; {@link #ibv_query_port} does exactly that (a
 *     full-size buffer is always large enough for the older, shorter struct the symbol is declared with).
 *     {@code ibv_reg_mr} is a macro that calls the exported {@code ibv_reg_mr} unless an
 *     {@code IBV_ACCESS_OPTIONAL_RANGE} flag is passed; jDAT passes none, so it binds the symbol.</li>
 * <li><b>{@code static inline} functions over the ops table</b> ({@code ibv_post_send}, {@code ibv_post_recv},
 *     {@code ibv_post_srq_recv}, {@code ibv_poll_cq}, {@code ibv_req_notify_cq}, {@code ibv_alloc_mw},
 *     {@code ibv_dealloc_mw}, {@code ibv_bind_mw}): no symbol exists; {@link IbvOps} re-implements them by
 *     calling the function pointers of {@code ibv_context.ops}.</li>
 * </ul>
 *
 * <p>The library is loaded lazily by {@link #load()}, never in a static initializer, and only after the
 * provider has checked that its module has native access (so a JVM without
 * {@code --enable-native-access=dat.provider.verbs} never reaches a restricted method and prints no warning).
 * The downcalls keep the arenas of their segment arguments alive for the call; callers that own native
 * memory through a Java object fence that object after the call ({@link java.lang.ref.Reference#reachabilityFence}).
 */
// Restricted methods on purpose: reached only after VerbsProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
public final class LibIbverbs {

    /** The soname this class binds. */
    public static final String LIBRARY = "libibverbs.so.1";

    // enum ibv_node_type / ibv_transport_type
    /** {@code IBV_NODE_CA}. */
    public static final int IBV_NODE_CA = 1;
    /** {@code IBV_NODE_RNIC}. */
    public static final int IBV_NODE_RNIC = 4;
    /** {@code IBV_TRANSPORT_IB}. */
    public static final int IBV_TRANSPORT_IB = 0;
    /** {@code IBV_TRANSPORT_IWARP}. */
    public static final int IBV_TRANSPORT_IWARP = 1;

    // device_cap_flags
    /** {@code IBV_DEVICE_SRQ_RESIZE}. */
    public static final int IBV_DEVICE_SRQ_RESIZE = 1 << 13;
    /** {@code IBV_DEVICE_MEM_WINDOW}. */
    public static final int IBV_DEVICE_MEM_WINDOW = 1 << 17;

    // enum ibv_atomic_cap
    /** {@code IBV_ATOMIC_NONE}. */
    public static final int IBV_ATOMIC_NONE = 0;
    /** {@code IBV_ATOMIC_HCA}. */
    public static final int IBV_ATOMIC_HCA = 1;
    /** {@code IBV_ATOMIC_GLOB}. */
    public static final int IBV_ATOMIC_GLOB = 2;

    // enum ibv_port_state
    /** {@code IBV_PORT_NOP}. */
    public static final int IBV_PORT_NOP = 0;
    /** {@code IBV_PORT_DOWN}. */
    public static final int IBV_PORT_DOWN = 1;
    /** {@code IBV_PORT_INIT}. */
    public static final int IBV_PORT_INIT = 2;
    /** {@code IBV_PORT_ARMED}. */
    public static final int IBV_PORT_ARMED = 3;
    /** {@code IBV_PORT_ACTIVE}. */
    public static final int IBV_PORT_ACTIVE = 4;
    /** {@code IBV_PORT_ACTIVE_DEFER}. */
    public static final int IBV_PORT_ACTIVE_DEFER = 5;

    // link_layer
    /** {@code IBV_LINK_LAYER_UNSPECIFIED}. */
    public static final int IBV_LINK_LAYER_UNSPECIFIED = 0;
    /** {@code IBV_LINK_LAYER_INFINIBAND}. */
    public static final int IBV_LINK_LAYER_INFINIBAND = 1;
    /** {@code IBV_LINK_LAYER_ETHERNET}. */
    public static final int IBV_LINK_LAYER_ETHERNET = 2;

    // enum ibv_mtu
    /** {@code IBV_MTU_256}. */
    public static final int IBV_MTU_256 = 1;
    /** {@code IBV_MTU_512}. */
    public static final int IBV_MTU_512 = 2;
    /** {@code IBV_MTU_1024}. */
    public static final int IBV_MTU_1024 = 3;
    /** {@code IBV_MTU_2048}. */
    public static final int IBV_MTU_2048 = 4;
    /** {@code IBV_MTU_4096}. */
    public static final int IBV_MTU_4096 = 5;

    // enum ibv_access_flags
    /** {@code IBV_ACCESS_LOCAL_WRITE}. */
    public static final int IBV_ACCESS_LOCAL_WRITE = 1;
    /** {@code IBV_ACCESS_REMOTE_WRITE}. */
    public static final int IBV_ACCESS_REMOTE_WRITE = 1 << 1;
    /** {@code IBV_ACCESS_REMOTE_READ}. */
    public static final int IBV_ACCESS_REMOTE_READ = 1 << 2;
    /** {@code IBV_ACCESS_REMOTE_ATOMIC}. */
    public static final int IBV_ACCESS_REMOTE_ATOMIC = 1 << 3;
    /** {@code IBV_ACCESS_MW_BIND}. */
    public static final int IBV_ACCESS_MW_BIND = 1 << 4;
    /** {@code IBV_ACCESS_ZERO_BASED}. */
    public static final int IBV_ACCESS_ZERO_BASED = 1 << 5;

    // enum ibv_mw_type
    /** {@code IBV_MW_TYPE_1}. */
    public static final int IBV_MW_TYPE_1 = 1;
    /** {@code IBV_MW_TYPE_2}. */
    public static final int IBV_MW_TYPE_2 = 2;

    // enum ibv_wr_opcode
    /** {@code IBV_WR_RDMA_WRITE}. */
    public static final int IBV_WR_RDMA_WRITE = 0;
    /** {@code IBV_WR_RDMA_WRITE_WITH_IMM}. */
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    /** {@code IBV_WR_SEND}. */
    public static final int IBV_WR_SEND = 2;
    /** {@code IBV_WR_SEND_WITH_IMM}. */
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    /** {@code IBV_WR_RDMA_READ}. */
    public static final int IBV_WR_RDMA_READ = 4;
    /** {@code IBV_WR_ATOMIC_CMP_AND_SWP}. */
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    /** {@code IBV_WR_ATOMIC_FETCH_AND_ADD}. */
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;
    /** {@code IBV_WR_LOCAL_INV}. */
    public static final int IBV_WR_LOCAL_INV = 7;
    /** {@code IBV_WR_BIND_MW}. */
    public static final int IBV_WR_BIND_MW = 8;
    /** {@code IBV_WR_SEND_WITH_INV}. */
    public static final int IBV_WR_SEND_WITH_INV = 9;

    // enum ibv_send_flags
    /** {@code IBV_SEND_FENCE}. */
    public static final int IBV_SEND_FENCE = 1;
    /** {@code IBV_SEND_SIGNALED}. */
    public static final int IBV_SEND_SIGNALED = 1 << 1;
    /** {@code IBV_SEND_SOLICITED}. */
    public static final int IBV_SEND_SOLICITED = 1 << 2;
    /** {@code IBV_SEND_INLINE}. */
    public static final int IBV_SEND_INLINE = 1 << 3;

    // enum ibv_wc_status
    /** {@code IBV_WC_SUCCESS}. */
    public static final int IBV_WC_SUCCESS = 0;
    /** {@code IBV_WC_LOC_LEN_ERR}. */
    public static final int IBV_WC_LOC_LEN_ERR = 1;
    /** {@code IBV_WC_LOC_QP_OP_ERR}. */
    public static final int IBV_WC_LOC_QP_OP_ERR = 2;
    /** {@code IBV_WC_LOC_PROT_ERR}. */
    public static final int IBV_WC_LOC_PROT_ERR = 4;
    /** {@code IBV_WC_WR_FLUSH_ERR}. */
    public static final int IBV_WC_WR_FLUSH_ERR = 5;
    /** {@code IBV_WC_MW_BIND_ERR}. */
    public static final int IBV_WC_MW_BIND_ERR = 6;
    /** {@code IBV_WC_BAD_RESP_ERR}. */
    public static final int IBV_WC_BAD_RESP_ERR = 7;
    /** {@code IBV_WC_LOC_ACCESS_ERR}. */
    public static final int IBV_WC_LOC_ACCESS_ERR = 8;
    /** {@code IBV_WC_REM_INV_REQ_ERR}. */
    public static final int IBV_WC_REM_INV_REQ_ERR = 9;
    /** {@code IBV_WC_REM_ACCESS_ERR}. */
    public static final int IBV_WC_REM_ACCESS_ERR = 10;
    /** {@code IBV_WC_REM_OP_ERR}. */
    public static final int IBV_WC_REM_OP_ERR = 11;
    /** {@code IBV_WC_RETRY_EXC_ERR}. */
    public static final int IBV_WC_RETRY_EXC_ERR = 12;
    /** {@code IBV_WC_RNR_RETRY_EXC_ERR}. */
    public static final int IBV_WC_RNR_RETRY_EXC_ERR = 13;
    /** {@code IBV_WC_REM_INV_RD_REQ_ERR}. */
    public static final int IBV_WC_REM_INV_RD_REQ_ERR = 15;
    /** {@code IBV_WC_REM_ABORT_ERR}. */
    public static final int IBV_WC_REM_ABORT_ERR = 16;
    /** {@code IBV_WC_FATAL_ERR}. */
    public static final int IBV_WC_FATAL_ERR = 19;
    /** {@code IBV_WC_RESP_TIMEOUT_ERR}. */
    public static final int IBV_WC_RESP_TIMEOUT_ERR = 20;
    /** {@code IBV_WC_GENERAL_ERR}. */
    public static final int IBV_WC_GENERAL_ERR = 21;

    // enum ibv_wc_opcode
    /** {@code IBV_WC_SEND}. */
    public static final int IBV_WC_SEND = 0;
    /** {@code IBV_WC_RDMA_WRITE}. */
    public static final int IBV_WC_RDMA_WRITE = 1;
    /** {@code IBV_WC_RDMA_READ}. */
    public static final int IBV_WC_RDMA_READ = 2;
    /** {@code IBV_WC_COMP_SWAP}. */
    public static final int IBV_WC_COMP_SWAP = 3;
    /** {@code IBV_WC_FETCH_ADD}. */
    public static final int IBV_WC_FETCH_ADD = 4;
    /** {@code IBV_WC_BIND_MW}. */
    public static final int IBV_WC_BIND_MW = 5;
    /** {@code IBV_WC_LOCAL_INV}. */
    public static final int IBV_WC_LOCAL_INV = 6;
    /** {@code IBV_WC_RECV}: receive opcodes have this bit set. */
    public static final int IBV_WC_RECV = 1 << 7;
    /** {@code IBV_WC_RECV_RDMA_WITH_IMM}. */
    public static final int IBV_WC_RECV_RDMA_WITH_IMM = IBV_WC_RECV + 1;

    // enum ibv_wc_flags
    /** {@code IBV_WC_GRH}. */
    public static final int IBV_WC_GRH = 1;
    /** {@code IBV_WC_WITH_IMM}. */
    public static final int IBV_WC_WITH_IMM = 1 << 1;

    // enum ibv_qp_type
    /** {@code IBV_QPT_RC}: the only QP type a DAT EP uses. */
    public static final int IBV_QPT_RC = 2;
    /** {@code IBV_QPT_UC}. */
    public static final int IBV_QPT_UC = 3;
    /** {@code IBV_QPT_UD}. */
    public static final int IBV_QPT_UD = 4;

    // enum ibv_qp_state
    /** {@code IBV_QPS_RESET}. */
    public static final int IBV_QPS_RESET = 0;
    /** {@code IBV_QPS_INIT}. */
    public static final int IBV_QPS_INIT = 1;
    /** {@code IBV_QPS_RTR}. */
    public static final int IBV_QPS_RTR = 2;
    /** {@code IBV_QPS_RTS}. */
    public static final int IBV_QPS_RTS = 3;
    /** {@code IBV_QPS_SQD}. */
    public static final int IBV_QPS_SQD = 4;
    /** {@code IBV_QPS_SQE}. */
    public static final int IBV_QPS_SQE = 5;
    /** {@code IBV_QPS_ERR}: flushes every posted work request (DAT disconnect). */
    public static final int IBV_QPS_ERR = 6;

    // enum ibv_qp_attr_mask
    /** {@code IBV_QP_STATE}. */
    public static final int IBV_QP_STATE = 1;
    /** {@code IBV_QP_CUR_STATE}. */
    public static final int IBV_QP_CUR_STATE = 1 << 1;
    /** {@code IBV_QP_ACCESS_FLAGS}. */
    public static final int IBV_QP_ACCESS_FLAGS = 1 << 3;
    /** {@code IBV_QP_PKEY_INDEX}. */
    public static final int IBV_QP_PKEY_INDEX = 1 << 4;
    /** {@code IBV_QP_PORT}. */
    public static final int IBV_QP_PORT = 1 << 5;
    /** {@code IBV_QP_AV}. */
    public static final int IBV_QP_AV = 1 << 7;
    /** {@code IBV_QP_PATH_MTU}. */
    public static final int IBV_QP_PATH_MTU = 1 << 8;
    /** {@code IBV_QP_TIMEOUT}. */
    public static final int IBV_QP_TIMEOUT = 1 << 9;
    /** {@code IBV_QP_RETRY_CNT}. */
    public static final int IBV_QP_RETRY_CNT = 1 << 10;
    /** {@code IBV_QP_RNR_RETRY}. */
    public static final int IBV_QP_RNR_RETRY = 1 << 11;
    /** {@code IBV_QP_RQ_PSN}. */
    public static final int IBV_QP_RQ_PSN = 1 << 12;
    /** {@code IBV_QP_MAX_QP_RD_ATOMIC}. */
    public static final int IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13;
    /** {@code IBV_QP_MIN_RNR_TIMER}. */
    public static final int IBV_QP_MIN_RNR_TIMER = 1 << 15;
    /** {@code IBV_QP_SQ_PSN}. */
    public static final int IBV_QP_SQ_PSN = 1 << 16;
    /** {@code IBV_QP_MAX_DEST_RD_ATOMIC}. */
    public static final int IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17;
    /** {@code IBV_QP_CAP}. */
    public static final int IBV_QP_CAP = 1 << 19;
    /** {@code IBV_QP_DEST_QPN}. */
    public static final int IBV_QP_DEST_QPN = 1 << 20;

    // enum ibv_srq_attr_mask
    /** {@code IBV_SRQ_MAX_WR}: resize (DAT {@code dat_srq_resize}). */
    public static final int IBV_SRQ_MAX_WR = 1;
    /** {@code IBV_SRQ_LIMIT}: arm the low watermark (DAT {@code dat_srq_set_lw}). */
    public static final int IBV_SRQ_LIMIT = 1 << 1;

    // enum ibv_event_type
    /** {@code IBV_EVENT_CQ_ERR}. */
    public static final int IBV_EVENT_CQ_ERR = 0;
    /** {@code IBV_EVENT_QP_FATAL}. */
    public static final int IBV_EVENT_QP_FATAL = 1;
    /** {@code IBV_EVENT_QP_REQ_ERR}. */
    public static final int IBV_EVENT_QP_REQ_ERR = 2;
    /** {@code IBV_EVENT_QP_ACCESS_ERR}. */
    public static final int IBV_EVENT_QP_ACCESS_ERR = 3;
    /** {@code IBV_EVENT_COMM_EST}. */
    public static final int IBV_EVENT_COMM_EST = 4;
    /** {@code IBV_EVENT_SQ_DRAINED}. */
    public static final int IBV_EVENT_SQ_DRAINED = 5;
    /** {@code IBV_EVENT_PATH_MIG}. */
    public static final int IBV_EVENT_PATH_MIG = 6;
    /** {@code IBV_EVENT_PATH_MIG_ERR}. */
    public static final int IBV_EVENT_PATH_MIG_ERR = 7;
    /** {@code IBV_EVENT_DEVICE_FATAL}. */
    public static final int IBV_EVENT_DEVICE_FATAL = 8;
    /** {@code IBV_EVENT_PORT_ACTIVE}. */
    public static final int IBV_EVENT_PORT_ACTIVE = 9;
    /** {@code IBV_EVENT_PORT_ERR}. */
    public static final int IBV_EVENT_PORT_ERR = 10;
    /** {@code IBV_EVENT_LID_CHANGE}. */
    public static final int IBV_EVENT_LID_CHANGE = 11;
    /** {@code IBV_EVENT_PKEY_CHANGE}. */
    public static final int IBV_EVENT_PKEY_CHANGE = 12;
    /** {@code IBV_EVENT_SM_CHANGE}. */
    public static final int IBV_EVENT_SM_CHANGE = 13;
    /** {@code IBV_EVENT_SRQ_ERR}. */
    public static final int IBV_EVENT_SRQ_ERR = 14;
    /** {@code IBV_EVENT_SRQ_LIMIT_REACHED}: the SRQ low watermark fired (DAT SRQ_LIMIT_REACHED). */
    public static final int IBV_EVENT_SRQ_LIMIT_REACHED = 15;
    /** {@code IBV_EVENT_QP_LAST_WQE_REACHED}. */
    public static final int IBV_EVENT_QP_LAST_WQE_REACHED = 16;
    /** {@code IBV_EVENT_CLIENT_REREGISTER}. */
    public static final int IBV_EVENT_CLIENT_REREGISTER = 17;
    /** {@code IBV_EVENT_GID_CHANGE}. */
    public static final int IBV_EVENT_GID_CHANGE = 18;

    private static final Object LOCK = new Object();
    private static LibIbverbs loaded; // guarded by LOCK

    /** {@code struct ibv_device **ibv_get_device_list(int *num_devices)}. */
    private final NativeFunction ibv_get_device_list;
    /** {@code void ibv_free_device_list(struct ibv_device **list)}. */
    private final NativeFunction ibv_free_device_list;
    /** {@code const char *ibv_get_device_name(struct ibv_device *device)}. */
    private final NativeFunction ibv_get_device_name;
    /** {@code struct ibv_context *ibv_open_device(struct ibv_device *device)}. */
    private final NativeFunction ibv_open_device;
    /** {@code int ibv_close_device(struct ibv_context *context)}. */
    private final NativeFunction ibv_close_device;
    /** {@code int ibv_query_device(struct ibv_context *, struct ibv_device_attr *)}. */
    private final NativeFunction ibv_query_device;
    /** {@code int ibv_query_port(struct ibv_context *, uint8_t port_num, struct _compat_ibv_port_attr *)}. */
    private final NativeFunction ibv_query_port;
    /** {@code int ibv_query_gid(struct ibv_context *, uint8_t port_num, int index, union ibv_gid *)}. */
    private final NativeFunction ibv_query_gid;
    /** {@code struct ibv_pd *ibv_alloc_pd(struct ibv_context *)}. */
    private final NativeFunction ibv_alloc_pd;
    /** {@code int ibv_dealloc_pd(struct ibv_pd *)}. */
    private final NativeFunction ibv_dealloc_pd;
    /** {@code struct ibv_mr *ibv_reg_mr(struct ibv_pd *, void *addr, size_t length, int access)}. */
    private final NativeFunction ibv_reg_mr;
    /** {@code int ibv_dereg_mr(struct ibv_mr *)}. */
    private final NativeFunction ibv_dereg_mr;
    /** {@code struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *)}. */
    private final NativeFunction ibv_create_comp_channel;
    /** {@code int ibv_destroy_comp_channel(struct ibv_comp_channel *)}. */
    private final NativeFunction ibv_destroy_comp_channel;
    /** {@code struct ibv_cq *ibv_create_cq(struct ibv_context *, int cqe, void *cq_context, struct ibv_comp_channel *,
            int comp_vector)}. */
    private final NativeFunction ibv_create_cq;
    /** {@code int ibv_destroy_cq(struct ibv_cq *)}. */
    private final NativeFunction ibv_destroy_cq;
    /** {@code int ibv_resize_cq(struct ibv_cq *, int cqe)}. */
    private final NativeFunction ibv_resize_cq;
    /** {@code int ibv_get_cq_event(struct ibv_comp_channel *, struct ibv_cq **cq, void **cq_context)}. */
    private final NativeFunction ibv_get_cq_event;
    /** {@code void ibv_ack_cq_events(struct ibv_cq *, unsigned int nevents)}. */
    private final NativeFunction ibv_ack_cq_events;
    /** {@code struct ibv_srq *ibv_create_srq(struct ibv_pd *, struct ibv_srq_init_attr *)}. */
    private final NativeFunction ibv_create_srq;
    /** {@code int ibv_modify_srq(struct ibv_srq *, struct ibv_srq_attr *, int srq_attr_mask)}. */
    private final NativeFunction ibv_modify_srq;
    /** {@code int ibv_query_srq(struct ibv_srq *, struct ibv_srq_attr *)}. */
    private final NativeFunction ibv_query_srq;
    /** {@code int ibv_destroy_srq(struct ibv_srq *)}. */
    private final NativeFunction ibv_destroy_srq;
    /** {@code struct ibv_qp *ibv_create_qp(struct ibv_pd *, struct ibv_qp_init_attr *)}. */
    private final NativeFunction ibv_create_qp;
    /** {@code int ibv_destroy_qp(struct ibv_qp *)}. */
    private final NativeFunction ibv_destroy_qp;
    /** {@code int ibv_modify_qp(struct ibv_qp *, struct ibv_qp_attr *, int attr_mask)}. */
    private final NativeFunction ibv_modify_qp;
    /** {@code int ibv_query_qp(struct ibv_qp *, struct ibv_qp_attr *, int attr_mask, struct ibv_qp_init_attr *)}. */
    private final NativeFunction ibv_query_qp;
    /** {@code int ibv_get_async_event(struct ibv_context *, struct ibv_async_event *)}. */
    private final NativeFunction ibv_get_async_event;
    /** {@code void ibv_ack_async_event(struct ibv_async_event *)}. */
    private final NativeFunction ibv_ack_async_event;
    /** {@code const char *ibv_wc_status_str(enum ibv_wc_status)}. */
    private final NativeFunction ibv_wc_status_str;
    /** {@code const char *ibv_event_type_str(enum ibv_event_type)}. */
    private final NativeFunction ibv_event_type_str;

    private LibIbverbs(NativeLibrary lib) throws LibraryUnavailableException {
        FunctionDescriptor ptrOfPtr = FunctionDescriptor.of(ADDRESS, ADDRESS);
        FunctionDescriptor intOfPtr = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        FunctionDescriptor intOfPtrPtr = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
        FunctionDescriptor voidOfPtr = FunctionDescriptor.ofVoid(ADDRESS);
        FunctionDescriptor ptrOfInt = FunctionDescriptor.of(ADDRESS, JAVA_INT);
        ibv_get_device_list = lib.find("ibv_get_device_list", ptrOfPtr);
        ibv_free_device_list = lib.find("ibv_free_device_list", voidOfPtr);
        ibv_get_device_name = lib.find("ibv_get_device_name", ptrOfPtr);
        ibv_open_device = lib.find("ibv_open_device", ptrOfPtr);
        ibv_close_device = lib.find("ibv_close_device", intOfPtr);
        ibv_query_device = lib.find("ibv_query_device", intOfPtrPtr);
        ibv_query_port = lib.find("ibv_query_port", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS));
        ibv_query_gid = lib.find("ibv_query_gid", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT,
                ADDRESS));
        ibv_alloc_pd = lib.find("ibv_alloc_pd", ptrOfPtr);
        ibv_dealloc_pd = lib.find("ibv_dealloc_pd", intOfPtr);
        ibv_reg_mr = lib.find("ibv_reg_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        ibv_dereg_mr = lib.find("ibv_dereg_mr", intOfPtr);
        ibv_create_comp_channel = lib.find("ibv_create_comp_channel", ptrOfPtr);
        ibv_destroy_comp_channel = lib.find("ibv_destroy_comp_channel", intOfPtr);
        ibv_create_cq = lib.find("ibv_create_cq",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        ibv_destroy_cq = lib.find("ibv_destroy_cq", intOfPtr);
        ibv_resize_cq = lib.find("ibv_resize_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        ibv_get_cq_event = lib.find("ibv_get_cq_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        ibv_ack_cq_events = lib.find("ibv_ack_cq_events", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
        ibv_create_srq = lib.find("ibv_create_srq", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        ibv_modify_srq = lib.find("ibv_modify_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        ibv_query_srq = lib.find("ibv_query_srq", intOfPtrPtr);
        ibv_destroy_srq = lib.find("ibv_destroy_srq", intOfPtr);
        ibv_create_qp = lib.find("ibv_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        ibv_destroy_qp = lib.find("ibv_destroy_qp", intOfPtr);
        ibv_modify_qp = lib.find("ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        ibv_query_qp = lib.find("ibv_query_qp",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
        ibv_get_async_event = lib.find("ibv_get_async_event", intOfPtrPtr);
        ibv_ack_async_event = lib.find("ibv_ack_async_event", voidOfPtr);
        ibv_wc_status_str = lib.find("ibv_wc_status_str", ptrOfInt);
        ibv_event_type_str = lib.find("ibv_event_type_str", ptrOfInt);
    }

    /**
     * Loads {@link #LIBRARY} and finds every function, once per JVM. Call it only after checking
     * {@link Module#isNativeAccessEnabled()}: it calls restricted methods.
     *
     * @return the bindings
     * @throws LibraryUnavailableException if the library or one of its functions is missing; the message is
     *     the fix
     */
    public static LibIbverbs load() throws LibraryUnavailableException {
        return load(LIBRARY);
    }

    /**
     * Loads the library and finds every function, once per JVM: after the first success every call returns
     * the same bindings, whatever the name. Call it only after checking {@link Module#isNativeAccessEnabled()}.
     *
     * @param library a soname the dynamic loader finds, or an absolute path
     * @return the bindings
     * @throws LibraryUnavailableException if the library or one of its functions is missing; the message is
     *     the fix
     */
    public static LibIbverbs load(String library) throws LibraryUnavailableException {
        synchronized (LOCK) {
            if (loaded == null) {
                loaded = new LibIbverbs(NativeLibrary.open(library));
            }
            return loaded;
        }
    }

    /**
     * {@return the {@code NULL}-terminated device array, or {@link MemorySegment#NULL} when libibverbs finds no RDMA
     * support at all (no kernel module, no uverbs device): that is not an error to throw, and such a {@code NULL} must
     * never reach {@link #ibv_free_device_list(MemorySegment)}}
     *
     * @param numDevices an {@code int} segment that receives the number of devices
     */
    public MemorySegment ibv_get_device_list(MemorySegment numDevices) {
        // The first call dlopen()s libibverbs' device providers, and with them whatever those link.
        return NativeEnvironment.keepingSignals("ibv_get_device_list", () -> {
            try {
                return (MemorySegment) ibv_get_device_list.handle().invokeExact(Errno.state(), numDevices);
            } catch (Throwable t) {
                throw unexpected(t);
            }
        });
    }

    /**
     * Frees the device list.
     *
     * @param list a non-{@code NULL} array from {@link #ibv_get_device_list(MemorySegment)}
     * @throws IllegalArgumentException for {@code NULL}: libibverbs would dereference it and crash the JVM
     */
    public void ibv_free_device_list(MemorySegment list) {
        if (list.address() == 0) {
            throw new IllegalArgumentException("ibv_free_device_list(NULL) crashes libibverbs");
        }
        try {
            ibv_free_device_list.handle().invokeExact(Errno.state(), list);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@return the kernel device name, for example {@code rxe0} or {@code mlx5_0}}
     *
     * @param device an element of the device list
     */
    public String ibv_get_device_name(MemorySegment device) {
        MemorySegment name;
        try {
            name = (MemorySegment) ibv_get_device_name.handle().invokeExact(Errno.state(), device);
        } catch (Throwable t) {
            throw unexpected(t);
        }
        if (name.address() == 0) {
            throw new NativeCallException("ibv_get_device_name", Errno.last());
        }
        return name.reinterpret(IbvDevice.LAYOUT.byteSize()).getString(0);
    }

    /**
     * {@return the {@code struct ibv_context}, sized to {@link IbvContext#LAYOUT}}
     *
     * @param device an element of the device list
     */
    public MemorySegment ibv_open_device(MemorySegment device) {
        MemorySegment ctx;
        try {
            ctx = (MemorySegment) ibv_open_device.handle().invokeExact(Errno.state(), device);
        } catch (Throwable t) {
            throw unexpected(t);
        }
        return sized("ibv_open_device", ctx, IbvContext.SIZE);
    }

    /**
     * Closes the device.
     *
     * @param context an open device
     */
    public void ibv_close_device(MemorySegment context) {
        try {
            check("ibv_close_device", (int) ibv_close_device.handle().invokeExact(Errno.state(), context));
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Fills {@code attr} with the device's attributes.
     *
     * @param context an open device
     * @param attr an {@link IbvDeviceAttr} segment to fill
     */
    public void ibv_query_device(MemorySegment context, MemorySegment attr) {
        requireSize(attr, IbvDeviceAttr.SIZE);
        try {
            check("ibv_query_device", (int) ibv_query_device.handle().invokeExact(Errno.state(), context, attr));
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * What verbs.h's {@code ibv_query_port} macro does on the compatibility path: zero a full
     * {@code struct ibv_port_attr}, then call the exported function, which fills the fields the older struct
     * has (every field up to {@code flags}; {@code port_cap_flags2} stays 0).
     *
     * @param context an open device
     * @param portNum the port, from 1
     * @param attr an {@link IbvPortAttr} segment to fill
     */
    public void ibv_query_port(MemorySegment context, int portNum, MemorySegment attr) {
        requireSize(attr, IbvPortAttr.SIZE);
        attr.asSlice(0, IbvPortAttr.SIZE).fill((byte) 0);
        try {
            check("ibv_query_port", (int) ibv_query_port.handle().invokeExact(Errno.state(), context, (byte) portNum,
                    attr));
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Fills {@code gid} with one entry of the port's GID table.
     *
     * @param context an open device
     * @param portNum the port, from 1
     * @param index the GID table index
     * @param gid an {@link IbvGid} segment to fill
     */
    public void ibv_query_gid(MemorySegment context, int portNum, int index, MemorySegment gid) {
        requireSize(gid, IbvGid.SIZE);
        try {
            check("ibv_query_gid", (int) ibv_query_gid.handle().invokeExact(Errno.state(), context, (byte) portNum,
                    index, gid));
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@return the {@code struct ibv_pd}, sized to {@link IbvPd#LAYOUT}}
     *
     * @param context an open device
     */
    public MemorySegment ibv_alloc_pd(MemorySegment context) {
        try {
            return sized("ibv_alloc_pd", (MemorySegment) ibv_alloc_pd.handle().invokeExact(Errno.state(), context),
                    IbvPd.SIZE);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Frees the protection domain.
     *
     * @param pd a protection domain without MRs, QPs or SRQs
     */
    public void ibv_dealloc_pd(MemorySegment pd) {
        call("ibv_dealloc_pd", ibv_dealloc_pd.handle(), pd);
    }

    /**
     * {@return the {@code struct ibv_mr}, sized to {@link IbvMr#LAYOUT}}
     *
     * @param pd the protection domain
     * @param memory native memory to register (its address and {@code length} bytes)
     * @param length bytes to register
     * @param access {@code IBV_ACCESS_*} flags, none from the optional range
     */
    public MemorySegment ibv_reg_mr(MemorySegment pd, MemorySegment memory, long length, int access) {
        try {
            return sized("ibv_reg_mr",
                    (MemorySegment) ibv_reg_mr.handle().invokeExact(Errno.state(), pd, memory, length, access),
                            IbvMr.SIZE);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Deregisters the memory region.
     *
     * @param mr a registered region
     */
    public void ibv_dereg_mr(MemorySegment mr) {
        call("ibv_dereg_mr", ibv_dereg_mr.handle(), mr);
    }

    /**
     * {@return the {@code struct ibv_comp_channel}, sized to {@link IbvCompChannel#LAYOUT}}
     *
     * @param context an open device
     */
    public MemorySegment ibv_create_comp_channel(MemorySegment context) {
        try {
            return sized("ibv_create_comp_channel",
                    (MemorySegment) ibv_create_comp_channel.handle().invokeExact(Errno.state(), context),
                            IbvCompChannel.SIZE);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Destroys the completion channel.
     *
     * @param channel a channel no CQ uses any more
     */
    public void ibv_destroy_comp_channel(MemorySegment channel) {
        call("ibv_destroy_comp_channel", ibv_destroy_comp_channel.handle(), channel);
    }

    /**
     * {@return the {@code struct ibv_cq}, sized to {@link IbvCq#LAYOUT}}
     *
     * @param context an open device
     * @param cqe the minimum number of entries
     * @param cqContext a value returned by {@code ibv_get_cq_event}, or {@code NULL}
     * @param channel the completion channel, or {@code NULL}
     * @param compVector the completion vector, below {@code num_comp_vectors}
     */
    public MemorySegment ibv_create_cq(MemorySegment context, int cqe, MemorySegment cqContext,
                                       MemorySegment channel, int compVector) {
        try {
            return sized("ibv_create_cq", (MemorySegment) ibv_create_cq.handle().invokeExact(Errno.state(), context,
                    cqe,
                    cqContext, channel, compVector), IbvCq.SIZE);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Destroys the CQ.
     *
     * @param cq a CQ no QP uses any more, its events acknowledged
     */
    public void ibv_destroy_cq(MemorySegment cq) {
        call("ibv_destroy_cq", ibv_destroy_cq.handle(), cq);
    }

    /**
     * Resizes the CQ.
     *
     * @param cq a CQ
     * @param cqe the minimum number of entries it must hold (the device may round up)
     */
    public void ibv_resize_cq(MemorySegment cq, int cqe) {
        int rc;
        try {
            rc = (int) ibv_resize_cq.handle().invokeExact(Errno.state(), cq, cqe);
        } catch (Throwable t) {
            throw unexpected(t);
        }
        check("ibv_resize_cq", rc);
    }

    /**
     * Blocks until a CQ armed by {@code ibv_req_notify_cq} on this channel has a completion.
     *
     * @param channel the completion channel
     * @param cqOut a pointer segment that receives the {@code struct ibv_cq *}
     * @param cqContextOut a pointer segment that receives its {@code cq_context}
     */
    public void ibv_get_cq_event(MemorySegment channel, MemorySegment cqOut, MemorySegment cqContextOut) {
        try {
            check("ibv_get_cq_event", (int) ibv_get_cq_event.handle().invokeExact(Errno.state(), channel, cqOut,
                    cqContextOut));
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Acknowledges completion events of the CQ: {@link #ibv_destroy_cq} waits until all are acknowledged.
     *
     * @param cq the CQ
     * @param nevents how many events of {@link #ibv_get_cq_event} to acknowledge
     */
    public void ibv_ack_cq_events(MemorySegment cq, int nevents) {
        try {
            ibv_ack_cq_events.handle().invokeExact(Errno.state(), cq, nevents);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@return the {@code struct ibv_srq}, sized to {@link IbvSrq#LAYOUT}}
     *
     * @param pd the protection domain
     * @param initAttr an {@link IbvSrqInitAttr}; on return it holds the actual sizes
     */
    public MemorySegment ibv_create_srq(MemorySegment pd, MemorySegment initAttr) {
        requireSize(initAttr, IbvSrqInitAttr.SIZE);
        try {
            return sized("ibv_create_srq", (MemorySegment) ibv_create_srq.handle().invokeExact(Errno.state(), pd,
                    initAttr),
                    IbvSrq.SIZE);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Changes the SRQ's size or limit.
     *
     * @param srq the SRQ
     * @param attr an {@link IbvSrqAttr}
     * @param mask {@link #IBV_SRQ_MAX_WR} and/or {@link #IBV_SRQ_LIMIT}
     */
    public void ibv_modify_srq(MemorySegment srq, MemorySegment attr, int mask) {
        requireSize(attr, IbvSrqAttr.SIZE);
        try {
            check("ibv_modify_srq", (int) ibv_modify_srq.handle().invokeExact(Errno.state(), srq, attr, mask));
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Fills {@code attr} with the SRQ's attributes.
     *
     * @param srq the SRQ
     * @param attr an {@link IbvSrqAttr} to fill
     */
    public void ibv_query_srq(MemorySegment srq, MemorySegment attr) {
        requireSize(attr, IbvSrqAttr.SIZE);
        try {
            check("ibv_query_srq", (int) ibv_query_srq.handle().invokeExact(Errno.state(), srq, attr));
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Destroys the SRQ.
     *
     * @param srq an SRQ no QP uses any more
     */
    public void ibv_destroy_srq(MemorySegment srq) {
        call("ibv_destroy_srq", ibv_destroy_srq.handle(), srq);
    }

    /**
     * {@return the {@code struct ibv_qp}, sized to {@link IbvQp#LAYOUT}}
     *
     * @param pd the protection domain
     * @param initAttr an {@link IbvQpInitAttr}; on return its {@code cap} holds the actual sizes
     */
    public MemorySegment ibv_create_qp(MemorySegment pd, MemorySegment initAttr) {
        requireSize(initAttr, IbvQpInitAttr.SIZE);
        try {
            return sized("ibv_create_qp", (MemorySegment) ibv_create_qp.handle().invokeExact(Errno.state(), pd,
                    initAttr),
                    IbvQp.SIZE);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Destroys the QP.
     *
     * @param qp the QP
     */
    public void ibv_destroy_qp(MemorySegment qp) {
        call("ibv_destroy_qp", ibv_destroy_qp.handle(), qp);
    }

    /**
     * Changes the QP's attributes, its state among them.
     *
     * @param qp the QP
     * @param attr an {@link IbvQpAttr}
     * @param mask {@code IBV_QP_*} bits saying which fields of {@code attr} apply
     */
    public void ibv_modify_qp(MemorySegment qp, MemorySegment attr, int mask) {
        requireSize(attr, IbvQpAttr.SIZE);
        try {
            check("ibv_modify_qp", (int) ibv_modify_qp.handle().invokeExact(Errno.state(), qp, attr, mask));
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Fills {@code attr} and {@code initAttr} with the QP's attributes.
     *
     * @param qp the QP
     * @param attr an {@link IbvQpAttr} to fill
     * @param mask {@code IBV_QP_*} bits saying which fields are wanted
     * @param initAttr an {@link IbvQpInitAttr} to fill
     */
    public void ibv_query_qp(MemorySegment qp, MemorySegment attr, int mask, MemorySegment initAttr) {
        requireSize(attr, IbvQpAttr.SIZE);
        requireSize(initAttr, IbvQpInitAttr.SIZE);
        try {
            check("ibv_query_qp", (int) ibv_query_qp.handle().invokeExact(Errno.state(), qp, attr, mask, initAttr));
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Blocks until the device reports an asynchronous event.
     *
     * @param context an open device
     * @param event an {@link IbvAsyncEvent} to fill; acknowledge it with {@link #ibv_ack_async_event}
     */
    public void ibv_get_async_event(MemorySegment context, MemorySegment event) {
        requireSize(event, IbvAsyncEvent.SIZE);
        try {
            check("ibv_get_async_event", (int) ibv_get_async_event.handle().invokeExact(Errno.state(), context, event));
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Acknowledges an asynchronous event.
     *
     * @param event an event filled by {@link #ibv_get_async_event}
     */
    public void ibv_ack_async_event(MemorySegment event) {
        try {
            ibv_ack_async_event.handle().invokeExact(Errno.state(), event);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@return libibverbs' text for the status}
     *
     * @param status an {@code IBV_WC_*} status
     */
    public String ibv_wc_status_str(int status) {
        return string(ibv_wc_status_str.handle(), status);
    }

    /**
     * {@return libibverbs' text for the event type}
     *
     * @param eventType an {@code IBV_EVENT_*} type
     */
    public String ibv_event_type_str(int eventType) {
        return string(ibv_event_type_str.handle(), eventType);
    }

    private static String string(MethodHandle handle, int value) {
        try {
            MemorySegment s = (MemorySegment) handle.invokeExact(Errno.state(), value);
            return s.address() == 0 ? String.valueOf(value) : s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** Calls an {@code int f(void *)} destroy function and throws on failure. */
    private static void call(String function, MethodHandle handle, MemorySegment arg) {
        int rc;
        try {
            rc = (int) handle.invokeExact(Errno.state(), arg);
        } catch (Throwable t) {
            throw unexpected(t);
        }
        check(function, rc);
    }

    /**
     * libibverbs returns 0 on success and, depending on the function and the rdma-core version, either the
     * errno value itself or -1 with errno set: both are handled.
     */
    static void check(String function, int rc) {
        if (rc != 0) {
            throw new NativeCallException(function, rc > 0 ? rc : Errno.last());
        }
    }

    /** A pointer-returning function's result: {@code NULL} is a failure with errno, anything else is sized. */
    static MemorySegment sized(String function, MemorySegment result, long size) {
        if (result.address() == 0) {
            throw new NativeCallException(function, Errno.last());
        }
        return result.reinterpret(size);
    }

    static void requireSize(MemorySegment segment, long size) {
        if (segment.byteSize() < size) {
            throw new IllegalArgumentException("segment of " + segment.byteSize() + " bytes is smaller than the "
                    + size + " the C struct needs");
        }
    }

    /** invokeExact declares Throwable; with exact types only an Error or a JVM bug can come out. */
    static RuntimeException unexpected(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("downcall failed", t);
    }
}
