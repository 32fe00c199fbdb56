// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatConnectFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpParam;
import dat.api.DatEpState;
import dat.api.DatEpStatus;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatMemPriv;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.Iov;
import dat.spi.AbstractEp;
import dat.spi.DatArgs;
import dat.spi.DtoArgs;
import dat.spi.LmrTriplet;
import dat.spi.ProviderHandle;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * An endpoint ({@code dat_ep_create}): its connection state and its two work queues.
 *
 * <p>Posts copy their triplets into preallocated rings (so the consumer's {@link Iov} is free on return and the
 * data path allocates nothing) and run at once when they can: an RDMA write or read as soon as it reaches the head
 * of the request queue, a send when the peer has a receive posted. Requests complete in posting order; a send
 * waiting for a receive holds back the requests behind it, as on an RC queue pair. A work request keeps its slot
 * until its completion is dequeued.
 *
 * <p>The shell ({@link AbstractEp}) answers the handle's return codes and opens {@code dat_ep_disconnect},
 * {@code dat_ep_modify}, {@code dat_ep_recv_query} and {@code dat_ep_set_watermark} with their checks (the last two
 * refuse, as {@code ep_recv_info_supported} 0 and {@code srq_watermarks_supported} 0 say). The posts are written
 * here, and call the shell's allocation-free checks ({@link DtoArgs}).
 */
final class ExampleEp extends AbstractEp<ExampleIa> {

    private static final byte SEND = 1;
    private static final byte WRITE = 2;
    private static final byte READ = 3;

    final ExamplePz pz;
    private final ExampleEvd recvEvd;
    private final ExampleEvd requestEvd;
    private final ExampleEvd connectEvd;
    private DatEpAttr attr;

    private DatEpState state = DatEpState.UNCONNECTED;
    private ExampleEp peer;
    private long localPortQual;
    private InetAddress remoteAddress;
    private long remotePortQual;
    /** The request of a pending {@code dat_ep_connect}, and its timeout. */
    private ExampleCr pendingCr;
    private Future<?> connectTimeout;

    private Queue requests;
    private Queue recvs;
    /** Posted and not yet reaped: the counts {@code max_request_dtos} and {@code max_recv_dtos} bound. */
    private int requestsOutstanding;
    private int recvsOutstanding;
    /** Where the posts read the consumer's triplets, under {@link Fabric#LOCK}. */
    private final LmrTriplet triplet = new LmrTriplet();

    ExampleEp(ExampleIa ia, ExamplePz pz, ExampleEvd recvEvd, ExampleEvd requestEvd, ExampleEvd connectEvd,
              DatEpAttr attr) {
        super(ia, false);
        this.pz = pz;
        this.recvEvd = recvEvd;
        this.requestEvd = requestEvd;
        this.connectEvd = connectEvd;
        setAttr(attr);
    }

