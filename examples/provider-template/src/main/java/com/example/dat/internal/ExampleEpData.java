// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEventType;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.Iov;
import dat.spi.DtoArgs;
import dat.spi.LmrTriplet;
import java.lang.foreign.MemorySegment;

/**
 * The data path of one {@link ExampleEp}: {@code dat_ep_post_send}, {@code dat_ep_post_recv},
 * {@code dat_ep_post_rdma_read} and {@code dat_ep_post_rdma_write}. It owns the two work queues, the EP's queue
 * attributes and the counts of work posted and not yet reaped; it delivers, completes and flushes. The EP state
 * and the peer it reads are {@link ExampleEp}'s; a connection a failed DTO breaks is handed to
 * {@link ExampleEpConnection}. It is the part a vendor rewrites for a real HCA (a post becomes a doorbell), and
 * stays a small final class so the EP's one-line calls into it inline.
 *
 * <p>Posts copy their triplets into preallocated rings (so the consumer's {@link Iov} is free on return and the
 * data path allocates nothing) and run at once when they can: an RDMA write or read as soon as it reaches the head
 * of the request queue, a send when the peer has a receive posted. Requests complete in posting order; a send
 * waiting for a receive holds back the requests behind it, as on an RC queue pair. A work request keeps its slot
 * until its completion is dequeued. The posts call the shell's allocation-free checks ({@link DtoArgs}).
 *
 * <p>Everything here runs under {@link Fabric#LOCK}: the posts take it, the rest is called with it held.
 */
final class ExampleEpData {

    private static final byte SEND = 1;
    private static final byte WRITE = 2;
    private static final byte READ = 3;

    private final ExampleEp ep;
    private DatEpAttr attr;
    private Queue requests;
    private Queue recvs;
    /** Posted and not yet reaped: the counts {@code max_request_dtos} and {@code max_recv_dtos} bound. */
    private int requestsOutstanding;
    private int recvsOutstanding;
    /** Where the posts read the consumer's triplets, under {@link Fabric#LOCK}. */
    private final LmrTriplet triplet = new LmrTriplet();

    ExampleEpData(ExampleEp ep, DatEpAttr attr) {
        this.ep = ep;
        configure(attr);
    }

    /** Takes the EP's attributes and builds empty queues to their sizes (at create, and by dat_ep_modify). */
    void configure(DatEpAttr value) {
        this.attr = value;
        int requestIov = Math.max(value.maxRequestIov(), Math.max(value.maxRdmaReadIov(), value.maxRdmaWriteIov()));
        this.requests = new Queue(value.maxRequestDtos(), requestIov);
        this.recvs = new Queue(value.maxRecvDtos(), value.maxRecvIov());
    }

    DatEpAttr attr() {
        return attr;
    }

    /** {@return whether no request is posted and unreaped} */
    boolean requestsIdle() {
        return requestsOutstanding == 0;
    }

    /** {@return whether no receive is posted and unreaped} */
    boolean recvsIdle() {
        return recvsOutstanding == 0;
    }

    /**
     * Work requests in a ring of parallel arrays: the operation, cookie and segments (each segment's LMR, address
     * and length) of every slot, plus the remote buffer of RDMA operations.
     */
    private static final class Queue {
        final int capacity;
        final int maxIov;
        final byte[] op;
        final long[] cookie;
        final int[] segments;
        final ExampleLmr[] lmr;
        final long[] address;
        final long[] length;
        final int[] rmrContext;
        final long[] remoteAddress;
        final long[] remoteLength;
        int head;
        int count;

        Queue(int capacity, int maxIov) {
            this.capacity = capacity;
            this.maxIov = maxIov;
            op = new byte[capacity];
            cookie = new long[capacity];
            segments = new int[capacity];
            lmr = new ExampleLmr[capacity * maxIov];
            address = new long[capacity * maxIov];
            length = new long[capacity * maxIov];
            rmrContext = new int[capacity];
            remoteAddress = new long[capacity];
            remoteLength = new long[capacity];
        }

