// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.Iov;
import dat.provider.verbs.internal.ffm.Errno;
import dat.provider.verbs.internal.ffm.IbvContextOps;
import dat.provider.verbs.internal.ffm.IbvMwBind;
import dat.provider.verbs.internal.ffm.IbvOps;
import dat.provider.verbs.internal.ffm.IbvQpAttr;
import dat.provider.verbs.internal.ffm.IbvRecvWr;
import dat.provider.verbs.internal.ffm.IbvSendWr;
import dat.provider.verbs.internal.ffm.IbvSge;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.NativeCallException;
import dat.spi.DtoArgs;
import dat.spi.LmrTriplet;
import dat.spi.Rings;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The data path of a {@link VerbsEp}: {@code dat_ep_post_send}, {@code dat_ep_post_recv},
 * {@code dat_ep_post_rdma_read}, {@code dat_ep_post_rdma_write}, and the EP's half of {@code dat_rmr_bind} (the bind
 * posted on the send queue, in order; the window's half and the argument checks are {@link VerbsRmr}'s); the slots
 * requests hold, and the translation of their completions ({@link #requestCompleted}, {@link #recvCompleted},
 * {@link #reaped}), which the EVDs call.
 *
 * <h2>Requests and their slots</h2>
 * A request holds one of {@code max_request_dtos} slots from its post until its completion is reaped (DatEp's
 * contract). Slots are a ring indexed by the post sequence, which the {@code wr_id} carries: send-queue completions
 * arrive in posting order, so a signalled completion for sequence {@code s} also completes every unsignalled request
 * before it. A request whose success is suppressed ({@code DAT_COMPLETION_SUPPRESS_FLAG}) is posted unsignalled,
 * except that every {@code max_request_dtos / 2}-th is signalled internally so the send queue always drains; its
 * slot is free when a later completion is polled. Errors are always reported: flushed work requests complete
 * signalled or not. Receives work the same way on their own ring.
 *
 * <h2>Window binds go out in order</h2>
 * A window bind is a local operation: soft-RoCE (rxe, Linux 6.1) executes it as soon as its requester reaches it,
 * and when an earlier request of the queue is then retried (an RNR NAK, a lost packet), rxe rewinds to that
 * request and executes the bind a second time; the window's key moved on at the first execution, so the second
 * fails and the requester stops, its later requests hanging or flushed while the QP still shows RTS (TCK rule
 * {@code optional_rmr_bind_inOrderBehindASendAwaitingItsReceive}). So a bind goes to the QP only when every request
 * posted before it has completed; until then it, and every request posted after it, are held in this EP's slots
 * (their work requests copied, nothing allocated) and posted in order by whichever thread translates the completion
 * that releases them ({@link #drainHeld}). Knowing that needs a completion for every request, so an EP that can
 * bind (its request EVD takes RMR_BIND events) signals every request and consumes suppressed successes itself.
 * Held requests are guarded by the send EVD's lock, which the translating thread holds.
 *
 * <h2>Locking</h2>
 * The EP's lock ({@link VerbsEp#lock}) guards the posting bookkeeping. Completions are translated under their EVD's
 * lock; the slot arrays are written before {@link #reqPosted} (volatile) is advanced and read after it, so the
 * translating thread sees what the posting thread wrote.
 */
final class VerbsEpData {

    private static final System.Logger LOG = System.getLogger("dat.provider.verbs");
    /** Completion flags of RDMA requests and binds; a send may also solicit ({@code SOLICITED_WAIT}). */
    private static final int REQUEST_FLAGS = DatCompletionFlags.SUPPRESS | DatCompletionFlags.BARRIER_FENCE;
    private static final int RECV_FLAGS = DatCompletionFlags.SUPPRESS;
    private static final byte OP_SEND = 0;
    private static final byte OP_READ = 1;
    private static final byte OP_WRITE = 2;
    private static final byte OP_BIND = 3;

    private final VerbsEp ep;
    private final VerbsEpConnection connection;
    // The EP's, copied: the data path reads them without going through the EP.
    private final VerbsIa ia;
    private final VerbsPz pz;
    private final VerbsSrq srq;
    private final ReentrantLock lock;
    private final Arena arena;
    private final MemorySegment qp;
    private final int qpNum;
    private final VerbsEvd sendCq;
    private final VerbsEvd recvCq;
    private final VerbsEvd hiddenRequestEvd;
    private final VerbsEvd hiddenRecvEvd;

    private final MemorySegment postSendFn;
    private final MemorySegment postRecvFn;
    private final MemorySegment sendWr;
    final MemorySegment sendSges;
    private final MemorySegment recvWr;
    final MemorySegment recvSges;
    private final MemorySegment badWr;
    private final MemorySegment bindArgs;
    /** Where the posts read the consumer's triplets; used under {@link #lock}. */
    private final LmrTriplet triplet = new LmrTriplet();
    /** The request EVD takes RMR_BIND events, so binds may be posted: every request is signalled. */
    private final boolean mayBind;

    // Requests: written under lock before reqPosted advances; read by the request EVD after reading reqPosted. The
    // slot arrays are a power of two long (Rings.size), indexed by sequence & (length - 1); reqLimit, the EP's
    // max_request_dtos, is how many requests may be outstanding (guarded by lock).
    private int reqLimit;
    private long[] reqCookie;
    private long[] reqLength;
    private byte[] reqOp;
    private boolean[] reqReport;
    /** The window a bind in the slot binds; {@code null} for a DTO. */
    private VerbsRmr[] reqRmr;
    private volatile long reqPosted;
    /**
     * Next sequence whose completion the EVD has not seen; written by the request EVD's translation, and by a
     * reset under that EVD's lock.
     */
    private long reqCompleted;
    private int unsignalledRun;
    final AtomicInteger reqUnreaped = new AtomicInteger();
    /** The first sequence of the current connection (see {@link #resetLocked}); older completions hold no slot. */
    private volatile long reqEpochStart;

    // Requests held behind a window bind (see the class comment); guarded by the send EVD's lock.
    /** Requests from {@link #heldFrom} to {@link #reqPosted} are held; written under the send EVD's lock too. */
    private volatile boolean holding;
    private long heldFrom;
    /** Per request slot, room for its work request followed by its SGEs; made by the EP's first held request. */
    private MemorySegment[] heldWr;
    private MemorySegment drainBadWr;
    /** For the stand-in of a held request the QP refused ({@link #standIn}). */
    private MemorySegment standInWr;
    private MemorySegment standInAttr;

    // Receives, the same way (unused on an SRQ EP); recvLimit is max_recv_dtos.
    private int recvLimit;
    private long[] recvCookie;
    private boolean[] recvReport;
    private volatile long recvPosted;
    /** Volatile: dat_ep_recv_query may read it on another thread while the recv EVD translates. */
    private volatile long recvCompleted;
    final AtomicInteger recvUnreaped = new AtomicInteger();
    private volatile long recvEpochStart;

    VerbsEpData(VerbsEp ep, int sendIov) {
        this.ep = ep;
        this.connection = ep.connection;
        this.ia = ep.owner();
        this.pz = ep.pz;
        this.srq = ep.srq;
        this.lock = ep.lock;
        this.arena = ep.arena;
        this.qp = ep.qp;
        this.qpNum = ep.qpNum;
        this.sendCq = ep.sendCq;
        this.recvCq = ep.recvCq;
        this.hiddenRequestEvd = ep.hiddenRequestEvd;
        this.hiddenRecvEvd = ep.hiddenRecvEvd;
        this.mayBind = ep.requestEvd == null || (ep.requestEvd.flags() & DatEvdFlags.RMR_BIND) != 0;
        this.postSendFn = IbvOps.function(ia.context, IbvContextOps.POST_SEND);
        this.postRecvFn = IbvOps.function(ia.context, IbvContextOps.POST_RECV);
        this.sendWr = arena.allocate(IbvSendWr.LAYOUT);
        this.sendSges = arena.allocate(IbvSge.LAYOUT, sendIov);
        this.recvWr = arena.allocate(IbvRecvWr.LAYOUT);
        this.recvSges = arena.allocate(IbvSge.LAYOUT, Math.max(1, ep.attr.maxRecvIov()));
        this.badWr = arena.allocate(ADDRESS);
        this.bindArgs = arena.allocate(IbvMwBind.LAYOUT);
        IbvSendWr.sgList(sendWr, sendSges);
        IbvSendWr.immData(sendWr, VerbsEvd.SOLICITED);
        IbvRecvWr.sgList(recvWr, recvSges);
        sizeQueues(ep.attr);
    }

    /** {@return how many requests may be outstanding: the EP's max_request_dtos} Caller holds lock. */
    int reqLimit() {
        return reqLimit;
    }

    /** {@return how many receives may be outstanding: max_recv_dtos, 0 on an SRQ EP} Caller holds lock. */
    int recvLimit() {
        return recvLimit;
    }

    /** Sizes the slot rings for {@code a}: at dat_ep_create, and by dat_ep_modify on an idle EP. */
    void sizeQueues(DatEpAttr a) {
        reqLimit = a.maxRequestDtos();
        int reqSlots = Rings.size(reqLimit);
        reqCookie = new long[reqSlots];
        reqLength = new long[reqSlots];
        reqOp = new byte[reqSlots];
        reqReport = new boolean[reqSlots];
        reqRmr = new VerbsRmr[reqSlots];
        recvLimit = srq == null ? a.maxRecvDtos() : 0;
        int recvSlots = srq == null ? Rings.size(recvLimit) : 0;
        recvCookie = new long[recvSlots];
        recvReport = new boolean[recvSlots];
        heldWr = null;
    }

    /**
     * dat_ep_post_send / _rdma_write / _rdma_read: "The operation is valid for the Endpoint in the
     * DAT_EP_STATE_CONNECTED and DAT_EP_STATE_DISCONNECTED states" (in DISCONNECTED the QP is in ERROR, so the
     * request is flushed at once). Caller holds lock.
     */
    private int postableLocked() {
        if (ep.isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        connection.promoteLocked();
        DatEpState s = ep.state;
        return s == DatEpState.CONNECTED || s == DatEpState.DISCONNECTED ? DatReturn.DAT_SUCCESS
                : DatReturn.DAT_INVALID_STATE;
    }

    int postSend(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        if (ep.isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        lock.lock();
        try {
            int status = postableLocked();
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            if (DtoArgs.iov(numSegments, localIov, ep.attr.maxRequestIov()) != DatReturn.DAT_SUCCESS) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            status = checkPostFlags(completionFlags, ia.solicitedSends
                    ? REQUEST_FLAGS | DatCompletionFlags.SOLICITED_WAIT
                    : REQUEST_FLAGS);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            long total = WorkRequests.load(ia, pz, numSegments, localIov, DatMemPriv.LOCAL_READ, sendSges,
                    triplet);
            if (total < 0) {
                return (int) total;
            }
            if (total > ep.attr.maxMessageSize()) {
                // The post_send page lists no DAT_LENGTH_ERROR: a message over max_message_size is a bad argument.
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            return postRequestLocked(OP_SEND, numSegments, userCookie, completionFlags, total, 0, 0);
        } finally {
            lock.unlock();
        }
    }

    int postRdmaWrite(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                      long segmentLength, int completionFlags) {
        return postRdma(OP_WRITE, numSegments, localIov, userCookie, rmrContext, targetAddress, segmentLength,
                completionFlags);
    }

    int postRdmaRead(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                     long segmentLength, int completionFlags) {
        return postRdma(OP_READ, numSegments, localIov, userCookie, rmrContext, targetAddress, segmentLength,
                completionFlags);
    }

    private int postRdma(byte op, int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                         long segmentLength, int completionFlags) {
        if (ep.isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        boolean write = op == OP_WRITE;
        lock.lock();
        try {
            int status = postableLocked();
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            int maxIov = write ? ep.attr.maxRdmaWriteIov() : ep.attr.maxRdmaReadIov();
            if (DtoArgs.iov(numSegments, localIov, maxIov) != DatReturn.DAT_SUCCESS || segmentLength < 0) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            status = checkPostFlags(completionFlags, REQUEST_FLAGS);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            if (!write && ep.attr.maxRdmaReadOut() == 0) {
                // The connection was negotiated with no outstanding RDMA reads: the HCA would refuse it.
                return DatReturn.DAT_INVALID_STATE;
            }
            long total = WorkRequests.load(ia, pz, numSegments, localIov,
                    write ? DatMemPriv.LOCAL_READ : DatMemPriv.LOCAL_WRITE, sendSges, triplet);
            if (total < 0) {
                return (int) total;
            }
            long moved = write ? total : segmentLength;
            // "The size of the remote buffer is too small for the data of the local buffer" (and, for a read, the
            // local buffer too small for the remote data).
            if (moved > ep.attr.maxRdmaSize() || (write ? segmentLength < total : total < segmentLength)) {
                return DatReturn.DAT_LENGTH_ERROR;
            }
            int used = write ? numSegments : WorkRequests.trim(sendSges, numSegments, segmentLength);
            return postRequestLocked(op, used, userCookie, completionFlags, moved, rmrContext, targetAddress);
        } finally {
            lock.unlock();
        }
    }

    /**
     * A request's completion flags: bits outside {@code allowed} are a malformed argument. UNSIGNALLED is "only
     * valid if the Endpoint Request Completion Flags DAT_COMPLETION_UNSIGNALLED_FLAG" (no EP of this provider has
     * it); SOLICITED_WAIT only for a send, where completion_flags_supported grants it: the post pages list no
     * DAT_MODEL_NOT_SUPPORTED, and their code for a bad argument is DAT_INVALID_PARAMETER.
     */
    private static int checkPostFlags(int flags, int allowed) {
        return (flags & ~allowed) != 0 ? DatReturn.DAT_INVALID_PARAMETER : DatReturn.DAT_SUCCESS;
    }

    /** Takes a request slot and posts the work request whose SGEs are loaded. Caller holds lock. */
    private int postRequestLocked(byte op, int numSegments, long cookie, int flags, long length, int rkey,
                                  long remoteAddress) {
        if (!requestRoomLocked()) {
            return DatReturn.DAT_INSUFFICIENT_RESOURCES;
        }
        long seq = reqPosted;
        int i = (int) seq & (reqCookie.length - 1);
        boolean report = (flags & DatCompletionFlags.SUPPRESS) == 0;
        // Signal at least every max_request_dtos/2 requests (the send queue's depth), so unsignalled requests free
        // their send-queue slots; every request where a bind may follow (see the class comment).
        boolean signalled = report || mayBind || unsignalledRun + 1 >= Math.max(1, reqLimit / 2);
        unsignalledRun = signalled ? 0 : unsignalledRun + 1;
        reqCookie[i] = cookie;
        reqLength[i] = length;
        reqOp[i] = op;
        reqReport[i] = report;
        IbvSendWr.wrId(sendWr, WorkRequests.id(WorkRequests.SEND, qpNum, seq));
        IbvSendWr.numSge(sendWr, numSegments);
        // A solicited send carries its solicitation as immediate data too: a work completion cannot tell it.
        boolean solicited = (flags & DatCompletionFlags.SOLICITED_WAIT) != 0;
        IbvSendWr.opcode(sendWr, op == OP_SEND
                ? (solicited ? LibIbverbs.IBV_WR_SEND_WITH_IMM : LibIbverbs.IBV_WR_SEND)
                : op == OP_WRITE ? LibIbverbs.IBV_WR_RDMA_WRITE : LibIbverbs.IBV_WR_RDMA_READ);
        IbvSendWr.sendFlags(sendWr, (signalled ? LibIbverbs.IBV_SEND_SIGNALED : 0)
                | ((flags & DatCompletionFlags.BARRIER_FENCE) != 0 ? LibIbverbs.IBV_SEND_FENCE : 0)
                | (solicited ? LibIbverbs.IBV_SEND_SOLICITED : 0));
        IbvSendWr.wrRdmaRemoteAddr(sendWr, remoteAddress);
        IbvSendWr.wrRdmaRkey(sendWr, rkey);
        reqUnreaped.incrementAndGet();
        if (holding && hold(seq, i, numSegments)) {
            return DatReturn.DAT_SUCCESS;
        }
        // Volatile: publishes the slot to the thread that will translate its completion.
        reqPosted = seq + 1;
        int rc = IbvOps.post_send(postSendFn, qp, sendWr, badWr);
        if (VerbsConfig.TRACE) {
            VerbsConfig.trace("post_send qp " + qpNum + " seq " + seq + " op " + op + " in " + ep.state + ": " + rc);
        }
        if (rc != 0) {
            reqPosted = seq;
            reqUnreaped.decrementAndGet();
            return postFailure(rc);
        }
        return DatReturn.DAT_SUCCESS;
    }

    /** Whether a request slot is free; an EP without a request EVD first drops what its hidden EVD holds. */
    private boolean requestRoomLocked() {
        return reqUnreaped.get() < reqLimit
                || (hiddenRequestEvd != null && hiddenRequestEvd.discardAll() > 0 && reqUnreaped.get() < reqLimit);
    }

    /**
     * dat_rmr_bind and its unbind ({@code lmr == null}), posted on this EP's send queue: valid in CONNECTED only, on
     * an EP whose request EVD takes RMR_BIND events. A bind is always signalled: its completion settles the
     * window's key (see {@link VerbsRmr}).
     */
    int postBind(VerbsRmr rmr, VerbsLmr lmr, long offset, long length, int privileges, long cookie, int flags) {
        VerbsEp other = rmr.busyElsewhere(ep);
        if (other != null) {
            // Before the EP lock: the other EP's EVD lock must not wait behind this EP's.
            other.sendCq.takeCompletions();
        }
        lock.lock();
        try {
            if (ep.isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            connection.promoteLocked();
            if (ep.state != DatEpState.CONNECTED
                    || (ep.requestEvd != null && (ep.requestEvd.flags() & DatEvdFlags.RMR_BIND) == 0)) {
                return DatReturn.DAT_INVALID_STATE;
            }
            int status = checkPostFlags(flags, REQUEST_FLAGS);
            if (status == DatReturn.DAT_SUCCESS) {
                status = rmr.checkBind(lmr, offset, length, privileges, pz);
            }
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            if (!requestRoomLocked()) {
                return DatReturn.DAT_INSUFFICIENT_RESOURCES;
            }
            int contextBefore = rmr.rmrContext();
            status = rmr.prepare(ep, lmr, offset, length, privileges);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            long seq = reqPosted;
            int i = (int) seq & (reqCookie.length - 1);
            unsignalledRun = 0;
            reqCookie[i] = cookie;
            reqLength[i] = 0;
            reqOp[i] = OP_BIND;
            reqReport[i] = (flags & DatCompletionFlags.SUPPRESS) == 0;
            reqRmr[i] = rmr;
            long wrId = WorkRequests.id(WorkRequests.SEND, qpNum, seq);
            int sendFlags = LibIbverbs.IBV_SEND_SIGNALED
                    | ((flags & DatCompletionFlags.BARRIER_FENCE) != 0 ? LibIbverbs.IBV_SEND_FENCE : 0);
            reqUnreaped.incrementAndGet();
            sendCq.lock.lock();
            try {
                reqPosted = seq + 1;
                if (!holding) {
                    // What completed already counts: the bind goes now if nothing posted before it is outstanding.
                    sendCq.takeCompletionsLocked();
                    if (reqCompleted == seq) {
                        IbvMwBind.wrId(bindArgs, wrId);
                        IbvMwBind.sendFlags(bindArgs, sendFlags);
                        int rc = rmr.execute(qp, bindArgs);
                        if (VerbsConfig.TRACE) {
                            VerbsConfig.trace("bind qp " + qpNum + " seq " + seq + ": " + rc);
                        }
                        if (rc != 0) {
                            reqPosted = seq;
                            reqUnreaped.decrementAndGet();
                            reqRmr[i] = null;
                            rmr.withdraw(contextBefore);
                            return postFailure(rc);
                        }
                        return DatReturn.DAT_SUCCESS;
                    }
                    if (heldWr == null) {
                        allocateHeld();
                    }
                    heldFrom = seq;
                    holding = true;
                }
                IbvSendWr.wrId(heldWr[i], wrId);
                IbvSendWr.sendFlags(heldWr[i], sendFlags);
                if (VerbsConfig.TRACE) {
                    VerbsConfig.trace("bind qp " + qpNum + " seq " + seq + " held behind seq " + reqCompleted);
                }
                return DatReturn.DAT_SUCCESS;
            } finally {
                sendCq.lock.unlock();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Room for the work requests of held requests, one per request slot. Caller holds lock and the EVD's. */
    private void allocateHeld() {
        long wrSize = IbvSendWr.SIZE;
        long stride = wrSize + sendSges.byteSize();
        MemorySegment all = arena.allocate(stride * reqCookie.length, ADDRESS.byteAlignment());
        MemorySegment[] slots = new MemorySegment[reqCookie.length];
        for (int k = 0; k < slots.length; k++) {
            slots[k] = all.asSlice(k * stride, stride);
            IbvSendWr.sgList(slots[k], slots[k].asSlice(wrSize));
        }
        drainBadWr = arena.allocate(ADDRESS);
        standInWr = arena.allocate(IbvSendWr.LAYOUT);
        standInAttr = arena.allocate(IbvQpAttr.LAYOUT);
        heldWr = slots;
    }

    /**
     * Holds the request in slot {@code i}, whose work request and SGEs are loaded, behind those held already; or
     * answers {@code false} when nothing is held any more. Caller holds lock.
     */
    private boolean hold(long seq, int i, int numSegments) {
        sendCq.lock.lock();
        try {
            if (!holding) {
                return false;
            }
            MemorySegment wr = heldWr[i];
            // Everything but sg_list, which points at the slot's own SGEs (see allocateHeld).
            long sgList = IbvSendWr.SG_LIST;
            long afterSgList = sgList + ADDRESS.byteSize();
            MemorySegment.copy(sendWr, 0, wr, 0, sgList);
            MemorySegment.copy(sendWr, afterSgList, wr, afterSgList, IbvSendWr.SIZE - afterSgList);
            MemorySegment.copy(sendSges, 0, wr, IbvSendWr.SIZE, numSegments * IbvSge.SIZE);
            reqPosted = seq + 1;
            if (VerbsConfig.TRACE) {
                VerbsConfig.trace("post_send qp " + qpNum + " seq " + seq + " held behind a bind");
            }
            return true;
        } finally {
            sendCq.lock.unlock();
        }
    }

    /**
     * Posts the held requests in order as far as they may go: a bind only once every request before it completed.
     * Called by the thread that translated such a completion, under the send EVD's lock.
     */
    private void drainHeld() {
        int mask = reqCookie.length - 1;
        long posted = reqPosted;
        while (heldFrom < posted) {
            long seq = heldFrom;
            int i = (int) seq & mask;
            MemorySegment wr = heldWr[i];
            int rc;
            if (reqOp[i] == OP_BIND) {
                if (reqCompleted != seq) {
                    return;
                }
                IbvMwBind.wrId(bindArgs, IbvSendWr.wrId(wr));
                IbvMwBind.sendFlags(bindArgs, IbvSendWr.sendFlags(wr));
                rc = reqRmr[i] == null ? Errno.ENOMEM : reqRmr[i].execute(qp, bindArgs);
            } else {
                rc = IbvOps.post_send(postSendFn, qp, wr, drainBadWr);
            }
            if (VerbsConfig.TRACE) {
                VerbsConfig.trace("held seq " + seq + " op " + reqOp[i] + " posted to qp " + qpNum + ": " + rc);
            }
            heldFrom = seq + 1;
            if (rc != 0) {
                standIn(wr, rc);
            }
        }
        holding = false;
    }

    /**
     * The QP refused a held request the consumer was told succeeded (the slot accounting keeps the queue from
     * filling, so this is a device fault); it must still complete. The QP goes to ERROR, where a zero-length RDMA
     * write under the request's {@code wr_id} flushes in its place, and the flush breaks the connection.
     */
    private void standIn(MemorySegment wr, int rc) {
        LOG.log(System.Logger.Level.WARNING, "verbs qp " + qpNum + " refused a held request ("
                + Errno.describe(Math.abs(rc))
                + "): its completion is reported flushed and the connection breaks");
        IbvQpAttr.qpState(standInAttr, LibIbverbs.IBV_QPS_ERR);
        try {
            ia.verbs.ibv_modify_qp(qp, standInAttr, LibIbverbs.IBV_QP_STATE);
        } catch (NativeCallException e) {
            // Already in ERROR, or the device is gone.
        }
        standInWr.fill((byte) 0);
        IbvSendWr.wrId(standInWr, IbvSendWr.wrId(wr));
        IbvSendWr.opcode(standInWr, LibIbverbs.IBV_WR_RDMA_WRITE);
        IbvSendWr.sendFlags(standInWr, LibIbverbs.IBV_SEND_SIGNALED);
        int again = IbvOps.post_send(postSendFn, qp, standInWr, drainBadWr);
        if (again != 0) {
            LOG.log(System.Logger.Level.ERROR, "verbs qp " + qpNum + " refused the stand-in too ("
                    + Errno.describe(Math.abs(again)) + "): a request's completion is lost");
        }
    }

    /**
     * The binds in flight or held on this EP will never have their completions seen (the EP is being reset or
     * freed): their windows are replaced, and nothing held is posted any more. Caller holds the send EVD's lock, so
     * no translation of them is under way.
     */
    void abandonBinds() {
        holding = false;
        int mask = reqRmr.length - 1;
        for (long seq = reqCompleted; seq < reqPosted; seq++) {
            int i = (int) seq & mask;
            VerbsRmr rmr = reqRmr[i];
            if (rmr != null) {
                reqRmr[i] = null;
                rmr.abandon(ep);
            }
        }
    }

    /**
     * {@return the DAT code of a failed post: a full queue is DAT_INSUFFICIENT_RESOURCES}
     *
     * @param rc what a post through {@code ibv_context.ops} returned: an errno, positive or (rxe) negated
     */
    static int postFailure(int rc) {
        return Math.abs(rc) == Errno.ENOMEM ? DatReturn.DAT_INSUFFICIENT_RESOURCES : DatReturn.DAT_INTERNAL_ERROR;
    }

    int postRecv(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        if (ep.isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        lock.lock();
        try {
            if (ep.isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            if (srq != null) {
                // dat_ep_post_recv on an EP created with an SRQ.
                return DatReturn.DAT_INVALID_STATE;
            }
            // "The operation is valid for all states of the Endpoint": before a connection the QP is in INIT and
            // keeps the receive; while a graceful disconnect is pending it still runs; see below for DISCONNECTED.
            DatEpState s = ep.state;
            if (DtoArgs.iov(numSegments, localIov, ep.attr.maxRecvIov()) != DatReturn.DAT_SUCCESS
                    || (completionFlags & ~RECV_FLAGS) != 0) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            long total = WorkRequests.load(ia, pz, numSegments, localIov, DatMemPriv.LOCAL_WRITE, recvSges,
                    triplet);
            if (total < 0) {
                return (int) total;
            }
            if (recvUnreaped.get() >= recvLimit) {
                if (hiddenRecvEvd == null || hiddenRecvEvd.discardAll() == 0 || recvUnreaped.get() >= recvLimit) {
                    return DatReturn.DAT_INSUFFICIENT_RESOURCES;
                }
            }
            long seq = recvPosted;
            int i = (int) seq & (recvCookie.length - 1);
            recvCookie[i] = userCookie;
            recvReport[i] = (completionFlags & DatCompletionFlags.SUPPRESS) == 0;
            IbvRecvWr.wrId(recvWr, WorkRequests.id(WorkRequests.RECV, qpNum, seq));
            IbvRecvWr.numSge(recvWr, numSegments);
            recvUnreaped.incrementAndGet();
            recvPosted = seq + 1;
            int rc = IbvOps.post_recv(postRecvFn, qp, recvWr, badWr);
            if (VerbsConfig.TRACE) {
                VerbsConfig.trace("post_recv qp " + qpNum + " seq " + seq + " in " + s + ": " + rc);
            }
            if (rc != 0) {
                recvPosted = seq;
                recvUnreaped.decrementAndGet();
                return postFailure(rc);
            }
            if (s == DatEpState.DISCONNECTED) {
                // DAT flushes a receive posted in DISCONNECTED at once, and so must a QP in ERROR (IBA C10-42); but
                // soft-RoCE's user-space post_recv only writes the shared queue, with no doorbell, and its kernel
                // half drains a queue in ERROR only when something wakes it. Moving the QP to ERROR again (valid
                // from ERROR) wakes it; on an HCA that flushed the receive already it changes nothing.
                ep.toError();
            }
            return DatReturn.DAT_SUCCESS;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A send-queue completion: writes its DTO event into {@code slot}. Called under the request EVD's lock.
     *
     * @return the release token, or 0 when the completion is not reported (a suppressed success)
     */
    long requestCompleted(long wrId, DatDtoStatus status, VerbsEvd evd, DatEvent slot) {
        long posted = reqPosted;
        int mask = reqCookie.length - 1;
        // Completions arrive in posting order: the unsignalled requests before this one succeeded silently.
        long seq = reqCompleted + Integer.toUnsignedLong(WorkRequests.sequence(wrId) - (int) reqCompleted);
        if (seq >= posted) {
            return 0;
        }
        int silent = (int) (seq - reqCompleted);
        if (silent > 0) {
            reqUnreaped.addAndGet(-silent);
        }
        reqCompleted = seq + 1;
        int i = (int) seq & mask;
        VerbsRmr rmr = reqRmr[i];
        if (rmr != null) {
            reqRmr[i] = null;
            if (!rmr.completed(status == DatDtoStatus.SUCCESS) && status == DatDtoStatus.SUCCESS) {
                // It went out under a key the consumer was not given (see VerbsRmr): a failed bind.
                status = DatDtoStatus.RMR_OPERATION_FAILED;
                connection.dtoFailed(status);
            }
        }
        if (holding && reqCompleted == heldFrom) {
            drainHeld();
        }
        if (status == DatDtoStatus.SUCCESS && !reqReport[i]) {
            reqUnreaped.decrementAndGet();
            return 0;
        }
        if (rmr != null) {
            slot.setRmrBindCompletion(evd, rmr, reqCookie[i], status);
        } else {
            slot.setDtoCompletion(evd, ep, reqCookie[i], status, status == DatDtoStatus.SUCCESS ? reqLength[i] : 0);
        }
        return wrId;
    }

    /**
     * A receive-queue completion: writes its DTO event into {@code slot}. Called under the recv EVD's lock.
     *
     * @return the release token, or 0 when the completion is not reported
     */
    long recvCompleted(long wrId, DatDtoStatus status, long byteLen, VerbsEvd evd, DatEvent slot) {
        long posted = recvPosted;
        long seq = recvCompleted + Integer.toUnsignedLong(WorkRequests.sequence(wrId) - (int) recvCompleted);
        if (seq >= posted) {
            return 0;
        }
        recvCompleted = seq + 1;
        int i = (int) seq & (recvCookie.length - 1);
        if (status == DatDtoStatus.SUCCESS && !recvReport[i]) {
            recvUnreaped.decrementAndGet();
            return 0;
        }
        slot.setDtoCompletion(evd, ep, recvCookie[i], status, status == DatDtoStatus.SUCCESS ? byteLen : 0);
        return wrId;
    }

    /** A reported completion of this EP was reaped: its slot is free. */
    void reaped(long token) {
        boolean recv = WorkRequests.kind(token) == WorkRequests.RECV;
        // A completion of the connection before a reset holds no slot: the reset let them all go.
        if (WorkRequests.sequence(token) - (int) (recv ? recvEpochStart : reqEpochStart) >= 0) {
            (recv ? recvUnreaped : reqUnreaped).decrementAndGet();
        }
    }

    /** dat_ep_reset's part: the slots start over for the next connection. Caller holds lock. */
    void resetLocked() {
        // Everything posted before was flushed; completions not yet reaped no longer hold slots.
        // Sequences go on from where they were: a completion of the old connection still in a CQ then
        // falls before the new epoch and is dropped (dat_ep_reset may lose completions not yet dequeued),
        // instead of taking the slot of a DTO posted after the reset. The EVD locks order this against a
        // translation under way.
        sendCq.locked(() -> {
            abandonBinds();
            reqCompleted = reqPosted;
            reqEpochStart = reqPosted;
        });
        recvCq.locked(() -> {
            recvCompleted = recvPosted;
            recvEpochStart = recvPosted;
        });
        unsignalledRun = 0;
        reqUnreaped.set(0);
        recvUnreaped.set(0);
    }
}
