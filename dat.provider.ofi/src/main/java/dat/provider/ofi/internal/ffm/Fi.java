// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.spi.NativeEnvironment;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code static inline} functions of {@code rdma/fi_*.h}, re-implemented as the headers write them: each reads
 * the function pointer from the object's ops table ({@code fid->ops}, {@code fabric->ops}, {@code domain->ops},
 * {@code domain->mr}, {@code ep->cm}, {@code ep->msg}, {@code ep->rma}, {@code cq->ops}, {@code eq->ops},
 * {@code wait->ops}) and calls it. Each returns libfabric's value: 0 or a count, or a negative {@code FI_E*} code.
 *
 * <p>The data path's calls ({@link #post} for {@code fi_sendmsg}, {@code fi_recvmsg}, {@code fi_readmsg},
 * {@code fi_writemsg}, and {@link #cqRead}) take the function pointer the caller read once when it created the
 * object ({@link #slot}) and pass their pointers as addresses ({@code JAVA_LONG}): no segment argument, so no arena
 * acquire and release per call. Liveness is the callers' protocol: they post and poll under the lock their free
 * takes before it closes the object.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
public final class Fi {

    private static final Linker LINKER = Linker.nativeLinker();

    /** The signatures linked so far in this JVM, by holder name: discovery must link only its own. */
    private static final Set<String> LINKED = ConcurrentHashMap.newKeySet();

    // One holder class per signature (jextract's idiom): the JVM links a downcall stub when a call first needs it,
    // so discovery, which makes a passive endpoint and closes it, does not pay for the data path's stubs at start.
    private static final class IntP {
        static final MethodHandle H = invoker("IntP", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    private static final class IntPpl {
        static final MethodHandle H = invoker("IntPpl", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    }

    private static final class IntPip {
        static final MethodHandle H = invoker("IntPip", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    }

    private static final class IntPppp {
        static final MethodHandle H = invoker("IntPppp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
                ADDRESS));
    }

    private static final class IntPpp {
        static final MethodHandle H = invoker("IntPpp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    }

    private static final class IntPppl {
        static final MethodHandle H = invoker("IntPppl", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
                JAVA_LONG));
    }

    private static final class IntPl {
        static final MethodHandle H = invoker("IntPl", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    }

    private static final class IntPi {
        static final MethodHandle H = invoker("IntPi", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    }

    private static final class IntPpi {
        static final MethodHandle H = invoker("IntPpi", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    }

    private static final class IntPiipp {
        static final MethodHandle H = invoker("IntPiipp", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT,
                JAVA_INT, ADDRESS, ADDRESS));
    }

    private static final class MrReg {
        static final MethodHandle H = invoker("MrReg", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS));
    }

    private static final class EqRead {
        static final MethodHandle H = invoker("EqRead", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, ADDRESS,
                JAVA_LONG, JAVA_LONG));
    }

    private static final class EqReaderr {
        static final MethodHandle H = invoker("EqReaderr", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS,
                JAVA_LONG));
    }

    private static final class AvInsert {
        static final MethodHandle H = invoker("AvInsert", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
                JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS));
    }

    private static final class AvRemove {
        static final MethodHandle H = invoker("AvRemove", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
                JAVA_LONG, JAVA_LONG));
    }

    private static final class Cancel {
        static final MethodHandle H = invoker("Cancel", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));
    }

    // Data path: addresses as longs, no errno, no allocation. Not Linker.Option.critical, whose thread stays in Java
    // for the call: shm 1.17 can spin in these for ever (a dead peer's region lock) and no safepoint would then come
    // for the whole JVM; six alternated pairs of one-way latency runs did not tell the two apart.
    private static final class Post {
        static final MethodHandle H = invoker("Post", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG));
    }

    private static final class CqRead {
        static final MethodHandle H = invoker("CqRead", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG));
    }

    private Fi() {
    }

    private static MethodHandle invoker(String name, FunctionDescriptor d) {
        LINKED.add(name);
        return LINKER.downcallHandle(d);
    }

    /** {@return the names of the signature holders linked so far in this JVM, for tests} */
    public static Set<String> linked() {
        return Set.copyOf(LINKED);
    }

    /**
     * {@return the function pointer in slot {@code offset} of the ops table at {@code tableOffset} of an object}
     *
     * @param object a libfabric object ({@code fid_ep}, {@code fid_cq}, ...)
     * @param tableOffset where the object holds its ops table pointer, for example {@link FidEp#MSG}
     * @param offset the slot in that table, for example {@link FiOpsMsg#SENDMSG}
     */
    public static MemorySegment slot(MemorySegment object, long tableOffset, long offset) {
        MemorySegment table = object.reinterpret(tableOffset + 8).get(ADDRESS, tableOffset);
        if (table.address() == 0) {
            return MemorySegment.NULL;
        }
        MemorySegment size = table.reinterpret(8);
        if (size.get(JAVA_LONG, 0) < offset + 8) {
            // The table predates the slot (its size member says how far it reaches): as if the op were NULL.
            return MemorySegment.NULL;
        }
        return table.reinterpret(offset + 8).get(ADDRESS, offset);
    }

    private static IllegalStateException unexpected(Throwable t) {
        return LibFabric.unexpected(t);
    }

    private static int noOp() {
        return -LibFabric.FI_ENOSYS;
    }

    // ---- struct fid: fi_close, fi_ep_bind (and fi_pep_bind, fi_srx bind), fi_enable ----

    /**
     * {@code fi_close(fid)}.
     *
     * @param fid any fid
     * @return 0 or -FI_E*
     */
    public static int fi_close(MemorySegment fid) {
        MemorySegment fn = slot(fid, Fid.OPS, FiOps.CLOSE);
        try {
            return fn.address() == 0 ? noOp() : (int) IntP.H.invokeExact(fn, fid);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_control(fid, command, arg)}.
     *
     * @param fid any fid
     * @param command {@link LibFabric#FI_GETWAIT}, ...
     * @param arg the command's argument
     * @return 0 or -FI_E*
     */
    public static int fi_control(MemorySegment fid, int command, MemorySegment arg) {
        MemorySegment fn = slot(fid, Fid.OPS, FiOps.CONTROL);
        try {
            return fn.address() == 0 ? -LibFabric.FI_ENOSYS : (int) IntPip.H.invokeExact(fn, fid, command, arg);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_ep_bind(ep, bfid, flags)}, which is also {@code fi_pep_bind} and {@code fi_scalable_ep_bind}.
     *
     * @param ep the endpoint
     * @param bfid the CQ, EQ or SRX context
     * @param flags {@link LibFabric#FI_SEND}, {@link LibFabric#FI_RECV}, ...
     * @return 0 or -FI_E*
     */
    public static int fi_ep_bind(MemorySegment ep, MemorySegment bfid, long flags) {
        MemorySegment fn = slot(ep, Fid.OPS, FiOps.BIND);
        try {
            return fn.address() == 0 ? noOp() : (int) IntPpl.H.invokeExact(fn, ep, bfid, flags);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_enable(ep)}.
     *
     * @param ep the endpoint
     * @return 0 or -FI_E*
     */
    public static int fi_enable(MemorySegment ep) {
        MemorySegment fn = slot(ep, Fid.OPS, FiOps.CONTROL);
        try {
            return fn.address() == 0 ? noOp() : (int) IntPip.H.invokeExact(fn, ep, LibFabric.FI_ENABLE,
                    MemorySegment.NULL);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // ---- fabric ----

    /**
     * {@code fi_domain(fabric, info, &domain, context)}.
     *
     * @param fabric the fabric
     * @param info the entry
     * @param out a pointer-sized segment for the domain
     * @return 0 or -FI_E*
     */
    public static int fi_domain(MemorySegment fabric, MemorySegment info, MemorySegment out) {
        return call4(slot(fabric, FidFabric.OPS, FiOpsFabric.DOMAIN), fabric, info, out, MemorySegment.NULL);
    }

    /**
     * {@code fi_passive_ep(fabric, info, &pep, context)}.
     *
     * @param fabric the fabric
     * @param info the entry, with the listening address in {@code src_addr}
     * @param out a pointer-sized segment for the passive endpoint
     * @return 0 or -FI_E*
     */
    public static int fi_passive_ep(MemorySegment fabric, MemorySegment info, MemorySegment out) {
        return call4(slot(fabric, FidFabric.OPS, FiOpsFabric.PASSIVE_EP), fabric, info, out, MemorySegment.NULL);
    }

    /**
     * {@code fi_eq_open(fabric, attr, &eq, context)}.
     *
     * @param fabric the fabric
     * @param attr a {@link FiEqAttr}
     * @param out a pointer-sized segment for the EQ
     * @return 0 or -FI_E*
     */
    public static int fi_eq_open(MemorySegment fabric, MemorySegment attr, MemorySegment out) {
        return call4(slot(fabric, FidFabric.OPS, FiOpsFabric.EQ_OPEN), fabric, attr, out, MemorySegment.NULL);
    }

    /**
     * {@code fi_wait_open(fabric, attr, &waitset)}.
     *
     * @param fabric the fabric
     * @param attr a {@link FiWaitAttr}
     * @param out a pointer-sized segment for the wait set
     * @return 0 or -FI_E*
     */
    public static int fi_wait_open(MemorySegment fabric, MemorySegment attr, MemorySegment out) {
        MemorySegment fn = slot(fabric, FidFabric.OPS, FiOpsFabric.WAIT_OPEN);
        try {
            return fn.address() == 0 ? noOp() : (int) IntPpp.H.invokeExact(fn, fabric, attr, out);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_trywait(fabric, fids, count)}: whether blocking on the wait objects of {@code fids} is safe now.
     *
     * @param fabric the fabric
     * @param fids {@code count} {@code struct fid *}
     * @param count how many
     * @return 0 when it is, -FI_EAGAIN when completions are waiting to be read, or -FI_E*
     */
    public static int fi_trywait(MemorySegment fabric, MemorySegment fids, int count) {
        MemorySegment fn = slot(fabric, FidFabric.OPS, FiOpsFabric.TRYWAIT);
        try {
            return fn.address() == 0 ? -LibFabric.FI_ENOSYS : (int) IntPpi.H.invokeExact(fn, fabric, fids, count);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // ---- domain ----

    /**
     * {@code fi_cq_open(domain, attr, &cq, context)}.
     *
     * @param domain the domain
     * @param attr a {@link FiCqAttr}
     * @param out a pointer-sized segment for the CQ
     * @return 0 or -FI_E*
     */
    public static int fi_cq_open(MemorySegment domain, MemorySegment attr, MemorySegment out) {
        return call4(slot(domain, FidDomain.OPS, FiOpsDomain.CQ_OPEN), domain, attr, out, MemorySegment.NULL);
    }

    /**
     * {@code fi_endpoint(domain, info, &ep, context)}.
     *
     * @param domain the domain
     * @param info the entry (for a passive side, the connection request's)
     * @param out a pointer-sized segment for the endpoint
     * @return 0 or -FI_E*
     */
    public static int fi_endpoint(MemorySegment domain, MemorySegment info, MemorySegment out) {
        // shm 1.17's first endpoint installs handlers for SIGBUS, SIGSEGV, SIGTERM and SIGINT (smr_init_sig_handlers)
        // that unlink every shm name of the process and then hand the signal on: the JVM's first safepoint poll
        // after it removed the live endpoints' names, and no new peer could reach them. Put back at once, they are
        // in place only while the first endpoint is made, when no shm endpoint has a name yet (a name comes with
        // FI_ENABLE): one at a time, so no other endpoint is enabled meanwhile.
        synchronized (ENDPOINT_LOCK) {
            return NativeEnvironment.keepingSignals("fi_endpoint", () -> call4(slot(domain, FidDomain.OPS,
                    FiOpsDomain.ENDPOINT), domain, info, out, MemorySegment.NULL));
        }
    }

    private static final Object ENDPOINT_LOCK = new Object();

    /**
     * {@code fi_srx_context(domain, attr, &rx_ep, context)}.
     *
     * @param domain the domain
     * @param attr a {@link FiRxAttr}
     * @param out a pointer-sized segment for the shared receive context
     * @return 0 or -FI_E*
     */
    public static int fi_srx_context(MemorySegment domain, MemorySegment attr, MemorySegment out) {
        return call4(slot(domain, FidDomain.OPS, FiOpsDomain.SRX_CTX), domain, attr, out, MemorySegment.NULL);
    }

    /**
     * {@code fi_mr_reg(domain, buf, len, access, offset, requested_key, flags, &mr, context)}.
     *
     * @param domain the domain
     * @param buf the region
     * @param len its length
     * @param access {@code FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE}
     * @param requestedKey the key, where the domain lets the consumer choose it
     * @param out a pointer-sized segment for the region
     * @return 0 or -FI_E*
     */
    public static int fi_mr_reg(MemorySegment domain, long buf, long len, long access, long requestedKey,
                                MemorySegment out) {
        MemorySegment fn = slot(domain, FidDomain.MR, FiOpsMr.REG);
        try {
            return fn.address() == 0 ? noOp() : (int) MrReg.H.invokeExact(fn, domain, MemorySegment.ofAddress(buf),
                    len, access, 0L, requestedKey, 0L, out, MemorySegment.NULL);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // ---- endpoint control and connection management ----

    /**
     * {@code fi_getopt(fid, level, optname, optval, optlen)}.
     *
     * @param ep an endpoint or passive endpoint
     * @param level {@link LibFabric#FI_OPT_ENDPOINT}
     * @param optname for example {@link LibFabric#FI_OPT_CM_DATA_SIZE}
     * @param optval where the value goes
     * @param optlen a {@code size_t} holding optval's size
     * @return 0 or -FI_E*
     */
    public static int fi_getopt(MemorySegment ep, int level, int optname, MemorySegment optval, MemorySegment optlen) {
        MemorySegment fn = slot(ep, FidEp.OPS, FiOpsEp.GETOPT);
        try {
            return fn.address() == 0 ? noOp() : (int) IntPiipp.H.invokeExact(fn, ep, level, optname, optval, optlen);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_getname(fid, addr, addrlen)}.
     *
     * @param ep an endpoint or passive endpoint
     * @param addr where the address goes
     * @param addrlen a {@code size_t} holding addr's size
     * @return 0 or -FI_E*
     */
    public static int fi_getname(MemorySegment ep, MemorySegment addr, MemorySegment addrlen) {
        MemorySegment fn = slot(ep, FidEp.CM, FiOpsCm.GETNAME);
        try {
            return fn.address() == 0 ? noOp() : (int) IntPpp.H.invokeExact(fn, ep, addr, addrlen);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_getpeer(ep, addr, addrlen)}.
     *
     * @param ep a connected endpoint
     * @param addr where the address goes
     * @param addrlen a {@code size_t} holding addr's size
     * @return 0 or -FI_E*
     */
    public static int fi_getpeer(MemorySegment ep, MemorySegment addr, MemorySegment addrlen) {
        MemorySegment fn = slot(ep, FidEp.CM, FiOpsCm.GETPEER);
        try {
            return fn.address() == 0 ? noOp() : (int) IntPpp.H.invokeExact(fn, ep, addr, addrlen);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_connect(ep, addr, param, paramlen)}.
     *
     * @param ep the endpoint, enabled
     * @param addr the passive endpoint's address
     * @param param the private data, or {@code NULL}
     * @param len its length
     * @return 0 or -FI_E*
     */
    public static int fi_connect(MemorySegment ep, MemorySegment addr, MemorySegment param, long len) {
        MemorySegment fn = slot(ep, FidEp.CM, FiOpsCm.CONNECT);
        try {
            return fn.address() == 0 ? noOp() : (int) IntPppl.H.invokeExact(fn, ep, addr, param, len);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_listen(pep)}.
     *
     * @param pep the passive endpoint
     * @return 0 or -FI_E*
     */
    public static int fi_listen(MemorySegment pep) {
        MemorySegment fn = slot(pep, FidPep.CM, FiOpsCm.LISTEN);
        try {
            return fn.address() == 0 ? noOp() : (int) IntP.H.invokeExact(fn, pep);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_accept(ep, param, paramlen)}.
     *
     * @param ep the endpoint made from the request's info, enabled
     * @param param the private data, or {@code NULL}
     * @param len its length
     * @return 0 or -FI_E*
     */
    public static int fi_accept(MemorySegment ep, MemorySegment param, long len) {
        MemorySegment fn = slot(ep, FidEp.CM, FiOpsCm.ACCEPT);
        try {
            return fn.address() == 0 ? noOp() : (int) IntPpl.H.invokeExact(fn, ep, param, len);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_reject(pep, handle, param, paramlen)}.
     *
     * @param pep the passive endpoint the request came to
     * @param handle the request's {@code info->handle}
     * @param param the private data, or {@code NULL}
     * @param len its length
     * @return 0 or -FI_E*
     */
    public static int fi_reject(MemorySegment pep, MemorySegment handle, MemorySegment param, long len) {
        MemorySegment fn = slot(pep, FidPep.CM, FiOpsCm.REJECT);
        try {
            return fn.address() == 0 ? noOp() : (int) IntPppl.H.invokeExact(fn, pep, handle, param, len);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_shutdown(ep, flags)}.
     *
     * @param ep the endpoint
     * @return 0 or -FI_E*
     */
    public static int fi_shutdown(MemorySegment ep) {
        MemorySegment fn = slot(ep, FidEp.CM, FiOpsCm.SHUTDOWN);
        try {
            return fn.address() == 0 ? noOp() : (int) IntPl.H.invokeExact(fn, ep, 0L);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // ---- event queue ----

    /**
     * {@code fi_eq_read(eq, &event, buf, len, flags)}.
     *
     * @param eq the EQ
     * @param event a {@code uint32_t} for the event type
     * @param buf the entry buffer
     * @param len its size
     * @return the bytes read, -FI_EAGAIN when empty, -FI_EAVAIL when an error entry waits
     */
    public static long fi_eq_read(MemorySegment eq, MemorySegment event, MemorySegment buf, long len) {
        return eqRead(slot(eq, FidEq.OPS, FiOpsEq.READ), eq, event, buf, len);
    }

    /**
     * {@link #fi_eq_read} through the op's {@link #slot}, looked up once by a caller that reads the EQ every
     * progress step (the lookup's segments are allocations the JIT does not always remove).
     *
     * @param fn the EQ's {@code read} op, or NULL
     * @param eq the EQ
     * @param event receives the event type
     * @param buf receives the entry
     * @param len the buffer's length
     * @return as {@link #fi_eq_read}
     */
    public static long eqRead(MemorySegment fn, MemorySegment eq, MemorySegment event, MemorySegment buf, long len) {
        try {
            return fn.address() == 0 ? noOp() : (long) EqRead.H.invokeExact(fn, eq, event, buf, len, 0L);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_eq_readerr(eq, buf, flags)}.
     *
     * @param eq the EQ
     * @param buf a {@link FiEqErrEntry}, {@code err_data_size} 0 so the provider lends its buffer
     * @return the bytes read or -FI_E*
     */
    public static long fi_eq_readerr(MemorySegment eq, MemorySegment buf) {
        MemorySegment fn = slot(eq, FidEq.OPS, FiOpsEq.READERR);
        try {
            return fn.address() == 0 ? noOp() : (long) EqReaderr.H.invokeExact(fn, eq, buf, 0L);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // ---- wait set ----

    /**
     * {@code fi_wait(waitset, timeout)}.
     *
     * @param waitset the wait set
     * @param timeoutMs ms, -1 forever
     * @return rc
     */
    public static int fi_wait(MemorySegment waitset, int timeoutMs) {
        MemorySegment fn = slot(waitset, FidWait.OPS, FiOpsWait.WAIT);
        try {
            return fn.address() == 0 ? noOp() : (int) IntPi.H.invokeExact(fn, waitset, timeoutMs);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // ---- completion queue ----

    /**
     * {@code fi_cq_readerr(cq, buf, flags)}.
     *
     * @param cq the CQ
     * @param buf a {@link FiCqErrEntry}, {@code err_data_size} 0
     * @return 1, -FI_EAGAIN, or -FI_E*
     */
    public static long fi_cq_readerr(MemorySegment cq, MemorySegment buf) {
        MemorySegment fn = slot(cq, FidCq.OPS, FiOpsCq.READERR);
        try {
            return fn.address() == 0 ? noOp() : (long) EqReaderr.H.invokeExact(fn, cq, buf, 0L);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_cq_read(cq, buf, count)} through a pointer read once with {@link #slot}.
     *
     * @param fn the CQ's {@code read} op
     * @param cq the CQ's address
     * @param buf the entries' address
     * @param count how many fit
     * @return the entries read, -FI_EAGAIN, -FI_EAVAIL, or -FI_E*
     */
    public static long cqRead(MemorySegment fn, long cq, long buf, long count) {
        try {
            return (long) CqRead.H.invokeExact(fn, cq, buf, count);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // ---- data path: fi_sendmsg, fi_recvmsg, fi_readmsg, fi_writemsg ----

    /**
     * Calls a {@code sendmsg}, {@code recvmsg}, {@code readmsg} or {@code writemsg} op read with {@link #slot}.
     *
     * @param fn the op
     * @param ep the endpoint's (or SRX context's) address
     * @param msg the {@link FiMsg} or {@link FiMsgRma}'s address
     * @param flags for example {@link LibFabric#FI_COMPLETION}
     * @return 0, -FI_EAGAIN, or -FI_E*
     */
    public static long post(MemorySegment fn, long ep, long msg, long flags) {
        try {
            return (long) Post.H.invokeExact(fn, ep, msg, flags);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_cancel(fid, context)} through a pointer read once with {@link #slot} ({@code ep->ops->cancel}).
     *
     * @param fn the endpoint's (or SRX context's) {@code cancel} op
     * @param ep its address
     * @param context the operation context to cancel
     * @return 0 or -FI_E*
     */
    public static long cancel(MemorySegment fn, long ep, long context) {
        if (fn.address() == 0) {
            return -LibFabric.FI_ENOSYS;
        }
        try {
            return (long) Cancel.H.invokeExact(fn, ep, context);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // ---- address vectors, names: fi_av_open, fi_av_insert, fi_av_remove, fi_setname ----

    /**
     * {@code fi_av_open(domain, attr, &av, context)}.
     *
     * @param domain the domain
     * @param attr a {@link FiAvAttr}
     * @param out a pointer-sized segment for the AV
     * @return 0 or -FI_E*
     */
    public static int fi_av_open(MemorySegment domain, MemorySegment attr, MemorySegment out) {
        return call4(slot(domain, FidDomain.OPS, FiOpsDomain.AV_OPEN), domain, attr, out, MemorySegment.NULL);
    }

    /**
     * {@code fi_av_insert(av, addr, count, fi_addr, flags, context)}.
     *
     * @param av the address vector
     * @param addr {@code count} addresses in the fabric's format, back to back
     * @param count how many
     * @param fiAddr {@code count} {@code fi_addr_t}s for the result ({@link LibFabric#FI_ADDR_NOTAVAIL} on failure)
     * @param flags 0
     * @return the number inserted, or -FI_E*
     */
    public static int fi_av_insert(MemorySegment av, MemorySegment addr, long count, MemorySegment fiAddr,
            long flags) {
        MemorySegment fn = slot(av, FidAv.OPS, FiOpsAv.INSERT);
        try {
            return fn.address() == 0 ? noOp()
                    : (int) AvInsert.H.invokeExact(fn, av, addr, count, fiAddr, flags, MemorySegment.NULL);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_av_remove(av, fi_addr, count, flags)}.
     *
     * @param av the address vector
     * @param fiAddr {@code count} {@code fi_addr_t}s to remove
     * @param count how many
     * @param flags 0
     * @return 0 or -FI_E*
     */
    public static int fi_av_remove(MemorySegment av, MemorySegment fiAddr, long count, long flags) {
        MemorySegment fn = slot(av, FidAv.OPS, FiOpsAv.REMOVE);
        try {
            return fn.address() == 0 ? noOp() : (int) AvRemove.H.invokeExact(fn, av, fiAddr, count, flags);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code fi_setname(fid, addr, addrlen)}: the endpoint's own address, set before {@code fi_enable}.
     *
     * @param ep the endpoint
     * @param addr the address in the fabric's format
     * @param addrlen its length
     * @return 0 or -FI_E*
     */
    public static int fi_setname(MemorySegment ep, MemorySegment addr, long addrlen) {
        MemorySegment fn = slot(ep, FidEp.CM, FiOpsCm.SETNAME);
        try {
            return fn.address() == 0 ? noOp() : (int) IntPpl.H.invokeExact(fn, ep, addr, addrlen);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // ---- tagged data path: fi_tsendmsg, fi_trecvmsg through post() ----

    /**
     * {@return an endpoint's tagged {@code sendmsg} op, for {@link #post} with a {@link FiMsgTagged}}
     *
     * @param ep the endpoint
     */
    public static MemorySegment tsendmsgOp(MemorySegment ep) {
        return slot(ep, FidEp.TAGGED, FiOpsTagged.SENDMSG);
    }

    /**
     * {@return an endpoint's tagged {@code recvmsg} op, for {@link #post} with a {@link FiMsgTagged}}
     *
     * @param ep the endpoint
     */
    public static MemorySegment trecvmsgOp(MemorySegment ep) {
        return slot(ep, FidEp.TAGGED, FiOpsTagged.RECVMSG);
    }

    private static int call4(MemorySegment fn, MemorySegment a, MemorySegment b, MemorySegment c, MemorySegment d) {
        try {
            return fn.address() == 0 ? noOp() : (int) IntPppp.H.invokeExact(fn, a, b, c, d);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }
}