        /** {@return the slot the next request goes into} */
        int tail() {
            return (head + count) % capacity;
        }

        void pop() {
            int slot = head;
            for (int s = 0; s < segments[slot]; s++) {
                lmr[slot * maxIov + s] = null;
            }
            head = (head + 1) % capacity;
            count--;
        }

        long total(int slot) {
            long sum = 0;
            for (int s = 0; s < segments[slot]; s++) {
                sum += length[slot * maxIov + s];
            }
            return sum;
        }

        /** {@return whether every LMR of the slot is alive with its memory: it may be freed after the post} */
        boolean alive(int slot) {
            for (int s = 0; s < segments[slot]; s++) {
                ExampleLmr l = lmr[slot * maxIov + s];
                if (l.isClosed() || l.slice(address[slot * maxIov + s], 0) == null) {
                    return false;
                }
            }
            return true;
        }
    }

    // ---- posts ----

    int postSend(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        return postRequest(SEND, numSegments, localIov, userCookie, 0, 0, 0, completionFlags);
    }

    int postRdmaWrite(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                      long length, int completionFlags) {
        return postRequest(WRITE, numSegments, localIov, userCookie, rmrContext, targetAddress, length,
                completionFlags);
    }

    int postRdmaRead(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                     long length, int completionFlags) {
        return postRequest(READ, numSegments, localIov, userCookie, rmrContext, targetAddress, length,
                completionFlags);
    }

