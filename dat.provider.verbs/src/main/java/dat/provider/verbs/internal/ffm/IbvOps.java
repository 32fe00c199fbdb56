// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The {@code static inline} verbs of verbs.h, re-implemented over the function pointers of
 * {@code struct ibv_context_ops} ({@link IbvContextOps}): libibverbs exports no symbol for them.
 *
 * <p>Two forms per data-path verb. {@code ibv_post_send(qp, wr, badWr)} and its siblings do what the C inline
 * does: follow {@code qp->context->ops.post_send} on every call. The short forms ({@link #post_send} ...) take
 * the function pointer as their first argument, so an EP reads the slot once with {@link #function} when it
 * creates its QP and the data path does no pointer chasing. Data-path calls return the C result as is
 * (0 or an errno value; {@code ibv_poll_cq} a count or a negative value), never throw for it and never capture
 * errno: the providers report through the return value. They pass their segments' addresses, not the segments, so
 * the caller must keep the memory alive across the call (native memory only; see the invokers' comment).
 *
 * <p>The invoker handles are {@code static final} so the JIT can inline them; this class is first touched only
 * after the provider has checked native access and loaded libibverbs.
 */
// Restricted methods on purpose: reached only after VerbsProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
public final class IbvOps {

    private static final Linker LINKER = Linker.nativeLinker();

    // The data path's invokers take their pointer arguments as addresses (JAVA_LONG), not segments: a segment of a
    // shared arena costs an acquire and a release of the arena per argument per call (about 2.5 ns each, measured
    // by dat.bench's VerbsOverheadBenchmark), and on every ABI Java runs on a pointer and a 64-bit integer travel in
    // the same register. Liveness is the callers' protocol instead: they post and poll under the lock that their
    // free takes to mark the object closed, and close its arena only after that, so no call reaches freed memory.

    /** {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **bad_wr)}. */
    private static final MethodHandle POST_SEND = critical(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG,
            JAVA_LONG));
    /** {@code int (*post_recv)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **bad_wr)}. */
    private static final MethodHandle POST_RECV = POST_SEND;
    /** {@code int (*post_srq_recv)(struct ibv_srq *, struct ibv_recv_wr *, struct ibv_recv_wr **bad_wr)}. */
    private static final MethodHandle POST_SRQ_RECV = POST_SEND;
    /** {@code int (*poll_cq)(struct ibv_cq *, int num_entries, struct ibv_wc *)}. */
    private static final MethodHandle POLL_CQ = critical(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT,
            JAVA_LONG));
    /** {@code int (*req_notify_cq)(struct ibv_cq *, int solicited_only)}. */
    private static final MethodHandle REQ_NOTIFY_CQ = critical(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT));
    /** {@code struct ibv_mw *(*alloc_mw)(struct ibv_pd *, enum ibv_mw_type)}: errno on failure. */
    private static final MethodHandle ALLOC_MW = LINKER.downcallHandle(
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT), Errno.CAPTURE);
    /** {@code int (*dealloc_mw)(struct ibv_mw *)}. */
    private static final MethodHandle DEALLOC_MW = invoker(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** {@code int (*bind_mw)(struct ibv_qp *, struct ibv_mw *, struct ibv_mw_bind *)}. */
    private static final MethodHandle BIND_MW = POST_SEND;

    private IbvOps() {
    }

    private static MethodHandle invoker(FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(descriptor);
    }

    /**
     * {@return an invoker for the data path's calls: post, poll, arm}. {@code Linker.Option.critical(false)} drops the
     * thread's transition to native and back (two memory fences and a safepoint poll), which is most of what a
     * downcall costs beside the driver's few nanoseconds. That is sound only for calls that are short, never call
     * back into Java, never block and take no heap memory: verbs providers run these in user space over mapped
     * queues, or make one short system call (rxe's doorbell), and every argument is native memory. What it gained is
     * measured by dat.bench's VerbsOverheadBenchmark beside a plain invoker and a C loop.
     */
    private static MethodHandle critical(FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(descriptor, Linker.Option.critical(false));
    }

    /**
     * Reads one function pointer of a context's ops table.
     *
     * @param context a {@code struct ibv_context *}, of any size
     * @param slot the slot's offset in {@link IbvContextOps}, for example {@link IbvContextOps#POST_SEND}
     * @return the function pointer; {@link MemorySegment#NULL} when the driver leaves the slot empty
     */
    public static MemorySegment function(MemorySegment context, long slot) {
        return context.reinterpret(IbvContext.SIZE).get(IbvContextOps.SLOT, IbvContext.OPS + slot);
    }

    /**
     * {@return the {@code ibv_context} of {@code object}}
     *
     * @param object a verbs object whose first field is {@code struct ibv_context *context} (ibv_qp, ibv_cq,
     *     ibv_srq, ibv_pd, ibv_mw all start so, as ibv_pd does; VerbsLayoutConsistencyTest checks it)
     */
    static MemorySegment contextOf(MemorySegment object) {
        return IbvPd.context(object.reinterpret(IbvPd.SIZE));
    }

    /**
     * {@code ibv_post_send}: {@code qp->context->ops.post_send(qp, wr, bad_wr)}.
     *
     * @param qp the QP
     * @param wr the first {@link IbvSendWr} of a list
     * @param badWr a pointer segment that receives the first failed request
     * @return 0, or an errno value
     */
    public static int ibv_post_send(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        return post_send(function(contextOf(qp), IbvContextOps.POST_SEND), qp, wr, badWr);
    }

    /**
     * {@code ibv_post_recv}: {@code qp->context->ops.post_recv(qp, wr, bad_wr)}.
     *
     * @param qp the QP
     * @param wr the first {@link IbvRecvWr} of a list
     * @param badWr a pointer segment that receives the first failed request
     * @return 0, or an errno value
     */
    public static int ibv_post_recv(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        return post_recv(function(contextOf(qp), IbvContextOps.POST_RECV), qp, wr, badWr);
    }

    /**
     * {@code ibv_post_srq_recv}: {@code srq->context->ops.post_srq_recv(srq, wr, bad_wr)}.
     *
     * @param srq the SRQ
     * @param wr the first {@link IbvRecvWr} of a list
     * @param badWr a pointer segment that receives the first failed request
     * @return 0, or an errno value
     */
    public static int ibv_post_srq_recv(MemorySegment srq, MemorySegment wr, MemorySegment badWr) {
        return post_srq_recv(function(contextOf(srq), IbvContextOps.POST_SRQ_RECV), srq, wr, badWr);
    }

    /**
     * {@code ibv_poll_cq}: {@code cq->context->ops.poll_cq(cq, num_entries, wc)}.
     *
     * @param cq the CQ
     * @param numEntries room in {@code wc}, in {@link IbvWc} entries
     * @param wc the completions array
     * @return the number of completions written, or a negative value on error
     */
    public static int ibv_poll_cq(MemorySegment cq, int numEntries, MemorySegment wc) {
        return poll_cq(function(contextOf(cq), IbvContextOps.POLL_CQ), cq, numEntries, wc);
    }

    /**
     * {@code ibv_req_notify_cq}: {@code cq->context->ops.req_notify_cq(cq, solicited_only)}.
     *
     * @param cq the CQ
     * @param solicitedOnly whether only solicited and error completions raise an event
     * @return 0, or an errno value
     */
    public static int ibv_req_notify_cq(MemorySegment cq, boolean solicitedOnly) {
        return req_notify_cq(function(contextOf(cq), IbvContextOps.REQ_NOTIFY_CQ), cq, solicitedOnly ? 1 : 0);
    }

    /**
     * The {@code post_send} slot, called directly.
     *
     * @param fn the slot's value, from {@link #function}
     * @param qp the QP
     * @param wr the first work request
     * @param badWr receives the first failed request
     * @return 0, or an errno value
     */
    public static int post_send(MemorySegment fn, MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        try {
            return (int) POST_SEND.invokeExact(fn, qp.address(), wr.address(), badWr.address());
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
    }

    /**
     * The {@code post_recv} slot, called directly.
     *
     * @param fn the slot's value, from {@link #function}
     * @param qp the QP
     * @param wr the first work request
     * @param badWr receives the first failed request
     * @return 0, or an errno value
     */
    public static int post_recv(MemorySegment fn, MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        try {
            return (int) POST_RECV.invokeExact(fn, qp.address(), wr.address(), badWr.address());
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
    }

    /**
     * The {@code post_srq_recv} slot, called directly.
     *
     * @param fn the slot's value, from {@link #function}
     * @param srq the SRQ
     * @param wr the first work request
     * @param badWr receives the first failed request
     * @return 0, or an errno value
     */
    public static int post_srq_recv(MemorySegment fn, MemorySegment srq, MemorySegment wr, MemorySegment badWr) {
        try {
            return (int) POST_SRQ_RECV.invokeExact(fn, srq.address(), wr.address(), badWr.address());
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
    }

    /**
     * The {@code poll_cq} slot, called directly.
     *
     * @param fn the slot's value, from {@link #function}
     * @param cq the CQ
     * @param numEntries room in {@code wc}
     * @param wc the completions array
     * @return the number of completions written, or a negative value on error
     */
    public static int poll_cq(MemorySegment fn, MemorySegment cq, int numEntries, MemorySegment wc) {
        try {
            return (int) POLL_CQ.invokeExact(fn, cq.address(), numEntries, wc.address());
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
    }

    /**
     * The {@code req_notify_cq} slot, called directly.
     *
     * @param fn the slot's value, from {@link #function}
     * @param cq the CQ
     * @param solicitedOnly 1 for solicited and error completions only, 0 for all
     * @return 0, or an errno value
     */
    public static int req_notify_cq(MemorySegment fn, MemorySegment cq, int solicitedOnly) {
        try {
            return (int) REQ_NOTIFY_CQ.invokeExact(fn, cq.address(), solicitedOnly);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
    }

    /**
     * {@code ibv_alloc_mw}: fails with {@code EOPNOTSUPP} when the driver has no {@code alloc_mw} slot, as
     * the C inline does.
     *
     * @param pd the protection domain
     * @param type {@link LibIbverbs#IBV_MW_TYPE_1} or {@link LibIbverbs#IBV_MW_TYPE_2}
     * @return the {@code struct ibv_mw}, sized to {@link IbvMw#LAYOUT}
     * @throws NativeCallException on failure
     */
    public static MemorySegment ibv_alloc_mw(MemorySegment pd, int type) {
        MemorySegment fn = function(contextOf(pd), IbvContextOps.ALLOC_MW);
        if (fn.address() == 0) {
            throw new NativeCallException("ibv_alloc_mw", Errno.EOPNOTSUPP);
        }
        MemorySegment mw;
        try {
            mw = (MemorySegment) ALLOC_MW.invokeExact(fn, Errno.state(), pd, type);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
        return LibIbverbs.sized("ibv_alloc_mw", mw, IbvMw.SIZE);
    }

    /**
     * {@code ibv_dealloc_mw}: {@code mw->context->ops.dealloc_mw(mw)}.
     *
     * @param mw the memory window
     * @throws NativeCallException on failure
     */
    public static void ibv_dealloc_mw(MemorySegment mw) {
        int rc;
        try {
            rc = (int) DEALLOC_MW.invokeExact(function(contextOf(mw), IbvContextOps.DEALLOC_MW), mw);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
        LibIbverbs.check("ibv_dealloc_mw", rc);
    }

    /**
     * {@code ibv_bind_mw} for type 1 windows, with the C inline's checks: {@code EINVAL} for a type 2 window
     * or an address range without a region, {@code EPERM} when window and region are in different PDs.
     *
     * @param qp the QP whose send queue carries the bind
     * @param mw the memory window
     * @param mwBind an {@link IbvMwBind}
     * @return 0, or an errno value (the bind completes on the send CQ)
     */
    public static int ibv_bind_mw(MemorySegment qp, MemorySegment mw, MemorySegment mwBind) {
        MemorySegment window = mw.reinterpret(IbvMw.SIZE);
        MemorySegment bind = mwBind.reinterpret(IbvMwBind.SIZE);
        if (IbvMw.type(window) != LibIbverbs.IBV_MW_TYPE_1) {
            return Errno.EINVAL;
        }
        MemorySegment mr = IbvMwBind.bindInfoMr(bind);
        if (mr.address() == 0) {
            if (IbvMwBind.bindInfoAddr(bind) != 0 || IbvMwBind.bindInfoLength(bind) != 0) {
                return Errno.EINVAL;
            }
        } else if (IbvMw.pd(window).address() != IbvMr.pd(mr.reinterpret(IbvMr.SIZE)).address()) {
            return Errno.EPERM;
        }
        try {
            return (int) BIND_MW.invokeExact(function(IbvMw.context(window), IbvContextOps.BIND_MW),
                    qp.address(), mw.address(), mwBind.address());
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(t);
        }
    }
}
