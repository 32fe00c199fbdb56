// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEvdFlags;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.Iov;
import dat.spi.DtoArgs;
import dat.spi.Rings;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The data path of one {@link LoopbackEp}: {@code dat_ep_post_send}, {@code dat_ep_post_recv},
 * {@code dat_ep_post_rdma_read}, {@code dat_ep_post_rdma_write}, and the EP's half of {@code dat_rmr_bind}
 * (posting the bind in order on the request queue; its argument checks are in {@link LoopbackRmr}). It holds the
 * request queue, the own receive queue and the EP's queue attributes, delivers, completes and flushes. The EP
 * state it reads (state, peer, connection generation) is {@link LoopbackEp}'s; a broken or drained connection is
 * handed to {@link LoopbackEpConnection}.
 *
 * <h2>Delivery</h2>
 * There is no progress thread. A post runs its work on the posting thread: an RDMA read or write copies at
 * once; a send copies straight into the peer's receive buffer when one is waiting (its own queue or its SRQ).
 * Otherwise the send waits in this EP's request queue, which is the connection's inbound queue of the peer
 * (bounded by {@code max_request_dtos}), and the thread that next posts a receive on the peer delivers it.
 * Requests execute strictly in posting order, so an RDMA operation posted behind a waiting send waits too:
 * completions on the request EVD are in posting order and {@code BARRIER_FENCE} holds trivially (an RDMA read
 * is complete before anything after it starts).
 *
 * <h2>Remote checks of an RDMA</h2>
 * A CONNECTED post checks the remote {@code rmr_context} after all local checks, against the peer EP, and
 * returns synchronously with nothing queued: {@code DAT_PROTECTION_VIOLATION} when the region it names is of
 * another PZ than the peer EP's, then {@code DAT_PRIVILEGES_VIOLATION} when it lacks {@code REMOTE_WRITE}
 * (write) or {@code REMOTE_READ} (read). An unknown context, an unbound RMR, a window bound on another
 * connection or a target outside the region are no return values of the pages: the post succeeds and the DTO
 * completes with {@code REMOTE_ACCESS_ERR}, breaking the connection. The post resolves the context once, and
 * its execution uses that when it follows under the same lock; a request that waited in the queue is checked again
 * when it executes, since the context can change meanwhile.
 *
 * <h2>Locking</h2>
 * {@link #sendLock} guards the request queue and is the per-connection order lock of the direction
 * this EP &rarr; peer: it is held across the copy into the peer's buffer, because releasing it between
 * claiming a buffer and completing it would let a later message of the same connection complete first.
 * Other connections, even on the same SRQ, proceed in parallel. {@link #recvLock} serialises the posters of
 * the own receive queue, a {@link RecvRing}; a delivery takes its buffer from that ring without any lock of
 * this EP (deliveries into one EP are already serialised by the peer's send lock), or from the SRQ under the
 * SRQ's lock, and no receive-side lock is held across a copy. Both are the EP's locks ({@link LoopbackEp}
 * gives the order in which state changes take them); the data path never takes the fabric's connection lock.
 *
 * <h2>A send waiting for a receive</h2>
 * The send stays at the head of the request queue and marks the peer {@link #recvWanted}; whoever next posts
 * a receive on the peer sees the mark and runs the queue. With an own receive queue the two sides meet in a
 * Dekker pattern of volatile accesses, spelled out in {@link RecvRing}: the waiting sender sets the mark
 * (volatile) and reads the ring's tail again; the poster publishes the tail (volatile) and reads the mark.
 * With an SRQ the SRQ's lock orders them instead ({@link LoopbackSrq}).
 *
 * <h2>Allocation</h2>
 * The posts copy triplets into preallocated {@link Dto}s and events into preallocated EVD slots; nothing on
 * the data path allocates, boxes, iterates with an iterator or captures a lambda.
 */
final class LoopbackEpData extends LoopbackEpDataPad1 {

    /** Drain results: nothing to do, break the connection, finish a graceful disconnect. */
    private static final int NONE = 0;
    private static final int BREAK = 1;
    private static final int FINISH = 2;
    /** Execution results of one request. */
    private static final int DONE = 0;
    private static final int WAIT = 1;
    private static final int FAILED = 2;
    /** {@link #resolveRemote}: the post succeeds, the DTO completes with REMOTE_ACCESS_ERR (no DAT code: positive). */
    private static final int REMOTE_BAD = 1;

    private static final int SEND_FLAGS = DatCompletionFlags.POST_FLAGS;
    private static final int RDMA_FLAGS = DatCompletionFlags.SUPPRESS | DatCompletionFlags.UNSIGNALLED
            | DatCompletionFlags.BARRIER_FENCE;
    private static final int RECV_FLAGS = DatCompletionFlags.SUPPRESS;

    private static final VarHandle REQ_COUNT;
    private static final VarHandle SLOTS_FREED;
    private static final VarHandle SRQ_HELD;
    private static final VarHandle RECV_WANTED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            REQ_COUNT = lookup.findVarHandle(LoopbackEpDataHot.class, "reqCount", int.class);
            SLOTS_FREED = lookup.findVarHandle(LoopbackEpDataHot.class, "slotsFreed", long.class);
            SRQ_HELD = lookup.findVarHandle(LoopbackEpData.class, "srqHeld", int.class);
            RECV_WANTED = lookup.findVarHandle(LoopbackEpData.class, "recvWanted", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final LoopbackEp ep;
    // The EP's own final fields, copied so a post reaches them without a load of ep first.
    private final LoopbackPz pz;
    private final LoopbackEvd recvEvd;
    private final LoopbackEvd requestEvd;
    private final LoopbackSrq srq;
    private final ReentrantLock sendLock;
    private final ReentrantLock recvLock;
    /** The IA's lmr_context table, looked up by every post. */
    private final ContextTable lmrContexts;
    /** Where posts under sendLock and under recvLock read their triplets ({@link Dto#load}). */
    private final long[] requestTriplet = Dto.tripletScratch();
    private final long[] recvTriplet = Dto.tripletScratch();

    // Attributes; changed only under sendLock and recvLock.
    DatEpAttr attr;
    private long maxMessageSize;
    private long maxRdmaSize;
    private int maxRequestIov;
    private int maxRecvIov;
    private int maxRdmaReadIov;
    private int maxRdmaWriteIov;
    private int recvFlags;
    private int requestFlags;

    // Request queue, guarded by sendLock: [reqHead, reqHead + reqCount) waits or runs, in order (the two words
    // are in LoopbackEpDataHot). A post validates straight into the slot at the tail (reqSpare when the queue is
    // full).
    private Dto[] reqRing;
    private int reqMask;
    private int reqCapacity;
    private Dto reqSpare;
    /** Frees one request slot when a request completion is reaped. */
    private final Reaper requestSlot = this::freeRequestSlot;
    /** Guarded by sendLock: a graceful disconnect waits for the request queue to empty. */
    private boolean gracefulPending;

    /** The own receive queue ({@code null} on an SRQ); replaced only by dat_ep_modify, under both locks. */
    RecvRing recvRing;
    /**
     * A send of the peer found no receive for this EP and waits: the next receive posted here (own queue or SRQ)
     * must run the peer's queue. Written by the peer's deliveries: set when a claim fails, cleared when one
     * succeeds. Own queue: set with a volatile store and followed by a volatile re-check of the ring (the Dekker
     * pattern of {@link RecvRing}). SRQ: written inside the claim's critical section of the SRQ lock
     * ({@link LoopbackSrq}). Posting only when a send really waits, rather than whenever the peer has requests,
     * keeps a poster from contending for the peer's send lock while the peer is still completing a delivery.
     */
    volatile boolean recvWanted;

    /**
     * SRQ buffers this EP holds: claimed for an arriving message, not yet completed. Only the peer's
     * delivery (under the peer's send lock) changes it, one writer at a time, with a release store through
     * {@link #SRQ_HELD}; one word, so {@link LoopbackEpControl#recvQuery} reads a consistent value.
     */
    private volatile int srqHeld;
    /**
     * The free descriptor this EP trades for an SRQ buffer ({@link LoopbackSrq#claim}); used by the peer's
     * deliveries only, under the SRQ lock.
     */
    private Dto srqExchange;


    LoopbackEpData(LoopbackEp ep, DatEpAttr attr) {
        this.ep = ep;
        this.pz = ep.pz;
        this.recvEvd = ep.recvEvd;
        this.requestEvd = ep.requestEvd;
        this.srq = ep.srq;
        this.sendLock = ep.sendLock;
        this.recvLock = ep.recvLock;
        this.lmrContexts = pz.ia().lmrContexts;
        this.srqExchange = srq == null ? null : srq.exchangeDescriptor();
        configure(attr);
    }

    /** Sizes the queues for {@code a}; caller holds both locks or is the constructor. */
    void configure(DatEpAttr a) {
        this.attr = a;
        this.maxMessageSize = a.maxMessageSize();
        this.maxRdmaSize = a.maxRdmaSize();
        this.maxRequestIov = a.maxRequestIov();
        this.maxRdmaReadIov = a.maxRdmaReadIov();
        this.maxRdmaWriteIov = a.maxRdmaWriteIov();
        this.recvFlags = a.recvCompletionFlags();
        this.requestFlags = a.requestCompletionFlags();
        int requestSegments = Math.max(maxRequestIov, Math.max(maxRdmaReadIov, maxRdmaWriteIov));
        this.reqCapacity = a.maxRequestDtos();
        this.reqRing = new Dto[Rings.size(reqCapacity)];
        for (int i = 0; i < reqRing.length; i++) {
            reqRing[i] = new Dto(requestSegments);
        }
        this.reqMask = reqRing.length - 1;
        this.reqSpare = new Dto(requestSegments);
        this.reqHead = 0;
        this.reqCount = 0;
        if (srq == null) {
            this.maxRecvIov = a.maxRecvIov();
            this.recvRing = new RecvRing(a.maxRecvDtos(), maxRecvIov);
        } else {
            this.maxRecvIov = srq.maxRecvIov();
            this.recvRing = null;
        }
    }

    private void freeRequestSlot() {
        // Cast to the access mode's own return type: a call site typed void is not exact, and the VarHandle
        // then goes through an asType adapter that the JIT does not always inline (measured: 11% of a
        // message-rate run in VarHandleGuards).
        long _ = (long) SLOTS_FREED.getAndAdd(this, 1L);
    }

    /**
     * The connection with {@code p} is made, or ended ({@code null}): copies the peer's fields a send or an RDMA reads
     * into this EP's own line. Caller holds sendLock, with {@link LoopbackEp#connGen} already the connection's.
     */
    void peerChanged(LoopbackEp p) {
        peerEp = p;
        peerData = p == null ? null : p.data;
        peerPz = p == null ? null : p.pz;
        peerRmrContexts = p == null ? null : p.owner().rmrContexts;
        peerGen = p == null ? 0 : ep.connGen;
    }

    /** {@return the free slot at the request queue's tail to validate a post into, or the spare when full} */
    private Dto requestSlotLocked() {
        return reqCount < reqCapacity ? reqRing[(reqHead + reqCount) & reqMask] : reqSpare;
    }

    // ------------------------------------------------------------------ posts

    /** Checks of the seed pages that need no LMR lookup; caller holds sendLock. */
    private int checkRequest(int numSegments, Iov iov, int flags, int maxIov, int allowed) {
        if (DtoArgs.iov(numSegments, iov, maxIov) != DatReturn.DAT_SUCCESS || (flags & ~allowed) != 0) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        if ((flags & DatCompletionFlags.UNSIGNALLED) != 0
                && (requestFlags & DatCompletionFlags.UNSIGNALLED) == 0) {
            // "only valid if the Endpoint Request Completion Flags DAT_COMPLETION_UNSIGNALLED_FLAG"
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        return DatReturn.DAT_SUCCESS;
    }

    /**
     * Whether a request may be posted now. Caller holds sendLock, so the state cannot change under the post.
     * dat_ep_post_send / _rdma_write / _rdma_read: "The operation is valid for the Endpoint in the
     * DAT_EP_STATE_CONNECTED and DAT_EP_STATE_DISCONNECTED states" (in DISCONNECTED it is flushed at once).
     */
    private int postableLocked(DatEpState s) {
        if (ep.isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        return s == DatEpState.CONNECTED || s == DatEpState.DISCONNECTED ? DatReturn.DAT_SUCCESS
                : DatReturn.DAT_INVALID_STATE;
    }

    /** {@code dat_ep_post_send}. */
    int postSend(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        // No look at the handle before the lock: postableLocked's look under it is the one that decides.
        long outcome;
        sendLock.lock();
        try {
            // Read once: the state changes only under sendLock, which the post holds to its end.
            DatEpState s = ep.state();
            int status = postableLocked(s);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            status = checkRequest(numSegments, localIov, completionFlags, maxRequestIov, SEND_FLAGS);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            Dto d = requestSlotLocked();
            status = d.load(lmrContexts, pz, numSegments, localIov, DatMemPriv.LOCAL_READ, requestTriplet);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            if (d.total > maxMessageSize) {
                // The post_send page lists no DAT_LENGTH_ERROR: a message over max_message_size is a bad argument.
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            d.op = Dto.SEND;
            d.cookie = userCookie;
            d.flags = completionFlags;
            outcome = enqueueLocked(d, s);
        } finally {
            sendLock.unlock();
        }
        return afterUnlock(outcome);
    }

    /** {@code dat_ep_post_rdma_write}. */
    int postRdmaWrite(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                      long segmentLength, int completionFlags) {
        return postRdma(Dto.RDMA_WRITE, numSegments, localIov, userCookie, rmrContext, targetAddress, segmentLength,
                completionFlags);
    }

    /** {@code dat_ep_post_rdma_read}. */
    int postRdmaRead(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                     long segmentLength, int completionFlags) {
        return postRdma(Dto.RDMA_READ, numSegments, localIov, userCookie, rmrContext, targetAddress, segmentLength,
                completionFlags);
    }

    private int postRdma(int op, int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                         long segmentLength, int completionFlags) {
        boolean write = op == Dto.RDMA_WRITE;
        long outcome;
        sendLock.lock();
        try {
            // Read once: the state changes only under sendLock, which the post holds to its end.
            DatEpState s = ep.state();
            int status = postableLocked(s);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            status = checkRequest(numSegments, localIov, completionFlags,
                    write ? maxRdmaWriteIov : maxRdmaReadIov, RDMA_FLAGS);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            if (segmentLength < 0) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            Dto d = requestSlotLocked();
            status = d.load(lmrContexts, pz, numSegments, localIov,
                    write ? DatMemPriv.LOCAL_READ : DatMemPriv.LOCAL_WRITE, requestTriplet);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            long moved = write ? d.total : segmentLength;
            // "The size of the remote buffer is too small for the data of the local buffer" (and, for a read,
            // the local buffer too small for the remote data).
            if (moved > maxRdmaSize || (write ? segmentLength < d.total : d.total < segmentLength)) {
                return DatReturn.DAT_LENGTH_ERROR;
            }
            if (s == DatEpState.CONNECTED) {
                // Last, after every local check: the remote rmr_context against the peer EP, resolved once for the
                // synchronous return values and for the execution that follows under this same lock. Not in
                // DISCONNECTED, where a valid post succeeds and is flushed, and there is no remote EP to judge by.
                status = resolveRemote(rmrContext, targetAddress, moved,
                        write ? DatMemPriv.REMOTE_WRITE : DatMemPriv.REMOTE_READ);
                if (status < 0) {
                    return status;
                }
                remoteStatus = status;
            }
            d.op = op;
            d.cookie = userCookie;
            d.flags = completionFlags;
            d.rmrContext = rmrContext;
            d.target = targetAddress;
            d.segmentLength = segmentLength;
            outcome = enqueueLocked(d, s);
        } finally {
            sendLock.unlock();
        }
        return afterUnlock(outcome);
    }

    /**
     * dat_rmr_bind / unbind ({@code lmr == null}), posted on this EP's request queue: the EP's checks, then
     * {@link LoopbackRmr#checkBind}, then the request goes behind every earlier one.
     */
    int postBind(LoopbackRmr rmr, LoopbackLmr lmr, long offset, long length, int privileges, long userCookie,
                 int completionFlags) {
        long outcome;
        sendLock.lock();
        try {
            if (ep.isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            if (ep.state() != DatEpState.CONNECTED) {
                return DatReturn.DAT_INVALID_STATE;
            }
            if (requestEvd != null && (requestEvd.flags() & DatEvdFlags.RMR_BIND) == 0) {
                // The bind completion could not be reported: the request EVD takes no RMR bind events.
                return DatReturn.DAT_INVALID_STATE;
            }
            int status = checkRequest(0, null, completionFlags, 0, RDMA_FLAGS);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            boolean binding = lmr != null && length != 0;
            status = rmr.checkBind(binding ? lmr : null, offset, length, privileges, pz);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            Dto d = requestSlotLocked();
            d.op = Dto.BIND;
            d.count = 0;
            d.total = 0;
            d.srq = null;
            d.cookie = userCookie;
            d.flags = completionFlags;
            d.rmr = rmr;
            d.bindLmr = binding ? lmr : null;
            d.bindOffset = binding ? offset : 0;
            d.bindLength = binding ? length : 0;
            d.bindPrivileges = binding ? privileges : 0;
            outcome = enqueueLocked(d, DatEpState.CONNECTED);
        } finally {
            sendLock.unlock();
        }
        return afterUnlock(outcome);
    }

    /**
     * Appends a validated request (in the slot {@link #requestSlotLocked} gave) and runs the queue. Caller holds
     * sendLock.
     *
     * @param s the EP's state, read under sendLock by the post
     * @return what {@link #afterUnlock} does: {@code DAT_INSUFFICIENT_RESOURCES}, or a {@link #pendingLocked} word
     */
    private long enqueueLocked(Dto d, DatEpState s) {
        if (d == reqSpare || slotsTaken - (long) SLOTS_FREED.getAcquire(this) >= reqCapacity) {
            return DatReturn.DAT_INSUFFICIENT_RESOURCES;
        }
        slotsTaken++;
        if (s == DatEpState.DISCONNECTED) {
            // "If the operation returns successfully for the Endpoint in the DAT_EP_STATE_DISCONNECTED state,
            // the posted [DTO] is immediately flushed to request_evd_handle."
            completeRequest(d, DatDtoStatus.FLUSHED, 0);
            return NONE;
        }
        // Only a request at the head runs first in this drain, before anything could overwrite its post's verdicts.
        fresh = reqCount == 0 ? d : null;
        REQ_COUNT.setRelease(this, reqCount + 1);
        int drained = drainLocked(s);
        fresh = null;
        return pendingLocked(drained);
    }

    /** {@code dat_ep_post_recv}. */
    int postRecv(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        // No look at the handle before the lock: the look under it is the one that decides (as postSend's).
        recvLock.lock();
        try {
            if (ep.isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            if (srq != null) {
                return DatReturn.DAT_INVALID_STATE;
            }
            // Receives may be posted in every state: before connecting, while connected, and (flushed at
            // once) when disconnected.
            if (DtoArgs.iov(numSegments, localIov, maxRecvIov) != DatReturn.DAT_SUCCESS
                    || (completionFlags & ~RECV_FLAGS) != 0) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            RecvRing ring = recvRing;
            Dto d = ring.postSlot();
            int status = d.load(lmrContexts, pz, numSegments, localIov, DatMemPriv.LOCAL_WRITE, recvTriplet);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            if (ring.full()) {
                return DatReturn.DAT_INSUFFICIENT_RESOURCES;
            }
            if (ep.state() == DatEpState.DISCONNECTED) {
                // Flushed at once: the slot is never published, so the completion carries the cookie itself.
                postRecvCompletion(userCookie, completionFlags, DatDtoStatus.FLUSHED, 0, true, null);
                return DatReturn.DAT_SUCCESS;
            }
            // The cookie goes where only this side reads it; op and flags are stored only when they change, so a
            // re-post of the same buffers writes nothing the delivering thread reads but the tail (see RecvRing).
            ring.setCookie(userCookie);
            RecvRing.setFlags(d, completionFlags);
            ring.publish();
        } finally {
            recvLock.unlock();
        }
        // After the volatile publish, a volatile read: the poster's half of the wake-up (see RecvRing).
        if (recvWanted) {
            LoopbackEp p = ep.peer;
            if (p != null) {
                p.data.drain();
            }
        }
        return DatReturn.DAT_SUCCESS;
    }

    // ------------------------------------------------------------------ running the request queue

    /** Runs this EP's request queue on the calling thread (a receive was posted on the peer). */
    void drain() {
        long outcome;
        sendLock.lock();
        try {
            outcome = pendingLocked(drainLocked(ep.state()));
        } finally {
            sendLock.unlock();
        }
        afterUnlock(outcome);
    }

    /**
     * Executes requests from the head while they can run. Caller holds sendLock.
     *
     * @param s the EP's state, read under sendLock (it changes only under it, so it holds for the whole drain)
     */
    private int drainLocked(DatEpState s) {
        LoopbackEp b = peerEp;
        if (b == null || (s != DatEpState.CONNECTED && s != DatEpState.DISCONNECT_PENDING)) {
            return NONE;
        }
        while (reqCount > 0) {
            // Read for every request: the peer's drain breaks this side too, under the peer's send lock, not ours.
            if (ep.broken) {
                return NONE;
            }
            Dto d = reqRing[reqHead];
            int outcome = switch (d.op) {
                case Dto.SEND -> executeSend(peerData, d);
                case Dto.BIND -> executeBind(d);
                default -> executeRdma(d);
            };
            if (outcome == WAIT) {
                if (peerData.wantRecv()) {
                    continue;
                }
                return NONE;
            }
            if (d.op == Dto.BIND) {
                d.rmr = null;
                d.bindLmr = null;
            }
            reqHead = (reqHead + 1) & reqMask;
            REQ_COUNT.setRelease(this, reqCount - 1);
            if (outcome == FAILED) {
                // RC semantics: an error completion breaks the connection; the rest is flushed by teardown.
                ep.broken = true;
                b.broken = true;
                return BREAK;
            }
        }
        return gracefulPending ? FINISH : NONE;
    }

    /**
     * What a drain result leaves for after the send lock is released: {@link #NONE}, or the result with the
     * connection generation it was reached in, {@code connGen << 2 | result}. Teardown needs the connection lock,
     * which is taken before the send lock, so it cannot run here. Caller holds sendLock.
     */
    private long pendingLocked(int drainResult) {
        return drainResult == NONE ? NONE : ep.connGen << 2 | drainResult;
    }

    /**
     * The tail of every post and drain, after the send lock is released: a DAT status from {@link #enqueueLocked}
     * is returned as it is; a {@link #pendingLocked} word breaks or finishes the connection of its generation.
     *
     * @return the post's status
     */
    private int afterUnlock(long outcome) {
        if (outcome < 0) {
            return (int) outcome;
        }
        if (outcome != NONE) {
            ep.connection.drained((outcome & 3) == BREAK, outcome >>> 2);
        }
        return DatReturn.DAT_SUCCESS;
    }

    private int executeSend(LoopbackEpData b, Dto d) {
        Dto r = b.claimRecv();
        if (r == null) {
            return WAIT;
        }
        if (d.total > r.total) {
            // IB / uDAPL: the responder cannot place the message. Its receive completes with
            // DAT_DTO_ERR_LOCAL_LENGTH, the send with DAT_DTO_ERR_REMOTE_RESPONDER, and the RC connection
            // breaks (both EPs DISCONNECTED, everything else flushed).
            b.finishRecv(r, DatDtoStatus.LOCAL_LENGTH_ERR, 0, true);
            completeRequest(d, DatDtoStatus.REMOTE_RESPONDER_ERR, 0);
            return FAILED;
        }
        if (!Dto.copy(d, r, d != fresh)) {
            b.finishRecv(r, DatDtoStatus.LOCAL_PROTECTION_ERR, 0, true);
            completeRequest(d, DatDtoStatus.LOCAL_PROTECTION_ERR, 0);
            return FAILED;
        }
        b.finishRecv(r, DatDtoStatus.SUCCESS, d.total, (d.flags & DatCompletionFlags.SOLICITED_WAIT) != 0);
        completeRequest(d, DatDtoStatus.SUCCESS, d.total);
        return DONE;
    }

    private int executeRdma(Dto d) {
        boolean write = d.op == Dto.RDMA_WRITE;
        long length = write ? d.total : d.segmentLength;
        // The post that is running resolved its own request a moment ago, under this lock: one lookup and one check
        // of the target per RDMA. A request that waited is resolved now, since its context may have changed.
        boolean current = d == fresh;
        int remote = current ? remoteStatus : resolveRemote(d.rmrContext, d.target, length,
                write ? DatMemPriv.REMOTE_WRITE : DatMemPriv.REMOTE_READ);
        if (remote != DatReturn.DAT_SUCCESS) {
            remoteSegment = null;
            completeRequest(d, DatDtoStatus.REMOTE_ACCESS_ERR, 0);
            return FAILED;
        }
        boolean ok = write ? d.gatherInto(remoteSegment, remoteOffset, !current)
                : d.scatterFrom(remoteSegment, remoteOffset, length, !current);
        remoteSegment = null;
        if (!ok) {
            completeRequest(d, d.lmrsOpen() ? DatDtoStatus.REMOTE_ACCESS_ERR : DatDtoStatus.LOCAL_PROTECTION_ERR, 0);
            return FAILED;
        }
        completeRequest(d, DatDtoStatus.SUCCESS, length);
        return DONE;
    }

    /**
     * Finds the peer memory an RDMA names, and gives the remote return values of the RDMA pages, decided at post
     * time because the peer's memory is in this process. The region is an LMR's own {@code rmr_context} (needs the
     * remote privilege and the peer EP's PZ) or a bound RMR (needs the privilege, the peer EP's PZ, and to have been
     * bound on the peer EP during this very connection); the range must lie inside the region or window: a connection
     * never touches memory it was not given.
     *
     * <p>Verdicts, in the pages' order: {@code DAT_PROTECTION_VIOLATION} when {@code context} names a region of
     * another PZ than the peer EP's, then {@code DAT_PRIVILEGES_VIOLATION} when that region lacks {@code privilege}
     * ({@code REMOTE_WRITE} for a write, {@code REMOTE_READ} for a read): the post returns them synchronously. An
     * unknown or freed context, an unbound RMR, a window bound on another connection (the pages list no return value
     * for these) and a target outside the region (which needs the transfer length, a DTO error) are
     * {@link #REMOTE_BAD}: the post succeeds and the DTO completes with {@code REMOTE_ACCESS_ERR}, breaking the
     * connection. {@code DAT_SUCCESS} leaves the memory in {@link #remoteSegment} and {@link #remoteOffset}.
     *
     * <p>The post resolves its request once, for the return value and for its execution when that follows under the
     * same lock ({@link #fresh}). A request that waited (behind a send, for the peer's receive) is resolved again
     * when it runs, and then any verdict but success fails it: meanwhile the context can have been freed, the RMR
     * unbound or rebound with other privileges, so only what holds now may be touched.
     *
     * <p>Caller holds sendLock with this EP connected, so {@link #peerEp} and its copied fields are the connection's.
     * No lock of the peer is taken: its send lock, taken while holding ours, would break the lower-id-first order of
     * {@link LoopbackFabric} and could deadlock with the peer posting towards us. None is needed: the context table
     * is read lock-free through its volatile table, a region's PZ and privileges and the peer's PZ are final, an
     * RMR's binding is one volatile read of an immutable record. Nothing allocates: the table is int-keyed.
     *
     * @return {@code DAT_SUCCESS}, {@link #REMOTE_BAD}, or the synchronous return value (negative)
     */
    private int resolveRemote(int context, long target, long length, int privilege) {
        ContextTable contexts = peerRmrContexts;
        if (contexts == null) {
            // No peer (never so while connected): nothing is reachable, and the data path must not throw.
            return REMOTE_BAD;
        }
        Object region = contexts.get(context);
        LoopbackLmr lmr;
        long start;
        long windowLength;
        if (region instanceof LoopbackLmr l) {
            if (l.isClosed()) {
                return REMOTE_BAD;
            }
            if (l.pz() != peerPz) {
                return DatReturn.DAT_PROTECTION_VIOLATION;
            }
            if ((l.privileges() & privilege) == 0) {
                return DatReturn.DAT_PRIVILEGES_VIOLATION;
            }
            lmr = l;
            start = l.address();
            windowLength = l.length();
        } else if (region instanceof LoopbackRmr r) {
            LoopbackRmr.Binding binding = r.binding;
            if (binding == null || r.isClosed()) {
                return REMOTE_BAD;
            }
            if (r.pz() != peerPz) {
                return DatReturn.DAT_PROTECTION_VIOLATION;
            }
            if (binding.ep() != peerEp || binding.connGen() != peerGen) {
                // Bound on another connection: not this connection's window, so it names no memory here.
                return REMOTE_BAD;
            }
            if ((binding.privileges() & privilege) == 0) {
                return DatReturn.DAT_PRIVILEGES_VIOLATION;
            }
            lmr = binding.lmr();
            if (lmr.isClosed()) {
                return REMOTE_BAD;
            }
            start = lmr.address() + binding.offset();
            windowLength = binding.length();
        } else {
            return REMOTE_BAD;
        }
        long offset = target - start;
        if (offset < 0 || offset > windowLength || length > windowLength - offset) {
            return REMOTE_BAD;
        }
        remoteSegment = lmr.segment();
        remoteOffset = target - lmr.address();
        return DatReturn.DAT_SUCCESS;
    }
    private int executeBind(Dto d) {
        DatDtoStatus status = d.rmr.execute(d.bindLmr, d.bindOffset, d.bindLength, d.bindPrivileges, ep, ep.connGen);
        completeRequest(d, status, 0);
        return DONE;
    }

    // ------------------------------------------------------------------ completions

    /** Writes a request's completion, honouring SUPPRESS and UNSIGNALLED (errors always signal). */
    private void completeRequest(Dto d, DatDtoStatus status, long length) {
        LoopbackEvd evd = requestEvd;
        boolean ok = status == DatDtoStatus.SUCCESS;
        if (evd == null || (ok && (d.flags & DatCompletionFlags.SUPPRESS) != 0)) {
            // Never queued, so reaped at once: the slot is given back under sendLock, without an atomic.
            slotsTaken--;
            return;
        }
        boolean signalled = !ok || (d.flags & DatCompletionFlags.UNSIGNALLED) == 0;
        if (d.op == Dto.BIND) {
            evd.postBind(d.rmr, d.cookie, status, signalled, requestSlot);
        } else {
            evd.postDto(ep, d.cookie, status, length, signalled, requestSlot);
        }
    }

    /**
     * Takes a receive buffer for an arriving message: from the SRQ or the own queue. Called by the peer
     * under the peer's send lock, so one delivery at a time.
     */
    private Dto claimRecv() {
        if (srq != null) {
            Dto r = srq.claim(this);
            if (r != null) {
                SRQ_HELD.setRelease(this, srqHeld + 1);
            }
            return r;
        }
        Dto r = recvRing.claim();
        if (r != null && recvWanted) {
            RECV_WANTED.setRelease(this, false);
        }
        return r;
    }

    /**
     * The delivery found no receive: marks this EP as wanted, the sender's half of the wake-up. Called by the
     * peer under the peer's send lock.
     *
     * @return whether a receive was posted meanwhile (own queue only), so the delivery can run now; on an SRQ
     *     {@link LoopbackSrq#claim} marked the EP under its lock, and this returns false
     */
    private boolean wantRecv() {
        if (recvRing == null) {
            return false;
        }
        // Volatile store, then volatile load of the tail: see RecvRing. A receive posted after the load finds
        // the flag set and runs the queue.
        RECV_WANTED.setVolatile(this, true);
        return recvRing.published();
    }

    /** The SRQ's half of {@link #claimRecv}: the exchange descriptor. Caller holds the SRQ lock. */
    Dto srqExchange() {
        return srqExchange;
    }

    /** A claim from the SRQ succeeded with {@code taken}, which becomes the exchange descriptor. SRQ lock held. */
    void srqClaimed(Dto taken) {
        srqExchange = taken;
        if (recvWanted) {
            recvWanted = false;
        }
    }

    /**
     * Completes a claimed receive. An SRQ buffer is given back first (the SRQ still counts it as outstanding until
     * its event is reaped), so a consumer reaping the event at once always finds room for its next post. A slot of
     * the own queue stays held until its completion, which names its position, is reaped ({@link RecvRing}): the
     * cookie is not read here, on the delivering thread.
     */
    private void finishRecv(Dto r, DatDtoStatus status, long length, boolean solicited) {
        LoopbackSrq from = r.srq;
        if (from != null) {
            long cookie = r.cookie;
            int flags = r.flags;
            SRQ_HELD.setRelease(this, srqHeld - 1);
            postRecvCompletion(cookie, flags, status, length, solicited, from);
        } else {
            RecvRing ring = recvRing;
            postRingCompletion(ring, ring.finish(), r.flags, status, length, solicited);
        }
    }

    /**
     * Writes the completion of position {@code position} of the own receive ring, or frees the slot at once when no
     * completion is queued; otherwise as {@link #postRecvCompletion}.
     */
    private void postRingCompletion(RecvRing ring, long position, int flags, DatDtoStatus status, long length,
                                    boolean solicited) {
        boolean ok = status == DatDtoStatus.SUCCESS;
        if (recvEvd == null || (ok && (flags & DatCompletionFlags.SUPPRESS) != 0)) {
            ring.release(position);
            return;
        }
        recvEvd.postRecv(ep, ring, position, status, length, recvSignalled(ok, solicited));
    }

    /**
     * Writes a receive completion. Signalled unless the EP's recv flags are SOLICITED_WAIT and the matching
     * send was not solicited; EVD_THRESHOLD and (for an SRQ EP) UNSIGNALLED complete signalled and leave
     * waking to the waiter's threshold.
     */
    private void postRecvCompletion(long cookie, int flags, DatDtoStatus status, long length, boolean solicited,
                                    LoopbackSrq from) {
        boolean ok = status == DatDtoStatus.SUCCESS;
        if (recvEvd == null || (ok && (flags & DatCompletionFlags.SUPPRESS) != 0)) {
            if (from != null) {
                from.reaped();
            }
            return;
        }
        recvEvd.postDto(ep, cookie, status, length, recvSignalled(ok, solicited), from);
    }

    /**
     * Whether a receive completion is signalled: unless the EP's recv flags are SOLICITED_WAIT and the matching send
     * was not solicited; EVD_THRESHOLD and (for an SRQ EP) UNSIGNALLED complete signalled and leave waking to the
     * waiter's threshold. Errors always signal.
     */
    private boolean recvSignalled(boolean ok, boolean solicited) {
        boolean signalled = !ok || recvFlags != DatCompletionFlags.SOLICITED_WAIT || solicited;
        return signalled;
    }

    // ------------------------------------------------------------------ flushes and words for the control path

    /** Flushes every waiting request. Caller holds sendLock. */
    void flushRequestsLocked() {
        while (reqCount > 0) {
            Dto d = reqRing[reqHead];
            completeRequest(d, DatDtoStatus.FLUSHED, 0);
            d.rmr = null;
            d.bindLmr = null;
            reqHead = (reqHead + 1) & reqMask;
            REQ_COUNT.setRelease(this, reqCount - 1);
        }
        gracefulPending = false;
    }

    /**
     * Flushes every waiting receive of the own queue. Caller holds recvLock, and the send locks of this EP
     * and its peer, so no receive is being filled. SRQ buffers are never held here: messages arrive whole,
     * and a delivery claims, fills and completes its buffer under the peer's send lock.
     *
     * <p>The connection is gone, so the ring is then replaced by a fresh one when completions still hold slots, as a
     * verbs QP's reset empties its receive queue: receives posted after {@code dat_ep_reset} need not wait for the
     * consumer to reap the old completions, which keep naming (and reading their cookies from) the old ring.
     */
    void flushRecvLocked() {
        RecvRing ring = recvRing;
        if (ring == null) {
            return;
        }
        long position;
        while ((position = ring.flushNext()) >= 0) {
            postRingCompletion(ring, position, 0, DatDtoStatus.FLUSHED, 0, true);
        }
        if (ring.holdsCompletions()) {
            // Published to the deliverer by its send lock, which the caller holds, and to posters by the recv lock.
            recvRing = ring.fresh();
        }
    }

    /**
     * dat_ep_disconnect(GRACEFUL): when requests are queued, they complete first and the drain that empties
     * the queue finishes the disconnect. Caller holds sendLock.
     *
     * @return whether requests are queued (the disconnect then waits for them)
     */
    boolean holdDisconnectLocked() {
        if (reqCount > 0) {
            gracefulPending = true;
            return true;
        }
        return false;
    }

    /** Whether the request queue is empty; read without sendLock (dat_ep_get_status, a graceful disconnect). */
    boolean requestsIdle() {
        return (int) REQ_COUNT.getAcquire(this) == 0;
    }

    /**
     * {@return receive buffers allocated to this EP: those held from the SRQ, or those posted and not completed
     * on the own queue (the one being filled included)} Read from words the data path keeps.
     */
    int recvAllocated() {
        if (srq != null) {
            return srqHeld;
        }
        recvLock.lock();
        try {
            // The lock only pins the recvRing field (dat_ep_modify replaces it); the ring's words need none.
            return recvRing.allocated();
        } finally {
            recvLock.unlock();
        }
    }
}

/*
 * Padding by inheritance (EventRing's way): the JVM lays out superclass fields first, so the words this EP's own
 * threads write on every request (queue position and count, slot counters, the remote target of an RDMA) sit on
 * cache lines of their own. The fields the peer's delivering thread reads on every message it delivers here
 * (receive queue, receive EVD, flags) are LoopbackEpData's own, after the padding: a post on this EP does not take
 * into its core a line that the peer's core is about to read again.
 */

abstract class LoopbackEpDataPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p0a, p0b, p0c, p0d, p0e, p0f;
}

/** The words written on every request by this EP's posting thread (under sendLock) and reaping threads. */
abstract class LoopbackEpDataHot extends LoopbackEpDataPad0 {
    int reqHead;
    /** Written under sendLock through LoopbackEpData's REQ_COUNT (release), read lock-free by dat_ep_get_status. */
    int reqCount;
    /**
     * Requests posted whose completion has not been reaped hold their max_request_dtos slot until then (DatEp's
     * queue-depth contract, as a verbs send-queue slot frees only when its completion is polled): that is
     * {@code slotsTaken - slotsFreed}. {@link #slotsTaken} is counted under sendLock, {@link #slotsFreed} by
     * whichever thread reaps, with one atomic add; reaps only free slots, so a check under sendLock stays true.
     */
    long slotsTaken;
    /** Through LoopbackEpData's SLOTS_FREED. */
    volatile long slotsFreed;
    // Where resolveRemote found the peer's memory; guarded by sendLock.
    MemorySegment remoteSegment;
    long remoteOffset;
    /**
     * The request the running post validated and resolved (its local LMRs checked open and, for an RDMA, its remote
     * target in {@link #remoteSegment} and {@link #remoteOffset} or known bad in {@link #remoteStatus}), all under
     * the send lock the post still holds; set only while that post drains. Its execution takes those verdicts instead
     * of checking again: nothing can have been freed unseen, since a free waits for this lock before it returns
     * (LoopbackFabric.quiesceDeliveries). A request that waited in the queue is checked again when it runs.
     */
    Dto fresh;
    /** resolveRemote's verdict on {@link #fresh}'s remote target. */
    int remoteStatus;
    // The connection's peer and the final fields of it that a send or an RDMA reads, copied when the connection is
    // made and cleared when it ends, both under the send lock. A post reads them here, on a line only this EP's
    // threads write, not from the peer's LoopbackEp, whose neighbours in the heap (its locks) the peer's core writes
    // on every post.
    LoopbackEp peerEp;
    LoopbackEpData peerData;
    LoopbackPz peerPz;
    ContextTable peerRmrContexts;
    long peerGen;
}

abstract class LoopbackEpDataPad1 extends LoopbackEpDataHot {
    long p10, p11, p12, p13, p14, p15, p16, p17, p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;
}
