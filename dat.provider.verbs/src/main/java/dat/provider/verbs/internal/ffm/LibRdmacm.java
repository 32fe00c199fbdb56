// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.ByteOrder;

/**
 * Bindings to {@code librdmacm.so.1} (rdma-core), named after the C functions: connection management over IP
 * addresses, which is how a DAT IA address, a PSP listen and an EP connect map onto verbs.
 *
 * <p>Every function used here is an exported symbol ({@code @@RDMACM_1.0}); the typed methods pass this
 * thread's errno capture segment and throw {@link NativeCallException} on failure (librdmacm returns -1 and
 * sets errno). Loaded lazily by {@link #load()}, after the provider has checked native access.
 */
// Restricted methods on purpose: reached only after VerbsProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
public final class LibRdmacm {

    /** The soname this class binds. */
    public static final String LIBRARY = "librdmacm.so.1";

    /** {@code AF_INET} (Linux). */
    public static final int AF_INET = 2;
    /** {@code AF_INET6} (Linux). */
    public static final int AF_INET6 = 10;

    // enum rdma_port_space
    /** {@code RDMA_PS_IPOIB}. */
    public static final int RDMA_PS_IPOIB = 0x0002;
    /** {@code RDMA_PS_TCP}: reliable connected, the port space of a DAT EP. */
    public static final int RDMA_PS_TCP = 0x0106;
    /** {@code RDMA_PS_UDP}. */
    public static final int RDMA_PS_UDP = 0x0111;
    /** {@code RDMA_PS_IB}. */
    public static final int RDMA_PS_IB = 0x013F;

    /** {@code RDMA_MAX_RESP_RES}. */
    public static final int RDMA_MAX_RESP_RES = 0xFF;
    /** {@code RDMA_MAX_INIT_DEPTH}. */
    public static final int RDMA_MAX_INIT_DEPTH = 0xFF;

    // enum rdma_cm_event_type
    /** {@code RDMA_CM_EVENT_ADDR_RESOLVED}. */
    public static final int RDMA_CM_EVENT_ADDR_RESOLVED = 0;
    /** {@code RDMA_CM_EVENT_ADDR_ERROR}. */
    public static final int RDMA_CM_EVENT_ADDR_ERROR = 1;
    /** {@code RDMA_CM_EVENT_ROUTE_RESOLVED}. */
    public static final int RDMA_CM_EVENT_ROUTE_RESOLVED = 2;
    /** {@code RDMA_CM_EVENT_ROUTE_ERROR}. */
    public static final int RDMA_CM_EVENT_ROUTE_ERROR = 3;
    /** {@code RDMA_CM_EVENT_CONNECT_REQUEST}: a DAT CR arrives at a PSP. */
    public static final int RDMA_CM_EVENT_CONNECT_REQUEST = 4;
    /** {@code RDMA_CM_EVENT_CONNECT_RESPONSE}. */
    public static final int RDMA_CM_EVENT_CONNECT_RESPONSE = 5;
    /** {@code RDMA_CM_EVENT_CONNECT_ERROR}. */
    public static final int RDMA_CM_EVENT_CONNECT_ERROR = 6;
    /** {@code RDMA_CM_EVENT_UNREACHABLE}. */
    public static final int RDMA_CM_EVENT_UNREACHABLE = 7;
    /** {@code RDMA_CM_EVENT_REJECTED}. */
    public static final int RDMA_CM_EVENT_REJECTED = 8;
    /** {@code RDMA_CM_EVENT_ESTABLISHED}. */
    public static final int RDMA_CM_EVENT_ESTABLISHED = 9;
    /** {@code RDMA_CM_EVENT_DISCONNECTED}. */
    public static final int RDMA_CM_EVENT_DISCONNECTED = 10;
    /** {@code RDMA_CM_EVENT_DEVICE_REMOVAL}. */
    public static final int RDMA_CM_EVENT_DEVICE_REMOVAL = 11;
    /** {@code RDMA_CM_EVENT_MULTICAST_JOIN}. */
    public static final int RDMA_CM_EVENT_MULTICAST_JOIN = 12;
    /** {@code RDMA_CM_EVENT_MULTICAST_ERROR}. */
    public static final int RDMA_CM_EVENT_MULTICAST_ERROR = 13;
    /** {@code RDMA_CM_EVENT_ADDR_CHANGE}. */
    public static final int RDMA_CM_EVENT_ADDR_CHANGE = 14;
    /** {@code RDMA_CM_EVENT_TIMEWAIT_EXIT}. */
    public static final int RDMA_CM_EVENT_TIMEWAIT_EXIT = 15;