    private void setAttr(DatEpAttr value) {
        this.attr = value;
        int requestIov = Math.max(value.maxRequestIov(), Math.max(value.maxRdmaReadIov(), value.maxRdmaWriteIov()));
        this.requests = new Queue(value.maxRequestDtos(), requestIov);
        this.recvs = new Queue(value.maxRecvDtos(), value.maxRecvIov());
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

    // ---- data path ----

    @Override
    public int postSend(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        return postRequest(SEND, numSegments, localIov, userCookie, 0, 0, 0, completionFlags);
    }

    @Override
    public int postRdmaWrite(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                             long length, int completionFlags) {
        return postRequest(WRITE, numSegments, localIov, userCookie, rmrContext, targetAddress, length,
                completionFlags);
    }

    @Override
    public int postRdmaRead(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                            long length, int completionFlags) {
        return postRequest(READ, numSegments, localIov, userCookie, rmrContext, targetAddress, length,
                completionFlags);
    }

    private int postRequest(byte op, int n, Iov iov, long cookie, int rmrContext, long remote, long remoteLength,
                            int flags) {
        Fabric.LOCK.lock();
        try {
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            int maxIov = op == SEND ? attr.maxRequestIov() : op == WRITE ? attr.maxRdmaWriteIov()
                    : attr.maxRdmaReadIov();
            int rc = checkPost(n, iov, maxIov, flags, attr.requestCompletionFlags());
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
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

    @Override
    public int postRecv(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        Fabric.LOCK.lock();
        try {
            if (isClosed()) {
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
            if (state == DatEpState.DISCONNECTED) {
                flush();
            } else if (peer != null) {
                peer.progress();
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
            ExampleLmr lmr = owner().lmrOf(triplet.lmrContext());
            rc = DtoArgs.segment(lmr, pz, needed, address, length);
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

    /** Runs the requests at the head of the queue that can run now. */
    private void progress() {
        while (requests.count > 0 && state == DatEpState.CONNECTED) {
            int slot = requests.head;
            byte op = requests.op[slot];
            if (op == SEND && peer.recvs.count == 0) {
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
            complete(requestEvd, ExampleEvd.REQUEST, requests.cookie[slot], status,
                    status == DatDtoStatus.SUCCESS ? transferred : 0);
            requests.pop();
            if (status != DatDtoStatus.SUCCESS) {
                // A reliable connection does not survive a failed DTO: both EPs go DISCONNECTED, the rest is
                // flushed, and each side learns it from a BROKEN event (as an HCA moves the QP to the error state).
                breakConnection(true, DatEventType.CONNECTION_EVENT_BROKEN);
            }
        }
    }

    /** Gathers a send into the peer's oldest receive; @return the sender's completion status */
    private DatDtoStatus deliver(int slot) {
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
        peer.complete(peer.recvEvd, ExampleEvd.RECV, into.cookie[r], recvStatus,
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
        if (remote == null || remote.pz() != peer.pz || !remote.allows(write ? DatMemPriv.REMOTE_WRITE
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

    /** Queues a completion, or frees the slot at once when there is no EVD to hold it or the EVD is full. */
    private void complete(ExampleEvd evd, byte kind, long cookie, DatDtoStatus status, long length) {
        if (evd == null || !evd.dto(this, cookie, status, length, kind)) {
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
    private void flush() {
        while (recvs.count > 0) {
            complete(recvEvd, ExampleEvd.RECV, recvs.cookie[recvs.head], DatDtoStatus.FLUSHED, 0);
            recvs.pop();
        }
        while (requests.count > 0) {
            complete(requestEvd, ExampleEvd.REQUEST, requests.cookie[requests.head], DatDtoStatus.FLUSHED, 0);
            requests.pop();
        }
    }

    // ---- connection management ----

    @Override
    public void connect(InetAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
                        DatQos qos, int connectFlags) {
        Fabric.LOCK.lock();
        try {
            String call = "dat_ep_connect";
            requireOpen(call);
            if (remoteIaAddress == null) {
                throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": remote_ia_address is null");
            }
            checkPrivateData(call, privateData, DatReturnSubtype.INVALID_ARG5);
            if (qos == null || (connectFlags & ~DatConnectFlags.MULTIPATH) != 0 || timeoutMicros < 0) {
                throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG6, call + ": qos " + qos
                        + ", connect_flags 0x" + Integer.toHexString(connectFlags) + ", timeout " + timeoutMicros
                        + ": a qos, only DAT_CONNECT_MULTIPATH_FLAG, and a timeout of at least 0 are valid");
            }
            if (qos != DatQos.BEST_EFFORT || (connectFlags & DatConnectFlags.MULTIPATH) != 0) {
                throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": provider " + ExampleProvider.NAME
                        + " offers only DAT_QOS_BEST_EFFORT on one path (qos " + qos + ", flags 0x"
                        + Integer.toHexString(connectFlags) + ")");
            }
            requireState(call, DatEpState.UNCONNECTED);
            if (connectEvd == null) {
                throw new DatException(DatReturn.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EVD_CONN,
                        call + ": the EP has no connect EVD to report the outcome on");
            }
            state = DatEpState.ACTIVE_CONNECTION_PENDING;
            localPortQual = Fabric.freeQualifier();
            remoteAddress = remoteIaAddress;
            remotePortQual = remoteConnQual;
            Fabric.Listener listener = remoteIaAddress.equals(Fabric.ADDRESS) ? Fabric.listener(remoteConnQual)
                    : null;
            if (listener == null) {
                refused(DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED);
                return;
            }
            ExampleCr cr = new ExampleCr(listener, this, localPortQual, privateData == null ? new byte[0] : privateData.clone());
            if (!cr.arrive(listener, remoteConnQual)) {
                refused(DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED);
                return;
            }
            pendingCr = cr;
            if (timeoutMicros != Dat.DAT_TIMEOUT_INFINITE) {
                connectTimeout = Fabric.TIMER.schedule(() -> timedOut(cr), timeoutMicros, TimeUnit.MICROSECONDS);
            }
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    private void timedOut(ExampleCr cr) {
        Fabric.LOCK.lock();
        try {
            if (pendingCr == cr && state == DatEpState.ACTIVE_CONNECTION_PENDING) {
                cr.withdraw();
                refused(DatEventType.CONNECTION_EVENT_TIMED_OUT);
            }
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    /** A connection attempt ended without a connection: DISCONNECTED, with the event saying why. */
    void refused(DatEventType why) {
        endAttempt();
        state = DatEpState.DISCONNECTED;
        flush();
        connectEvd.connection(why, this, null);
    }

    private void endAttempt() {
        pendingCr = null;
        if (connectTimeout != null) {
            connectTimeout.cancel(false);
            connectTimeout = null;
        }
    }

    /** {@return whether this EP still waits for the answer to {@code cr}} */
    boolean awaits(ExampleCr cr) {
        return !isClosed() && pendingCr == cr && state == DatEpState.ACTIVE_CONNECTION_PENDING;
    }

    /** {@code dat_cr_accept}: joins this requester and the accepting EP; both see ESTABLISHED. */
    void established(ExampleEp passive, long listenerQual, byte[] acceptData) {
        endAttempt();
        peer = passive;
        passive.peer = this;
        state = DatEpState.CONNECTED;
        passive.state = DatEpState.CONNECTED;
        passive.localPortQual = listenerQual;
        passive.remoteAddress = Fabric.ADDRESS;
        passive.remotePortQual = localPortQual;
        connectEvd.connection(DatEventType.CONNECTION_EVENT_ESTABLISHED, this, acceptData);
        if (passive.connectEvd != null) {
            passive.connectEvd.connection(DatEventType.CONNECTION_EVENT_ESTABLISHED, passive, null);
        }
    }

    /** Checks this EP may take {@code dat_cr_accept}: unconnected, or reserved by the RSP the request came through. */
    void requireAcceptable(String call, boolean reserved) {
        requireState(call, reserved ? DatEpState.RESERVED : DatEpState.UNCONNECTED);
    }

    void reserve(String call) {
        requireState(call, DatEpState.UNCONNECTED);
        state = DatEpState.RESERVED;
    }

    void unreserve() {
        if (state == DatEpState.RESERVED) {
            state = DatEpState.UNCONNECTED;
        }
    }

    private void requireState(String call, DatEpState wanted) {
        if (state != wanted) {
            throw DatArgs.epState(call, "ep_handle", state, wanted.toString());
        }
    }

    static void checkPrivateData(String call, byte[] data, DatReturnSubtype arg) {
        if (data != null && data.length > ExampleProvider.MAX_PRIVATE_DATA_SIZE) {
            throw DatArgs.invalidParameter(arg, call + ": private_data_size " + data.length
                    + " is above max_private_data_size " + ExampleProvider.MAX_PRIVATE_DATA_SIZE);
        }
    }

    @Override
    public void dupConnect(DatEp dupEp, long timeoutMicros, byte[] privateData, DatQos qos) {
        InetAddress address;
        long qual;
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_ep_dup_connect");
            ExampleEp dup = own(dupEp, ExampleEp.class, DatReturnSubtype.INVALID_HANDLE_EP, "dat_ep_dup_connect",
                    "dup_ep_handle");
            if (dup.state != DatEpState.CONNECTED) {
                throw DatArgs.epState("dat_ep_dup_connect", "dup_ep_handle", dup.state, "CONNECTED");
            }
            address = dup.remoteAddress;
            qual = dup.remotePortQual;
        } finally {
            Fabric.LOCK.unlock();
        }
        connect(address, qual, timeoutMicros, privateData, qos, DatConnectFlags.DEFAULT);
    }

    /** Both disconnects end the connection at once: nothing here runs asynchronously that GRACEFUL could wait for. */
    @Override
    protected void implDisconnect(DatCloseFlags flags) {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_ep_disconnect");
            switch (state) {
                case CONNECTED -> breakConnection(true, DatEventType.CONNECTION_EVENT_DISCONNECTED);
                case ACTIVE_CONNECTION_PENDING -> {
                    pendingCr.withdraw();
                    refused(DatEventType.CONNECTION_EVENT_DISCONNECTED);
                }
                case DISCONNECTED -> { }
                default -> requireState("dat_ep_disconnect", DatEpState.CONNECTED);
            }
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    /**
     * Ends a connection: both sides DISCONNECTED, their queued work FLUSHED. A graceful disconnect needs no
     * waiting here: every request that could run already ran, and what waits for a receive never will.
     *
     * @param notifySelf whether this EP gets its event (not when it is being freed)
     * @param event DISCONNECTED for a disconnect or a free, BROKEN when a DTO failed
     */
    private void breakConnection(boolean notifySelf, DatEventType event) {
        ExampleEp other = peer;
        peer = null;
        state = DatEpState.DISCONNECTED;
        flush();
        if (notifySelf) {
            connectEvd.connection(event, this, null);
        }
        if (other != null) {
            other.peer = null;
            other.state = DatEpState.DISCONNECTED;
            other.flush();
            if (other.connectEvd != null) {
                other.connectEvd.connection(event, other, null);
            }
        }
    }

    @Override
    public void reset() {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_ep_reset");
            requireState("dat_ep_reset", DatEpState.DISCONNECTED);
            state = DatEpState.UNCONNECTED;
            remoteAddress = null;
            remotePortQual = 0;
            localPortQual = 0;
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    // ---- control path ----

    @Override
    public DatEpState state() {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_ep_get_status");
            return state;
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public DatEpStatus getStatus() {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_ep_get_status");
            return new DatEpStatus(state, recvsOutstanding == 0, requestsOutstanding == 0);
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public DatEpParam query() {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_ep_query");
            return new DatEpParam(owner(), state, Fabric.ADDRESS, localPortQual, remoteAddress, remotePortQual, pz,
                    recvEvd, requestEvd, connectEvd, null, attr);
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    protected void implModify(DatEpAttr newAttr) {
        Fabric.LOCK.lock();
        try {
            String call = "dat_ep_modify";
            requireOpen(call);
            requireState(call, DatEpState.UNCONNECTED);
            if (requestsOutstanding > 0 || recvsOutstanding > 0) {
                throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_NOTREADY,
                        call + ": the EP has work requests outstanding; reap them first");
            }
            setAttr(newAttr);
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == pz || other == recvEvd || other == requestEvd || other == connectEvd;
    }

    /** {@code dat_ep_free}: a connected EP is disconnected abruptly, the peer told; its queued work is dropped. */
    @Override
    protected void destroy() {
        if (state == DatEpState.CONNECTED) {
            breakConnection(false, DatEventType.CONNECTION_EVENT_DISCONNECTED);
        } else if (state == DatEpState.ACTIVE_CONNECTION_PENDING) {
            pendingCr.withdraw();
            endAttempt();
        }
        markClosed();
    }
}