    private int postRequest(byte op, int n, Iov iov, long cookie, int rmrContext, long remote, long remoteLength,
                            int flags) {
        Fabric.LOCK.lock();
        try {
            if (ep.isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            int maxIov = op == SEND ? attr.maxRequestIov() : op == WRITE ? attr.maxRdmaWriteIov()
                    : attr.maxRdmaReadIov();
            int rc = checkPost(n, iov, maxIov, flags, attr.requestCompletionFlags());
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            DatEpState state = ep.state;
            if (state != DatEpState.CONNECTED && state != DatEpState.DISCONNECTED) {
                return DatReturn.DAT_INVALID_STATE;
            }
            if (requestsOutstanding >= attr.maxRequestDtos()) {
                return DatReturn.DAT_INSUFFICIENT_RESOURCES;
            }
            int slot = requests.tail();
            rc = copySegments(requests, slot, n, iov, op == READ ? DatMemPriv.LOCAL_WRITE : DatMemPriv.LOCAL_READ);
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            long total = requests.total(slot);
            if (op == SEND && total > attr.maxMessageSize()) {
                // The post_send page lists no DAT_LENGTH_ERROR: its code for a bad argument.
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            if (op != SEND && total > attr.maxRdmaSize()) {
                return DatReturn.DAT_LENGTH_ERROR;
            }
            if (op != SEND && (remoteLength < 0 || (op == WRITE ? total > remoteLength : remoteLength > total))) {
                return remoteLength < 0 ? DatReturn.DAT_INVALID_PARAMETER : DatReturn.DAT_LENGTH_ERROR;
            }
            requests.op[slot] = op;
            requests.cookie[slot] = cookie;
            requests.rmrContext[slot] = rmrContext;
            requests.remoteAddress[slot] = remote;
            requests.remoteLength[slot] = remoteLength;
            requests.count++;
            requestsOutstanding++;
            if (state == DatEpState.DISCONNECTED) {
                flush();
            } else {
                progress();
            }
            return DatReturn.DAT_SUCCESS;
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    int postRecv(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        Fabric.LOCK.lock();
        try {
            if (ep.isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            int rc = checkPost(numSegments, localIov, attr.maxRecvIov(), completionFlags,
                    attr.recvCompletionFlags());
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            if (recvsOutstanding >= attr.maxRecvDtos()) {
                return DatReturn.DAT_INSUFFICIENT_RESOURCES;
            }
            int slot = recvs.tail();
            rc = copySegments(recvs, slot, numSegments, localIov, DatMemPriv.LOCAL_WRITE);
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            recvs.cookie[slot] = userCookie;
            recvs.count++;
            recvsOutstanding++;
            if (ep.state == DatEpState.DISCONNECTED) {
                flush();
            } else if (ep.peer != null) {
                ep.peer.data.progress();
            }
            return DatReturn.DAT_SUCCESS;
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    /** The checks every post makes before its segments: their count and the completion flags. */
    private static int checkPost(int n, Iov iov, int maxIov, int flags, int epFlags) {
        if (DtoArgs.iov(n, iov, maxIov) != DatReturn.DAT_SUCCESS) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        if ((flags & ~DatCompletionFlags.POST_FLAGS) != 0
                || (flags & DatCompletionFlags.UNSIGNALLED) != 0 && (epFlags & DatCompletionFlags.UNSIGNALLED) == 0) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        // completion_flags_supported is DEFAULT only: every other post flag is denied, and the post pages' code for
        // a flag the provider cannot take is DAT_INVALID_PARAMETER (they list no DAT_MODEL_NOT_SUPPORTED).
        if (flags != DatCompletionFlags.DEFAULT) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        return DatReturn.DAT_SUCCESS;
    }

    /**
     * Checks each triplet against the LMR its context names, in the post pages' order ({@link DtoArgs#segment}), and
     * copies it into the slot.
     *
     * @param needed the local privilege the operation needs: LOCAL_READ to send or write from, LOCAL_WRITE to
     *     receive or read into
     */
    private int copySegments(Queue q, int slot, int n, Iov iov, int needed) {
        for (int s = 0; s < n; s++) {
            int rc = triplet.read(iov, s);
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            long address = triplet.virtualAddress();
            long length = triplet.segmentLength();
            // An unknown or freed context, or another IA's, names no memory of the consumer's.
            ExampleLmr lmr = ep.owner().lmrOf(triplet.lmrContext());
            rc = DtoArgs.segment(lmr, ep.pz, needed, address, length);
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            q.lmr[slot * q.maxIov + s] = lmr;
            q.address[slot * q.maxIov + s] = address;
            q.length[slot * q.maxIov + s] = length;
        }
        q.segments[slot] = n;
        return DatReturn.DAT_SUCCESS;
    }

    // ---- execution ----

    /** Runs the requests at the head of the queue that can run now. */
    private void progress() {
        while (requests.count > 0 && ep.state == DatEpState.CONNECTED) {
            int slot = requests.head;
            byte op = requests.op[slot];
            if (op == SEND && ep.peer.data.recvs.count == 0) {
                return;
            }
            DatDtoStatus status;
            long transferred;
            if (!requests.alive(slot)) {
                status = DatDtoStatus.LOCAL_PROTECTION_ERR;
                transferred = 0;
            } else if (op == SEND) {
                transferred = requests.total(slot);
                status = deliver(slot);
            } else {
                transferred = op == WRITE ? requests.total(slot) : requests.remoteLength[slot];
                status = rdma(slot, op == WRITE);
            }
            complete(ep.requestEvd, ExampleEvd.REQUEST, requests.cookie[slot], status,
                    status == DatDtoStatus.SUCCESS ? transferred : 0);
            requests.pop();
            if (status != DatDtoStatus.SUCCESS) {
                // A reliable connection does not survive a failed DTO: both EPs go DISCONNECTED, the rest is
                // flushed, and each side learns it from a BROKEN event (as an HCA moves the QP to the error state).
                ep.connection.breakConnection(true, DatEventType.CONNECTION_EVENT_BROKEN);
            }
        }
    }

    /** Gathers a send into the peer's oldest receive; @return the sender's completion status */
    private DatDtoStatus deliver(int slot) {
        ExampleEpData peer = ep.peer.data;
        Queue into = peer.recvs;
        int r = into.head;
        long size = requests.total(slot);
        DatDtoStatus recvStatus;
        DatDtoStatus sendStatus;
        if (!into.alive(r)) {
            recvStatus = DatDtoStatus.LOCAL_PROTECTION_ERR;
            sendStatus = DatDtoStatus.REMOTE_ACCESS_ERR;
        } else if (size > into.total(r)) {
            // The receive is too small: it fails, nothing is written, and the sender learns it failed.
            recvStatus = DatDtoStatus.LOCAL_LENGTH_ERR;
            sendStatus = DatDtoStatus.REMOTE_RESPONDER_ERR;
        } else {
            copy(requests, slot, into, r);
            recvStatus = DatDtoStatus.SUCCESS;
            sendStatus = DatDtoStatus.SUCCESS;
        }
        peer.complete(peer.ep.recvEvd, ExampleEvd.RECV, into.cookie[r], recvStatus,
                recvStatus == DatDtoStatus.SUCCESS ? size : 0);
        into.pop();
        return sendStatus;
    }

    /** Copies the segments of one slot, in order, into those of another, as one byte stream. */
    private static void copy(Queue from, int fromSlot, Queue to, int toSlot) {
        int t = 0;
        long tOffset = 0;
        for (int s = 0; s < from.segments[fromSlot]; s++) {
            int fi = fromSlot * from.maxIov + s;
            long done = 0;
            while (done < from.length[fi]) {
                int ti = toSlot * to.maxIov + t;
                long n = Math.min(from.length[fi] - done, to.length[ti] - tOffset);
                MemorySegment.copy(from.lmr[fi].segment(), from.address[fi] - from.lmr[fi].address() + done,
                        to.lmr[ti].segment(), to.address[ti] - to.lmr[ti].address() + tOffset, n);
                done += n;
                tOffset += n;
                if (tOffset == to.length[ti]) {
                    t++;
                    tOffset = 0;
                }
            }
        }
    }

    /** Runs an RDMA write or read against the peer's memory; @return the completion status */
    private DatDtoStatus rdma(int slot, boolean write) {
        ExampleLmr remote = Fabric.memory(requests.rmrContext[slot]);
        long address = requests.remoteAddress[slot];
        long length = write ? requests.total(slot) : requests.remoteLength[slot];
        // The responder's checks, which an HCA makes on the remote key: same PZ, privilege, bounds.
        if (remote == null || remote.pz() != ep.peer.pz || !remote.allows(write ? DatMemPriv.REMOTE_WRITE
                : DatMemPriv.REMOTE_READ) || !remote.contains(address, length)
                || remote.slice(address, 0) == null) {
            return DatDtoStatus.REMOTE_ACCESS_ERR;
        }
        long offset = address - remote.address();
        long left = length;
        for (int s = 0; s < requests.segments[slot] && left > 0; s++) {
            int i = slot * requests.maxIov + s;
            ExampleLmr local = requests.lmr[i];
            long localOffset = requests.address[i] - local.address();
            long n = Math.min(requests.length[i], left);
            left -= n;
            if (write) {
                MemorySegment.copy(local.segment(), localOffset, remote.segment(), offset, n);
            } else {
                MemorySegment.copy(remote.segment(), offset, local.segment(), localOffset, n);
            }
            offset += n;
        }
        return DatDtoStatus.SUCCESS;
    }

    // ---- completions ----

    /** Queues a completion, or frees the slot at once when there is no EVD to hold it or the EVD is full. */
    private void complete(ExampleEvd evd, byte kind, long cookie, DatDtoStatus status, long length) {
        if (evd == null || !evd.dto(ep, cookie, status, length, kind)) {
            release(kind);
        }
    }

    /** Called when a completion of this EP is dequeued: its slot is free again. */
    void release(byte kind) {
        if (kind == ExampleEvd.REQUEST) {
            requestsOutstanding--;
        } else {
            recvsOutstanding--;
        }
    }

    /** Completes everything queued as FLUSHED, receives and requests, each queue in posting order. */
    void flush() {
        while (recvs.count > 0) {
            complete(ep.recvEvd, ExampleEvd.RECV, recvs.cookie[recvs.head], DatDtoStatus.FLUSHED, 0);
            recvs.pop();
        }
        while (requests.count > 0) {
            complete(ep.requestEvd, ExampleEvd.REQUEST, requests.cookie[requests.head], DatDtoStatus.FLUSHED, 0);
            requests.pop();
        }
    }
}