    private static final Object LOCK = new Object();
    private static LibRdmacm loaded; // guarded by LOCK

    /** {@code struct rdma_event_channel *rdma_create_event_channel(void)}. */
    private final NativeFunction rdma_create_event_channel;
    /** {@code void rdma_destroy_event_channel(struct rdma_event_channel *)}. */
    private final NativeFunction rdma_destroy_event_channel;
    /** {@code int rdma_create_id(struct rdma_event_channel *, struct rdma_cm_id **, void *context,
            enum rdma_port_space)}. */
    private final NativeFunction rdma_create_id;
    /** {@code int rdma_destroy_id(struct rdma_cm_id *)}. */
    private final NativeFunction rdma_destroy_id;
    /** {@code int rdma_bind_addr(struct rdma_cm_id *, struct sockaddr *)}. */
    private final NativeFunction rdma_bind_addr;
    /** {@code int rdma_resolve_addr(struct rdma_cm_id *, struct sockaddr *src, struct sockaddr *dst,
            int timeout_ms)}. */
    private final NativeFunction rdma_resolve_addr;
    /** {@code int rdma_resolve_route(struct rdma_cm_id *, int timeout_ms)}. */
    private final NativeFunction rdma_resolve_route;
    /** {@code int rdma_create_qp(struct rdma_cm_id *, struct ibv_pd *, struct ibv_qp_init_attr *)}. */
    private final NativeFunction rdma_create_qp;
    /** {@code void rdma_destroy_qp(struct rdma_cm_id *)}. */
    private final NativeFunction rdma_destroy_qp;
    /** {@code int rdma_connect(struct rdma_cm_id *, struct rdma_conn_param *)}. */
    private final NativeFunction rdma_connect;
    /** {@code int rdma_listen(struct rdma_cm_id *, int backlog)}. */
    private final NativeFunction rdma_listen;
    /** {@code int rdma_accept(struct rdma_cm_id *, struct rdma_conn_param *)}. */
    private final NativeFunction rdma_accept;
    /** {@code int rdma_reject(struct rdma_cm_id *, const void *private_data, uint8_t private_data_len)}. */
    private final NativeFunction rdma_reject;
    /** {@code int rdma_disconnect(struct rdma_cm_id *)}. */
    private final NativeFunction rdma_disconnect;
    /** {@code int rdma_get_cm_event(struct rdma_event_channel *, struct rdma_cm_event **)}. */
    private final NativeFunction rdma_get_cm_event;
    /** {@code int rdma_ack_cm_event(struct rdma_cm_event *)}. */
    private final NativeFunction rdma_ack_cm_event;
    /** {@code const char *rdma_event_str(enum rdma_cm_event_type)}. */
    private final NativeFunction rdma_event_str;
    /** {@code __be16 rdma_get_src_port(struct rdma_cm_id *)}. */
    private final NativeFunction rdma_get_src_port;
    /** {@code __be16 rdma_get_dst_port(struct rdma_cm_id *)}. */
    private final NativeFunction rdma_get_dst_port;
    /** {@code int rdma_migrate_id(struct rdma_cm_id *, struct rdma_event_channel *)}: hands a CR's id to an EP. */
    private final NativeFunction rdma_migrate_id;
    /**
     * {@code int rdma_init_qp_attr(struct rdma_cm_id *, struct ibv_qp_attr *, int *qp_attr_mask)}: the attributes
     * that move a QP the application owns (one not created by {@code rdma_create_qp}) to the next state.
     */
    private final NativeFunction rdma_init_qp_attr;
    /** {@code int rdma_establish(struct rdma_cm_id *)}: the active side's last step with an application-owned QP. */
    private final NativeFunction rdma_establish;
    /**
     * {@code int rdma_notify(struct rdma_cm_id *, enum ibv_event_type)}: data arrived on a QP whose connection the
     * CM has not yet called established (its RTU is late or lost); the CM establishes it now.
     */
    private final NativeFunction rdma_notify;

    private LibRdmacm(NativeLibrary lib) throws LibraryUnavailableException {
        FunctionDescriptor intOfPtr = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        FunctionDescriptor intOfPtrPtr = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
        FunctionDescriptor intOfPtrInt = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT);
        rdma_create_event_channel = lib.find("rdma_create_event_channel", FunctionDescriptor.of(ADDRESS));
        rdma_destroy_event_channel = lib.find("rdma_destroy_event_channel", FunctionDescriptor.ofVoid(ADDRESS));
        rdma_create_id = lib.find("rdma_create_id", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
                JAVA_INT));
        rdma_destroy_id = lib.find("rdma_destroy_id", intOfPtr);
        rdma_bind_addr = lib.find("rdma_bind_addr", intOfPtrPtr);
        rdma_resolve_addr = lib.find("rdma_resolve_addr",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
        rdma_resolve_route = lib.find("rdma_resolve_route", intOfPtrInt);
        rdma_create_qp = lib.find("rdma_create_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        rdma_destroy_qp = lib.find("rdma_destroy_qp", FunctionDescriptor.ofVoid(ADDRESS));
        rdma_connect = lib.find("rdma_connect", intOfPtrPtr);
        rdma_listen = lib.find("rdma_listen", intOfPtrInt);
        rdma_accept = lib.find("rdma_accept", intOfPtrPtr);
        rdma_reject = lib.find("rdma_reject", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE));
        rdma_disconnect = lib.find("rdma_disconnect", intOfPtr);
        rdma_get_cm_event = lib.find("rdma_get_cm_event", intOfPtrPtr);
        rdma_ack_cm_event = lib.find("rdma_ack_cm_event", intOfPtr);
        rdma_event_str = lib.find("rdma_event_str", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        rdma_get_src_port = lib.find("rdma_get_src_port", FunctionDescriptor.of(JAVA_SHORT, ADDRESS));
        rdma_get_dst_port = lib.find("rdma_get_dst_port", FunctionDescriptor.of(JAVA_SHORT, ADDRESS));
        rdma_migrate_id = lib.find("rdma_migrate_id", intOfPtrPtr);
        rdma_init_qp_attr = lib.find("rdma_init_qp_attr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        rdma_establish = lib.find("rdma_establish", intOfPtr);
        rdma_notify = lib.find("rdma_notify", intOfPtrInt);
    }

    /**
     * Loads {@link #LIBRARY} and finds every function, once per JVM. Call it only after checking
     * {@link Module#isNativeAccessEnabled()}: it calls restricted methods.
     *
     * @return the bindings
     * @throws LibraryUnavailableException if the library or one of its functions is missing; the message is
     *     the fix
     */
    public static LibRdmacm load() throws LibraryUnavailableException {
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
    public static LibRdmacm load(String library) throws LibraryUnavailableException {
        synchronized (LOCK) {
            if (loaded == null) {
                loaded = new LibRdmacm(NativeLibrary.open(library));
            }
            return loaded;
        }
    }

    /** {@return a new event channel, sized to {@link RdmaEventChannel#LAYOUT}} */
    public MemorySegment rdma_create_event_channel() {
        MemorySegment channel;
        try {
            channel = (MemorySegment) rdma_create_event_channel.handle().invokeExact(Errno.state());
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
        return LibIbverbs.sized("rdma_create_event_channel", channel, RdmaEventChannel.SIZE);
    }

    /**
     * Destroys the event channel.
     *
     * @param channel a channel without ids
     */
    public void rdma_destroy_event_channel(MemorySegment channel) {
        try {
            rdma_destroy_event_channel.handle().invokeExact(Errno.state(), channel);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
    }

    /**
     * Creates a connection id.
     *
     * @param channel the event channel, or {@code NULL} for synchronous operation
     * @param idOut a pointer segment that receives the {@code struct rdma_cm_id *}
     * @param context the id's user context
     * @param portSpace {@link #RDMA_PS_TCP} for RC
     */
    public void rdma_create_id(MemorySegment channel, MemorySegment idOut, MemorySegment context, int portSpace) {
        int rc;
        try {
            rc = (int) rdma_create_id.handle().invokeExact(Errno.state(), channel, idOut, context, portSpace);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
        LibIbverbs.check("rdma_create_id", rc);
    }

    /**
     * Destroys the id.
     *
     * @param id an id without a QP
     */
    public void rdma_destroy_id(MemorySegment id) {
        intCall("rdma_destroy_id", rdma_destroy_id.handle(), id);
    }

    /**
     * Binds the id to a local address, and so to a device.
     *
     * @param id the id
     * @param addr a {@link SockaddrIn} or {@link SockaddrIn6}
     */
    public void rdma_bind_addr(MemorySegment id, MemorySegment addr) {
        intCall("rdma_bind_addr", rdma_bind_addr.handle(), id, addr);
    }

    /**
     * Starts resolving the destination address; the outcome arrives as a CM event.
     *
     * @param id the id
     * @param src the source address, or {@code NULL}
     * @param dst the destination address
     * @param timeoutMs the resolution timeout
     */
    public void rdma_resolve_addr(MemorySegment id, MemorySegment src, MemorySegment dst, int timeoutMs) {
        int rc;
        try {
            rc = (int) rdma_resolve_addr.handle().invokeExact(Errno.state(), id, src, dst, timeoutMs);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
        LibIbverbs.check("rdma_resolve_addr", rc);
    }

    /**
     * Reports to the CM that the connection is established.
     *
     * @param id the passive side's id of a connection that carried data before its ESTABLISHED
     * @param event {@code IBV_EVENT_COMM_EST}
     */
    public void rdma_notify(MemorySegment id, int event) {
        intCall("rdma_notify", rdma_notify.handle(), id, event);
    }

    /**
     * Starts resolving the route to the destination; the outcome arrives as a CM event.
     *
     * @param id an id whose address is resolved
     * @param timeoutMs the resolution timeout
     */
    public void rdma_resolve_route(MemorySegment id, int timeoutMs) {
        intCall("rdma_resolve_route", rdma_resolve_route.handle(), id, timeoutMs);
    }

    /**
     * Creates the id's QP.
     *
     * @param id the id
     * @param pd the protection domain
     * @param initAttr an {@link IbvQpInitAttr}
     */
    public void rdma_create_qp(MemorySegment id, MemorySegment pd, MemorySegment initAttr) {
        LibIbverbs.requireSize(initAttr, IbvQpInitAttr.SIZE);
        int rc;
        try {
            rc = (int) rdma_create_qp.handle().invokeExact(Errno.state(), id, pd, initAttr);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
        LibIbverbs.check("rdma_create_qp", rc);
    }

    /**
     * Destroys the id's QP.
     *
     * @param id an id with a QP
     */
    public void rdma_destroy_qp(MemorySegment id) {
        try {
            rdma_destroy_qp.handle().invokeExact(Errno.state(), id);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
    }

    /**
     * Starts connecting to the destination; the outcome arrives as a CM event.
     *
     * @param id an id with a resolved route
     * @param connParam an {@link RdmaConnParam}
     */
    public void rdma_connect(MemorySegment id, MemorySegment connParam) {
        intCall("rdma_connect", rdma_connect.handle(), id, connParam);
    }

    /**
     * Listens for connect requests.
     *
     * @param id a bound id
     * @param backlog the pending connection limit
     */
    public void rdma_listen(MemorySegment id, int backlog) {
        intCall("rdma_listen", rdma_listen.handle(), id, backlog);
    }

    /**
     * Accepts a connect request.
     *
     * @param id the id of a connect request
     * @param connParam an {@link RdmaConnParam}
     */
    public void rdma_accept(MemorySegment id, MemorySegment connParam) {
        intCall("rdma_accept", rdma_accept.handle(), id, connParam);
    }

    /**
     * Rejects a connect request.
     *
     * @param id the id of a connect request
     * @param privateData the private data, or {@code NULL}
     * @param length its length, 0..255
     */
    public void rdma_reject(MemorySegment id, MemorySegment privateData, int length) {
        int rc;
        try {
            rc = (int) rdma_reject.handle().invokeExact(Errno.state(), id, privateData, (byte) length);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
        LibIbverbs.check("rdma_reject", rc);
    }

    /**
     * Disconnects the id.
     *
     * @param id a connected id
     */
    public void rdma_disconnect(MemorySegment id) {
        intCall("rdma_disconnect", rdma_disconnect.handle(), id);
    }

    /**
     * Blocks until an event arrives on the channel (unless its fd is non-blocking).
     *
     * @param channel the event channel
     * @param eventOut a pointer segment that receives the {@code struct rdma_cm_event *}
     */
    public void rdma_get_cm_event(MemorySegment channel, MemorySegment eventOut) {
        intCall("rdma_get_cm_event", rdma_get_cm_event.handle(), channel, eventOut);
    }

    /**
     * Acknowledges and frees a CM event.
     *
     * @param event an event from {@link #rdma_get_cm_event}
     */
    public void rdma_ack_cm_event(MemorySegment event) {
        intCall("rdma_ack_cm_event", rdma_ack_cm_event.handle(), event);
    }

    /**
     * {@return librdmacm's name for the event}
     *
     * @param event an {@code RDMA_CM_EVENT_*} value
     */
    public String rdma_event_str(int event) {
        try {
            MemorySegment s = (MemorySegment) rdma_event_str.handle().invokeExact(Errno.state(), event);
            return s.address() == 0 ? String.valueOf(event) : s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
    }

    /**
     * {@return the id's source port, in host order}
     *
     * @param id a bound id
     */
    public int rdma_get_src_port(MemorySegment id) {
        try {
            return ntohs((short) rdma_get_src_port.handle().invokeExact(Errno.state(), id));
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
    }

    /**
     * {@return the id's destination port, in host order}
     *
     * @param id a connected id
     */
    public int rdma_get_dst_port(MemorySegment id) {
        try {
            return ntohs((short) rdma_get_dst_port.handle().invokeExact(Errno.state(), id));
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
    }

    /**
     * Moves the id to another event channel.
     *
     * @param id the id to move
     * @param channel its new event channel
     */
    public void rdma_migrate_id(MemorySegment id, MemorySegment channel) {
        intCall("rdma_migrate_id", rdma_migrate_id.handle(), id, channel);
    }

    /** {@code ntohs}: a {@code __be16} as an unsigned host-order value. */
    static int ntohs(short networkOrder) {
        short host = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? networkOrder : Short.reverseBytes(networkOrder);
        return Short.toUnsignedInt(host);
    }

    private static void intCall(String function, MethodHandle handle, MemorySegment a) {
        int rc;
        try {
            rc = (int) handle.invokeExact(Errno.state(), a);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
        LibIbverbs.check(function, rc);
    }

    /**
     * Fills the QP attributes that move the id's QP to the state {@code attr} names.
     *
     * @param id an id bound to a device
     * @param attr an {@link IbvQpAttr} whose {@code qp_state} names the target state
     * @param maskOut an int segment that receives the {@code IBV_QP_*} mask to pass to {@code ibv_modify_qp}
     */
    public void rdma_init_qp_attr(MemorySegment id, MemorySegment attr, MemorySegment maskOut) {
        LibIbverbs.requireSize(attr, IbvQpAttr.SIZE);
        int rc;
        try {
            rc = (int) rdma_init_qp_attr.handle().invokeExact(Errno.state(), id, attr, maskOut);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
        LibIbverbs.check("rdma_init_qp_attr", rc);
    }

    /**
     * Completes an active connection whose QP the caller moved to RTS.
     *
     * @param id an active id whose connect response arrived and whose QP is in RTS
     */
    public void rdma_establish(MemorySegment id) {
        intCall("rdma_establish", rdma_establish.handle(), id);
    }

    private static void intCall(String function, MethodHandle handle, MemorySegment a, MemorySegment b) {
        int rc;
        try {
            rc = (int) handle.invokeExact(Errno.state(), a, b);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
        LibIbverbs.check(function, rc);
    }

    private static void intCall(String function, MethodHandle handle, MemorySegment a, int b) {
        int rc;
        try {
            rc = (int) handle.invokeExact(Errno.state(), a, b);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
        LibIbverbs.check(function, rc);
    }
}
