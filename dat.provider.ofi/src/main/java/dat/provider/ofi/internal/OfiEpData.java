// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEventType;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.Iov;
import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiMsg;
import dat.provider.ofi.internal.ffm.FiMsgRma;
import dat.provider.ofi.internal.ffm.FiMsgTagged;
import dat.provider.ofi.internal.ffm.FiRmaIov;
import dat.provider.ofi.internal.ffm.Iovec;
import dat.provider.ofi.internal.ffm.LibFabric;
import dat.provider.ofi.internal.rdm.RdmProbe;
import dat.spi.DtoArgs;
import dat.spi.IbWcStatus;
import dat.spi.LmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The data path of one {@link OfiEp}: {@code dat_ep_post_send} ({@code fi_sendmsg}), {@code dat_ep_post_recv}
 * ({@code fi_recvmsg}), {@code dat_ep_post_rdma_write} ({@code fi_writemsg}) and {@code dat_ep_post_rdma_read}
 * ({@code fi_readmsg}), each with {@code FI_COMPLETION} and the LMRs' descriptors, built in native memory the EP
 * allocated at creation (libfabric copies the iov, descriptors and message before the call returns), so a post
 * allocates nothing.
 *
 * <p>Every post takes a slot of its queue; the slot's index, the queue and the EP's connection generation travel as
 * the operation context ({@link #context}), which is how a completion finds its slot and how a completion of an
 * earlier connection (the provider flushing an endpoint jDAT already closed and flushed itself) is told apart and
 * dropped. A receive posted before the connection exists waits in its slot and is posted when the endpoint is made.
 * The slot is free again when its completion is queued; the DAT count of outstanding work
 * ({@code max_request_dtos}, {@code max_recv_dtos}) drops when the completion is dequeued. A suppressed successful
 * completion is never queued. A failed DTO (anything but a flush) breaks the connection, as on an RC queue pair.
 * Everything runs under the IA's lock.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class OfiEpData {

    static final byte SEND = 1;
    static final byte WRITE = 2;
    static final byte READ = 3;
    static final byte RECV = 4;

    private static final byte FREE = 0;
    private static final byte QUEUED = 1;
    private static final byte POSTED = 2;
    /** A send libfabric completed at transmit, waiting for the peer's advert to say it landed (OfiCredit). */
    private static final byte TRANSMITTED = 3;
    /** A request that completed successfully behind a {@link #TRANSMITTED} send: reported after it, in order. */
    private static final byte DONE = 4;

    /**
     * A send or RDMA write completes when it has landed at the target ({@code FI_DELIVERY_COMPLETE}), as on an RC
     * queue pair: a completion at transmit (libfabric's default) would report a send no receive took, or a write the
     * target's key check refused, as a success. A send toward a peer that counts its receives completes at transmit
     * in libfabric instead, or goes as an inject ({@link #injects}), and waits for the peer's advert of what landed
     * ({@link #TRANSMITTED}, OfiCredit).
     */
    private static final long SEND_FLAGS = LibFabric.FI_COMPLETION | LibFabric.FI_DELIVERY_COMPLETE;
    /**
     * A send over RDM completes at transmit in libfabric: shm 1.17 crashes (SIGSEGV in its progress, OfiShmDataTest)
     * when a tagged send asking {@code FI_DELIVERY_COMPLETE} arrives before its receive is posted. The send then waits
     * for the peer's advert of what landed ({@link #TRANSMITTED}, OfiCredit), as on a gated MSG connection.
     */
    private static final long RDM_SEND_FLAGS = LibFabric.FI_COMPLETION;

    /**
     * A read over RDM asks delivery completion too: shm 1.17 then takes it through the target's progress, which checks
     * the key and its remote read access ({@code ofi_mr_map_verify}); its own path reads the target's memory with no
     * check at all (cross-memory attach). A read the target refuses is answered by the probe (OfiRdmLink#probe).
     */
    private static final long RDM_READ_FLAGS = LibFabric.FI_COMPLETION | LibFabric.FI_DELIVERY_COMPLETE;

    /**
     * An RDM write of no bytes asks no delivery: it has nothing to deliver (nor, as on an RC queue pair, a key to
     * check), and shm 1.17 sends a write asking delivery in its segmented protocol, which for no bytes marks the
     * response as holding data the target never copies out: it never completes, and every later post to that peer is
     * answered EAGAIN (OfiShmDataTest#aWriteOfNoBytesLeavesTheNextSendToThePeerFree).
     */
    private static final long RDM_EMPTY_WRITE_FLAGS = LibFabric.FI_COMPLETION;

    /** {@code EPIPE}: tcp reports a socket's errno as it is, and libfabric 1.17 has no {@code FI_EPIPE}. */
    private static final int EPIPE = 32;

    /** The most SRQ buffers one EP holds lent at a time (its endpoint's receive queue bounds it too). */
    private static final int LEND_MAX = 1024;

    /** EAGAIN retries of one post, each after a progress step. */
    private static final int AGAIN_TRIES = 64;
    /** How long an RDM post retries EAGAIN. */
    private static final long RDM_AGAIN_NANOS = 2_000_000_000L;
    /** How long a last advert retries EAGAIN. */
    private static final long LAST_ADVERT_NANOS = 2_000_000L;

    private final OfiEp ep;
    private final OfiIa ia;
    /** The SRQ the EP receives from, or {@code null}. */
    private final OfiSrq srq;
    /** SRQ buffers this EP completed whose completions are not dequeued yet. */
    private int srqUnreaped;
    /** The SRQ slot of each receive slot holding a lent buffer ({@link #lend}), -1 for none. */
    private int[] lentSlot;
    private DatEpAttr attr;
    private Queue requests;
    private Queue recvs;
    private int requestsOutstanding;
    private int recvsOutstanding;
    private long seq;
    private final LmrTriplet triplet = new LmrTriplet();
    /** The connection's receiver credits (OfiCredit). */
    final OfiCredit credit;
    /**
     * Requests posted but held back for credit, oldest first (a ring of request slots in state QUEUED): a send the
     * peer has no receive for, and everything posted behind it, as an RC queue pair keeps them through RNR.
     */
    private int[] held;
    private int heldHead;
    private int heldCount;
    /** Requests in {@link #TRANSMITTED} or {@link #DONE}. */
    private int waiting;
    /** A post or release of this EP is under way: a progress step it runs must not post for the EP again. */
    private boolean busy;

    private Arena arena;
    private MemorySegment iov;
    private MemorySegment desc;
    /** The iov count the last {@link #fillIov} filled (the posts run under the IA's lock). */
    private int iovCount;
    private MemorySegment msg;
    private MemorySegment rmaMsg;
    private MemorySegment rmaIov;
    private MemorySegment taggedMsg;

    OfiEpData(OfiEp ep, DatEpAttr attr) {
        this.ep = ep;
        this.ia = ep.owner();
        this.srq = ep.srq;
        this.credit = new OfiCredit(ep);
        configure(attr);
    }

    /** Builds empty queues and their native scratch to the attributes (at create, and by dat_ep_modify). */
    @SuppressWarnings("MustBeClosedChecker") // the arena belongs to the EP: close() (its free) or the next configure
    void configure(DatEpAttr value) {
        this.attr = value;
        int requestIov = Math.max(value.maxRequestIov(), Math.max(value.maxRdmaReadIov(), value.maxRdmaWriteIov()));
        this.requests = new Queue(value.maxRequestDtos(), requestIov);
        // An EP on an SRQ receives into the buffers it is lent: its receive slots hold those.
        this.recvs = srq != null ? new Queue(lendCapacity(), srq.maxIov())
                : new Queue(value.maxRecvDtos(), value.maxRecvIov());
        this.lentSlot = new int[recvs.capacity];
        Arrays.fill(lentSlot, -1);
        this.held = new int[value.maxRequestDtos()];
        heldHead = 0;
        heldCount = 0;
        int maxIov = Math.max(1, Math.max(requestIov, recvs.maxIov));
        if (arena != null) {
            arena.close();
        }
        arena = Arena.ofShared();
        iov = arena.allocate(Iovec.LAYOUT.byteSize() * maxIov, 8);
        desc = arena.allocate(8L * maxIov, 8);
        msg = arena.allocate(FiMsg.LAYOUT);
        rmaMsg = arena.allocate(FiMsgRma.LAYOUT);
        rmaIov = arena.allocate(FiRmaIov.LAYOUT);
        taggedMsg = arena.allocate(FiMsgTagged.LAYOUT);
    }

    void close() {
        credit.free();
        if (arena != null) {
            arena.close();
            arena = null;
        }
    }

    DatEpAttr attr() {
        return attr;
    }

    boolean requestsIdle() {
        return requestsOutstanding == 0;
    }

    boolean recvsIdle() {
        return recvsOutstanding == 0 && srqUnreaped == 0;
    }

    /** {@return the receives posted whose completions are not generated yet (dat_ep_recv_query)} */
    int recvsAllocated() {
        return recvs.capacity - recvs.freeCount;
    }

    /** {@return the receive slots of an EP on an SRQ: the most buffers it holds lent at once} */
    private int lendCapacity() {
        long rx = ia.entry.limits().rxSize();
        return (int) Math.max(1, Math.min(LEND_MAX, rx <= 0 ? LEND_MAX : rx));
    }

    /**
     * {@return whether a request is in the fabric and not transmitted yet: what a graceful RDM disconnect waits for}
     * A send that waits for the peer's advert does not hold the {@code DISCONNECT} back: the peer's answer to it is its
     * last advert. Nor do the requests held for credit: they never entered the connection, and go with it as an RC
     * send waiting in RNR does.
     */
    boolean requestsPosted() {
        return oldest(requests, POSTED) >= 0;
    }

    /** Slots of one queue, parallel arrays, with a stack of free indexes. */
    private static final class Queue {
        final int capacity;
        final int maxIov;
        final byte[] state;
        final byte[] op;
        final int[] flags;
        final long[] cookie;
        final long[] order;
        final int[] segments;
        final OfiLmr[] lmr;
        final long[] address;
        final long[] length;
        final long[] remoteLength;
        /** A held RDMA's rmr_context and target address. */
        final int[] rkey;
        final long[] remote;
        /** A send's number among the connection's sends, when it waits for the peer's advert; 0 otherwise. */
        final long[] ackAt;
        final int[] free;
        int freeCount;
        /** The oldest open slot as {@link #oldestOpen} last found it, or -1, and its order then. */
        private int oldest = -1;
        private long oldestOrder;
        /** The slots open (posted, transmitted or done): none or one is the common case, known without a scan. */
        private int openCount;

        Queue(int capacity, int maxIov) {
            this.capacity = capacity;
            this.maxIov = Math.max(1, maxIov);
            state = new byte[capacity];
            op = new byte[capacity];
            flags = new int[capacity];
            cookie = new long[capacity];
            order = new long[capacity];
            segments = new int[capacity];
            lmr = new OfiLmr[capacity * this.maxIov];
            address = new long[capacity * this.maxIov];
            length = new long[capacity * this.maxIov];
            remoteLength = new long[capacity];
            rkey = new int[capacity];
            remote = new long[capacity];
            ackAt = new long[capacity];
            free = new int[capacity];
            for (int i = 0; i < capacity; i++) {
                free[i] = capacity - 1 - i;
            }
            freeCount = capacity;
        }

        long total(int slot) {
            long sum = 0;
            for (int s = 0; s < segments[slot]; s++) {
                sum += length[slot * maxIov + s];
            }
            return sum;
        }

        void release(int slot) {
            for (int s = 0; s < segments[slot]; s++) {
                lmr[slot * maxIov + s] = null;
            }
            if (open(state[slot])) {
                openCount--;
            }
            state[slot] = FREE;
            free[freeCount++] = slot;
        }

        /** The slot is handed to the fabric (or flushed as if it had been): it is open from now on. */
        void posted(int slot) {
            if (!open(state[slot]) && openCount++ == 0) {
                // The only open slot: the oldest, whatever the cache said.
                oldest = slot;
                oldestOrder = order[slot];
            }
            state[slot] = POSTED;
            if (oldest >= 0 && order[slot] < oldestOrder) {
                // A held request released behind younger ones that went first: it is the oldest open now.
                oldest = slot;
                oldestOrder = order[slot];
            }
        }

        /**
         * {@return the oldest request handed to the fabric and not reported yet, or -1} The answer is kept while its
         * slot stays open under the same order (a slot only opens through {@link #posted}, which keeps it right), so
         * a poll that waits for the peer's advert does not scan the queue; nor does a send posted while none is open.
         */
        int oldestOpen() {
            int c = oldest;
            if (c >= 0 && order[c] == oldestOrder && open(state[c])) {
                return c;
            }
            if (openCount == 0) {
                oldest = -1;
                return -1;
            }
            int best = -1;
            for (int i = 0; i < capacity; i++) {
                if (open(state[i]) && (best < 0 || order[i] < order[best])) {
                    best = i;
                }
            }
            oldest = best;
            oldestOrder = best < 0 ? 0 : order[best];
            return best;
        }

        private static boolean open(byte s) {
            return s == POSTED || s == TRANSMITTED || s == DONE;
        }
    }

    /**
     * {@return the operation context of a slot}: the EP key in the high 32 bits, then 12 bits of connection
     * generation, one bit for the receive queue, and 19 bits of slot
     */
    long context(boolean recv, int slot) {
        return (long) ep.key << 32 | (long) (ep.connection.generation() & 0xfff) << 20 | (recv ? 1L << 19 : 0)
                | slot;
    }

    // ---- posts ----

    int postSend(int n, Iov localIov, long cookie, int flags) {
        return postRequest(SEND, n, localIov, cookie, 0, 0, 0, flags);
    }

    int postRdmaWrite(int n, Iov localIov, long cookie, int rmrContext, long target, long length, int flags) {
        return postRequest(WRITE, n, localIov, cookie, rmrContext, target, length, flags);
    }

    int postRdmaRead(int n, Iov localIov, long cookie, int rmrContext, long target, long length, int flags) {
        return postRequest(READ, n, localIov, cookie, rmrContext, target, length, flags);
    }

    private int postRequest(byte op, int n, Iov localIov, long cookie, int rmrContext, long remote, long remoteLength,
                            int flags) {
        ia.lock.lock();
        try {
            if (ep.isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            int maxIov = op == SEND ? attr.maxRequestIov() : op == WRITE ? attr.maxRdmaWriteIov()
                    : attr.maxRdmaReadIov();
            int rc = checkPost(n, localIov, maxIov, flags);
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            DatEpState state = ep.state;
            if (state != DatEpState.CONNECTED && state != DatEpState.DISCONNECTED) {
                return DatReturn.DAT_INVALID_STATE;
            }
            if (requestsOutstanding >= attr.maxRequestDtos() || requests.freeCount == 0) {
                return DatReturn.DAT_INSUFFICIENT_RESOURCES;
            }
            int slot = requests.free[requests.freeCount - 1];
            rc = copySegments(requests, slot, n, localIov, op == READ ? DatMemPriv.LOCAL_WRITE
                    : DatMemPriv.LOCAL_READ);
            if (rc != DatReturn.DAT_SUCCESS) {
                clearSegments(requests, slot);
                return rc;
            }
            long total = requests.total(slot);
            if (op == SEND && total > attr.maxMessageSize()) {
                clearSegments(requests, slot);
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            if (op != SEND && total > attr.maxRdmaSize()) {
                clearSegments(requests, slot);
                return DatReturn.DAT_LENGTH_ERROR;
            }
            if (op != SEND && (remoteLength < 0 || (op == WRITE ? total > remoteLength : remoteLength > total))) {
                clearSegments(requests, slot);
                return remoteLength < 0 ? DatReturn.DAT_INVALID_PARAMETER : DatReturn.DAT_LENGTH_ERROR;
            }
            requests.freeCount--;
            requests.op[slot] = op;
            requests.flags[slot] = flags;
            requests.cookie[slot] = cookie;
            requests.order[slot] = ++seq;
            requests.remoteLength[slot] = op == SEND ? total : op == WRITE ? total : remoteLength;
            requests.rkey[slot] = rmrContext;
            requests.remote[slot] = remote;
            requests.ackAt[slot] = 0;
            requests.state[slot] = QUEUED;
            requestsOutstanding++;
            if (state == DatEpState.DISCONNECTED) {
                flush();
                return DatReturn.DAT_SUCCESS;
            }
            if (credit.gate && (heldCount > 0 || (op == SEND && !credit.maySend()))) {
                // The peer has no receive for it (or a held send is ahead of it): it waits in order, as in RNR.
                held[(heldHead + heldCount) % held.length] = slot;
                heldCount++;
                return DatReturn.DAT_SUCCESS;
            }
            busy = true;
            try {
                hand(slot);
            } finally {
                busy = false;
            }
            return DatReturn.DAT_SUCCESS;
        } finally {
            ia.lock.unlock();
        }
    }

    /** Hands a request slot to the fabric; a failure breaks the connection (the slot is flushed with it). */
    private void hand(int slot) {
        byte op = requests.op[slot];
        long posted = !ep.connection.peerReachable() ? -LibFabric.FI_ENOTCONN
                : op == SEND ? postMsg(false, slot) : postRma(op == WRITE, slot, requests.rkey[slot],
                requests.remote[slot]);
        if (posted < 0) {
            // Whatever failed here leaves the endpoint unusable: the connection breaks and the post is flushed.
            ep.connection.breakConnection(true, DatEventType.CONNECTION_EVENT_BROKEN);
        }
    }

    /**
     * Hands the held requests the credit allows to the fabric, in order. Under the IA's lock.
     *
     * @return whether it handed any
     */
    private boolean releaseHeld() {
        boolean any = false;
        busy = true;
        try {
            while (heldCount > 0 && ep.state == DatEpState.CONNECTED) {
                int slot = held[heldHead];
                if (requests.op[slot] == SEND && !credit.maySend()) {
                    break;
                }
                heldHead = (heldHead + 1) % held.length;
                heldCount--;
                any = true;
                if (requests.state[slot] == QUEUED) {
                    hand(slot);
                }
            }
        } finally {
            busy = false;
        }
        return any;
    }

    /**
     * The credit work of a progress step, after its CQ reads: the word the peer writes read, held requests released,
     * a due advert written. Under the IA's lock.
     *
     * @return whether it handed anything to the fabric
     */
    boolean creditStep(long now) {
        if (busy || ep.isClosed() || !(credit.gate || credit.advertise || credit.acks())) {
            return false;
        }
        if (waiting > 0) {
            // The peer's advert rides on its sends, whose completions are on the receive side: a consumer waiting on
            // its request EVD alone would not read them. The read also progresses the endpoint, which over shm is
            // what applies the peer's write of the word.
            // Not twice in one step: on tcp each read is an epoll_wait.
            if (ep.recvEvd != null && !ep.recvEvd.drainedThisStep()) {
                ep.recvEvd.drainCq();
            }
        }
        credit.readWord();
        if (waiting > 0) {
            acknowledge();
        }
        boolean any = false;
        if (heldCount > 0 && (requests.op[held[heldHead]] != SEND || credit.maySend())) {
            any = releaseHeld();
        }
        any |= lend();
        OfiEpConnection c = ep.connection;
        if (ep.state != DatEpState.CONNECTED || c.fid().address() == 0 || !c.peerReachable()) {
            return any;
        }
        if (heldCount > 0 && credit.peerLends) {
            // Held for credit toward an EP on an SRQ: it lends when told how many sends wait (OfiSrq).
            long wanted = credit.sent + heldSends();
            if (credit.wantUntold(wanted)) {
                long rc = credit.writeWant(wanted, c.fnWritemsg, c.fid(), dest(), context(false,
                        OfiCredit.WRITE_SLOT));
                if (wordFailed(rc)) {
                    return true;
                }
                any |= rc == 0;
            }
        }
        if (credit.advertise && credit.advertDue(now)) {
            long rc = credit.write(c.fnWritemsg, c.fid(), dest(), context(false, OfiCredit.WRITE_SLOT));
            wordFailed(rc);
            any |= rc == 0;
        }
        return any;
    }

    /** {@return whether a write into the peer's credit word failed (not EAGAIN, which a later step retries)} */
    private boolean wordFailed(long rc) {
        if (rc < 0 && rc != -LibFabric.FI_EAGAIN) {
            // Whatever failed leaves the endpoint unusable, as a failed post does.
            ep.connection.breakConnection(true, DatEventType.CONNECTION_EVENT_BROKEN);
            return true;
        }
        return false;
    }

    /** {@return the sends among the requests held for credit} */
    private int heldSends() {
        int n = 0;
        for (int i = 0; i < heldCount; i++) {
            int slot = held[(heldHead + i) % held.length];
            if (requests.op[slot] == SEND && requests.state[slot] == QUEUED) {
                n++;
            }
        }
        return n;
    }

    /**
     * An EP on an SRQ takes buffers from it for the sends its peer wants ({@link OfiCredit#lendWanted}), each posted
     * as a receive of its own, and tells the peer at once. Under the IA's lock.
     *
     * @return whether it lent any
     */
    boolean lend() {
        if (srq == null || busy || ep.state != DatEpState.CONNECTED || ep.connection.fid().address() == 0) {
            return false;
        }
        boolean any = false;
        busy = true;
        try {
            // A post's EAGAIN retries run progress steps, which may end the connection (its flush gives back what
            // was lent): the loop looks again each time.
            while (credit.lendWanted() > 0 && recvs.freeCount > 0 && ep.state == DatEpState.CONNECTED
                    && ep.connection.fid().address() != 0) {
                int buffer = srq.lend(ep);
                if (buffer < 0) {
                    break;
                }
                int slot = recvs.free[--recvs.freeCount];
                int n = srq.segments(buffer);
                recvs.segments[slot] = n;
                for (int s = 0; s < n; s++) {
                    int from = srq.segmentIndex(buffer, s);
                    int to = slot * recvs.maxIov + s;
                    recvs.address[to] = srq.address(from);
                    recvs.length[to] = srq.length(from);
                    recvs.lmr[to] = srq.lmr(from);
                }
                recvs.op[slot] = RECV;
                // The SRQ's buffers take no completion flags: they always complete signalled.
                recvs.flags[slot] = 0;
                recvs.cookie[slot] = srq.cookie(buffer);
                recvs.order[slot] = ++seq;
                recvs.state[slot] = QUEUED;
                lentSlot[slot] = buffer;
                if (postMsg(true, slot) < 0) {
                    unlend(slot);
                    ep.connection.breakConnection(true, DatEventType.CONNECTION_EVENT_BROKEN);
                    return any;
                }
                any = true;
            }
        } finally {
            busy = false;
        }
        if (any) {
            credit.lent();
        }
        return any;
    }

    /** A lent buffer goes back to the SRQ unfilled; its receive slot is free. */
    private void unlend(int slot) {
        int buffer = lentSlot[slot];
        if (buffer < 0) {
            // Given back already, by a flush the failed post's retries ran into.
            return;
        }
        lentSlot[slot] = -1;
        recvs.release(slot);
        srq.returned(buffer);
    }

    /**
     * The peer disconnected (its {@code FI_SHUTDOWN}, or the provider's flush of this connection's work), after the
     * CQs were read: its last advert, written before it shut down, completes the sends that landed before the rest
     * are flushed. Under the IA's lock.
     */
    void peerLeft() {
        credit.readWord();
        acknowledge();
    }

    /**
     * This side disconnects: the peer is told which of its messages landed, so those sends complete rather than being
     * flushed with the connection. The write goes ahead of the shutdown in the connection's stream. Under the IA's
     * lock.
     */
    void lastAdvert() {
        OfiEpConnection c = ep.connection;
        if (!credit.advertise || credit.delivered == credit.deliveredTold || c.fid().address() == 0
                || !c.peerReachable()) {
            return;
        }
        long until = System.nanoTime() + LAST_ADVERT_NANOS;
        // shm answers EAGAIN until the peer's progress took this endpoint in (a connection that never sent): that
        // progress is the peer's own, so a short wait lets it run.
        while (credit.write(c.fnWritemsg, c.fid(), dest(), context(false, OfiCredit.WRITE_SLOT))
                == -LibFabric.FI_EAGAIN && System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }

    /** {@return the peer's address for an RMA: its AV entry over RDM, 0 on a connected endpoint} */
    private long dest() {
        OfiRdmLink rdm = ep.connection.rdm;
        return rdm != null ? rdm.peer() : 0;
    }

    /**
     * Sends a fence read toward the peer (OfiLmr#destroy): it needs a connected MSG endpoint, and the peer's credit
     * word. No credit: a read request is not a message, tcp answers it whatever receives are posted. It goes ahead of
     * requests held for credit, which are this side's and not in the stream yet. Under the IA's lock.
     *
     * @return whether the read is out; false when the connection cannot fence (the caller breaks it)
     */
    boolean startFence() {
        OfiEpConnection c = ep.connection;
        if (c.rdm != null) {
            return !ep.isClosed() && c.rdm.startFence();
        }
        if (ep.isClosed() || ep.state != DatEpState.CONNECTED || !credit.canFence()) {
            return false;
        }
        long context = context(false, OfiCredit.FENCE_SLOT);
        long rc = -LibFabric.FI_EAGAIN;
        for (int i = 0; rc == -LibFabric.FI_EAGAIN && i < AGAIN_TRIES; i++) {
            if (ep.state != DatEpState.CONNECTED || c.fid().address() == 0 || c.fnReadmsg.address() == 0) {
                return false;
            }
            rc = credit.fence(c.fnReadmsg, c.fid(), context);
            if (rc == -LibFabric.FI_EAGAIN) {
                ia.progressLocked();
            }
        }
        return rc == 0;
    }

    /** {@return the slot of the oldest RDMA write or read in the fabric and not completed, or -1} */
    int oldestOpenRma() {
        if (requestsOutstanding == 0) {
            return -1;
        }
        int best = -1;
        for (int s = 0; s < requests.capacity; s++) {
            if (requests.state[s] == POSTED && requests.op[s] != SEND
                    && (best < 0 || requests.order[s] - requests.order[best] < 0)) {
                best = s;
            }
        }
        return best;
    }

    /** {@return the order number of the request in {@code slot}} */
    long requestOrder(int slot) {
        return requests.order[slot];
    }

    /** {@return the remote part of the RDMA operation in {@code slot}, as a {@code CHECK} asks it} */
    RdmProbe probe(int slot) {
        return new RdmProbe(requests.order[slot], Integer.toUnsignedLong(requests.rkey[slot]), requests.remote[slot],
                requests.remoteLength[slot], requests.op[slot] == READ, RdmProbe.ASKED);
    }

    /**
     * The peer's zone refuses the RDMA operation numbered {@code order} (its fabric dropped it without a word): it
     * completes {@code DAT_DTO_ERR_REMOTE_ACCESS} and the connection breaks, as on an RC queue pair. Under the IA's
     * lock.
     */
    void refuse(long order) {
        for (int s = 0; s < requests.capacity; s++) {
            if (requests.state[s] == POSTED && requests.op[s] != SEND && requests.order[s] == order) {
                completed(context(false, s), -LibFabric.FI_EACCES, 0, 0, 0, 0);
                return;
            }
        }
    }

    /** {@return the order number of the last request posted: what a peer's fence waits for (OfiRdmLink)} */
    long lastOrder() {
        return seq;
    }

    /**
     * {@return whether an RDMA write posted at or before {@code order} is in the fabric and not completed} Its
     * completion asks delivery, so once none is, every write of this EP the peer took before its fence has landed.
     * Under the IA's lock.
     */
    boolean writesOpen(long order) {
        for (int s = 0; s < requests.capacity; s++) {
            if (requests.state[s] == POSTED && requests.op[s] == WRITE && requests.order[s] - order <= 0) {
                return true;
            }
        }
        return false;
    }

    /** {@return the requests held back for credit (tests)} */
    int held() {
        return heldCount;
    }

    /** {@return the requests transmitted or done and waiting to be reported in order (tests)} */
    int waiting() {
        return waiting;
    }

    /** {@return the operation context of the oldest request not reported, or -1 when there is none (tests)} */
    long oldestRequestContext() {
        int slot = requests.oldestOpen();
        return slot < 0 ? -1 : context(false, slot);
    }

    int postRecv(int n, Iov localIov, long cookie, int flags) {
        ia.lock.lock();
        try {
            if (ep.isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            if (srq != null) {
                // dat_ep_post_recv on an EP created with an SRQ: its buffers come from the SRQ.
                return DatReturn.DAT_INVALID_STATE;
            }
            int rc = checkPost(n, localIov, attr.maxRecvIov(), flags);
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            if (recvsOutstanding >= attr.maxRecvDtos() || recvs.freeCount == 0) {
                return DatReturn.DAT_INSUFFICIENT_RESOURCES;
            }
            int slot = recvs.free[recvs.freeCount - 1];
            rc = copySegments(recvs, slot, n, localIov, DatMemPriv.LOCAL_WRITE);
            if (rc != DatReturn.DAT_SUCCESS) {
                clearSegments(recvs, slot);
                return rc;
            }
            recvs.freeCount--;
            recvs.op[slot] = RECV;
            recvs.flags[slot] = flags;
            recvs.cookie[slot] = cookie;
            recvs.order[slot] = ++seq;
            recvs.state[slot] = QUEUED;
            recvsOutstanding++;
            if (ep.state == DatEpState.DISCONNECTED) {
                flush();
            } else if (ep.connection.fid().address() != 0) {
                boolean was = busy;
                busy = true;
                try {
                    if (postMsg(true, slot) < 0) {
                        ep.connection.breakConnection(true, DatEventType.CONNECTION_EVENT_BROKEN);
                    }
                } finally {
                    busy = was;
                }
            }
            return DatReturn.DAT_SUCCESS;
        } finally {
            ia.lock.unlock();
        }
    }

    /** Posts every receive waiting for the endpoint, in posting order; @return false when one failed */
    boolean postQueuedRecvs() {
        while (true) {
            int next = oldest(recvs, QUEUED);
            if (next < 0) {
                return true;
            }
            if (postMsg(true, next) < 0) {
                return false;
            }
        }
    }

    private static int checkPost(int n, Iov iov, int maxIov, int flags) {
        if (DtoArgs.iov(n, iov, maxIov) != DatReturn.DAT_SUCCESS) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        if ((flags & ~DatCompletionFlags.POST_FLAGS) != 0) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        // completion_flags_supported is SUPPRESS: every other post flag is refused with the post pages' code for a
        // bad argument (they list no DAT_MODEL_NOT_SUPPORTED).
        if ((flags & ~DatCompletionFlags.SUPPRESS) != 0) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        return DatReturn.DAT_SUCCESS;
    }

    private int copySegments(Queue q, int slot, int n, Iov localIov, int needed) {
        q.segments[slot] = 0;
        for (int s = 0; s < n; s++) {
            int rc = triplet.read(localIov, s);
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            long address = triplet.virtualAddress();
            long length = triplet.segmentLength();
            OfiLmr lmr = ia.lmrs.get(triplet.lmrContext());
            rc = DtoArgs.segment(lmr, ep.pz, needed, address, length);
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            q.lmr[slot * q.maxIov + s] = lmr;
            q.address[slot * q.maxIov + s] = address;
            q.length[slot * q.maxIov + s] = length;
            q.segments[slot] = s + 1;
        }
        return DatReturn.DAT_SUCCESS;
    }

    private static void clearSegments(Queue q, int slot) {
        for (int s = 0; s < q.segments[slot]; s++) {
            q.lmr[slot * q.maxIov + s] = null;
        }
        q.segments[slot] = 0;
    }

    /**
     * Fills the iov and descriptors of the slot with its first {@code limit} bytes and {@return the descriptors to
     * post: the array, or NULL for an outbound transfer of no byte}, which goes as one empty segment without a
     * descriptor: libfabric's verbs provider reads {@code desc[0]} of a send or write whatever the count
     * ({@code vrb_send_iov}; the array holds an earlier post's descriptor, whose registration may be closed), and
     * without one it sends inline, which an empty segment always fits. The limit is a read's remote length: a verbs
     * RDMA read fills its whole local list, not the remote length, and shm 1.17 copies with process_vm_readv until
     * the local length is done (a longer list spins there forever), so the list must end where the read does.
     * {@link #iovCount} is the count to post with it.
     */
    private MemorySegment fillIov(Queue q, int slot, boolean outbound, long limit) {
        int n = 0;
        long left = limit;
        for (int s = 0; s < q.segments[slot] && left > 0; s++) {
            int i = slot * q.maxIov + s;
            long length = Math.min(q.length[i], left);
            long at = n * Iovec.SIZEOF;
            iov.set(JAVA_LONG, at + Iovec.IOV_BASE, q.address[i]);
            iov.set(JAVA_LONG, at + Iovec.IOV_LEN, length);
            desc.setAtIndex(JAVA_LONG, n, q.lmr[i].desc);
            left -= length;
            n++;
        }
        if (n == 0 && outbound) {
            iov.set(JAVA_LONG, Iovec.IOV_BASE, iov.address());
            Iovec.iovLen(iov, 0);
            iovCount = 1;
            return MemorySegment.NULL;
        }
        iovCount = n;
        return desc;
    }

    /** {@return libfabric's answer to an {@code fi_sendmsg} or {@code fi_recvmsg} of the slot} */
    private long postMsg(boolean recv, int slot) {
        Queue q = recv ? recvs : requests;
        MemorySegment d = fillIov(q, slot, !recv, Long.MAX_VALUE);
        boolean inject = !recv && credit.acks() && injects(slot);
        // A send carries this side's advert to the peer's completion (OfiCredit).
        boolean carry = !recv && credit.advertise && credit.piggyback;
        OfiEpConnection c = ep.connection;
        OfiRdmLink rdm = c.rdm;
        if (rdm != null) {
            // Over RDM every DAT message is tagged with the receiving EP's target and serial (ofi-rdm-protocol.md).
            taggedMsg.set(JAVA_LONG, FiMsgTagged.MSG_IOV, iov.address());
            taggedMsg.set(JAVA_LONG, FiMsgTagged.DESC, d.address());
            FiMsgTagged.iovCount(taggedMsg, iovCount);
            FiMsgTagged.addr(taggedMsg, recv ? LibFabric.FI_ADDR_UNSPEC : rdm.peer());
            FiMsgTagged.tag(taggedMsg, recv ? rdm.recvTag() : rdm.sendTag());
            FiMsgTagged.ignore(taggedMsg, 0);
            taggedMsg.set(JAVA_LONG, FiMsgTagged.CONTEXT, context(recv, slot));
            FiMsgTagged.data(taggedMsg, carry ? credit.carry() : 0);
            long flags = recv ? LibFabric.FI_COMPLETION : inject ? LibFabric.FI_INJECT : RDM_SEND_FLAGS;
            long rc = retry(recv ? c.fnRecvmsg : c.fnSendmsg, taggedMsg,
                    carry ? flags | LibFabric.FI_REMOTE_CQ_DATA : flags);
            if (rc == 0) {
                posted(q, recv, slot, inject);
            }
            return rc;
        }
        msg.set(JAVA_LONG, FiMsg.MSG_IOV, iov.address());
        msg.set(JAVA_LONG, FiMsg.DESC, d.address());
        FiMsg.iovCount(msg, iovCount);
        FiMsg.addr(msg, 0);
        msg.set(JAVA_LONG, FiMsg.CONTEXT, context(recv, slot));
        FiMsg.data(msg, carry ? credit.carry() : 0);
        long flags = recv ? LibFabric.FI_COMPLETION : inject ? LibFabric.FI_INJECT : credit.acks()
                ? LibFabric.FI_COMPLETION : SEND_FLAGS;
        long rc = retry(recv ? c.fnRecvmsg : c.fnSendmsg, msg, carry ? flags | LibFabric.FI_REMOTE_CQ_DATA : flags);
        if (rc == 0) {
            posted(q, recv, slot, inject);
        }
        return rc;
    }

    /**
     * {@return whether the send in {@code slot} goes as an inject: its DAT completion waits for the peer's advert
     * anyway, and the message fits the entry's {@code inject_size}} libfabric then copies it before the post returns
     * and writes no completion (the transmit CQ is bound {@code FI_SELECTIVE_COMPLETION}, OfiEpConnection), so the
     * send costs neither side a CQ entry, as {@code fi_pingpong}'s small messages do not; a failure is still written.
     */
    private boolean injects(int slot) {
        // A send's remote length is its total, summed at its post.
        return requests.remoteLength[slot] <= ia.entry.limits().injectSize();
    }

    /**
     * A message post libfabric took: the counts move, and a send waits for the advert when the peer counts; an
     * injected one is transmitted already, as if its completion had been read.
     */
    private void posted(Queue q, boolean recv, int slot, boolean injected) {
        q.posted(slot);
        if (recv) {
            credit.posted++;
            credit.receivesChanged();
        } else {
            credit.carried();
            q.ackAt[slot] = credit.acks() ? credit.sent : 0;
            if (injected) {
                q.state[slot] = TRANSMITTED;
                waiting++;
                acknowledge();
            }
        }
    }

    private long postRma(boolean write, int slot, int rmrContext, long remote) {
        MemorySegment d = fillIov(requests, slot, write, requests.remoteLength[slot]);
        FiRmaIov.addr(rmaIov, remote);
        FiRmaIov.len(rmaIov, requests.remoteLength[slot]);
        FiRmaIov.key(rmaIov, rmrContext & 0xffffffffL);
        rmaMsg.set(JAVA_LONG, FiMsgRma.MSG_IOV, iov.address());
        rmaMsg.set(JAVA_LONG, FiMsgRma.DESC, d.address());
        FiMsgRma.iovCount(rmaMsg, iovCount);
        FiMsgRma.addr(rmaMsg, ep.connection.rdm != null ? ep.connection.rdm.peer() : 0);
        rmaMsg.set(JAVA_LONG, FiMsgRma.RMA_IOV, rmaIov.address());
        FiMsgRma.rmaIovCount(rmaMsg, 1);
        rmaMsg.set(JAVA_LONG, FiMsgRma.CONTEXT, context(false, slot));
        FiMsgRma.data(rmaMsg, 0);
        OfiEpConnection c = ep.connection;
        boolean rdm = c.rdm != null;
        long flags = !write ? (rdm ? RDM_READ_FLAGS : LibFabric.FI_COMPLETION)
                : rdm && requests.remoteLength[slot] == 0 ? RDM_EMPTY_WRITE_FLAGS : SEND_FLAGS;
        long rc = retry(write ? c.fnWritemsg : c.fnReadmsg, rmaMsg, flags);
        if (rc == 0) {
            requests.posted(slot);
        }
        return rc;
    }

    /** Posts, running a progress step between tries while the endpoint's queue is full ({@code -FI_EAGAIN}). */
    private long retry(MemorySegment fn, MemorySegment message, long flags) {
        // shm answers the first sends to a peer EAGAIN until the peer's own progress took this endpoint in: an RDM
        // post retries for a while rather than a number of times. The clock only once refused: a post that goes
        // reads none.
        boolean rdm = ep.connection.rdm != null;
        boolean timed = false;
        long until = 0;
        for (int tries = 1; ; tries++) {
            MemorySegment fid = ep.connection.fid();
            if (fid.address() == 0 || fn.address() == 0) {
                return -LibFabric.FI_ENOTCONN;
            }
            long rc = Fi.post(fn, fid.address(), message.address(), flags);
            if (rc != -LibFabric.FI_EAGAIN) {
                return rc;
            }
            ia.progressLocked();
            if (rdm && !timed) {
                timed = true;
                until = System.nanoTime() + RDM_AGAIN_NANOS;
            }
            if (tries >= AGAIN_TRIES && !(rdm && System.nanoTime() - until < 0)) {
                return rc;
            }
        }
    }

    // ---- completions ----

    /**
     * A completion from a CQ, its context decoded here. Under the IA's lock.
     *
     * @param error the entry's {@code err} ({@code FI_E*}), 0 for a success
     * @param provErrno the entry's {@code prov_errno}: libfabric's verbs provider reports every failure but a flush
     *     as {@code EIO} with the {@code ibv_wc_status} here
     */
    void completed(long context, int error, int provErrno, long length, long flags, long data) {
        if (((context >>> 20) & 0xfff) != (ep.connection.generation() & 0xfff)) {
            return;
        }
        boolean recv = (context & (1L << 19)) != 0;
        int slot = (int) (context & ((1 << 19) - 1));
        if (!recv && slot == OfiCredit.WRITE_SLOT) {
            // A credit write: never a DAT event. Should it fail, the connection's own operations say so.
            return;
        }
        if (!recv && slot == OfiCredit.FENCE_SLOT) {
            // A dat_lmr_free's fence read: never a DAT event; the free breaks the connection if it failed.
            credit.fenced(error);
            return;
        }
        Queue q = recv ? recvs : requests;
        if (slot >= q.capacity) {
            return;
        }
        if (q.state[slot] == TRANSMITTED && !recv && error != 0) {
            // An injected send that failed after its post returned (transmitted): it fails as a posted one would.
            q.state[slot] = POSTED;
            waiting--;
        }
        if (q.state[slot] != POSTED) {
            return;
        }
        if (recv) {
            // Counted whether or not the peer's header was read yet (a message may overtake FI_CONNECTED).
            if (error == 0 && (flags & LibFabric.FI_REMOTE_CQ_DATA) != 0) {
                credit.raise(data);
            }
            credit.consumed++;
            if (error == 0) {
                credit.delivered++;
            }
            credit.receivesChanged();
        } else if (error == 0 && (q.ackAt[slot] != 0 || waiting > 0)) {
            // A send that waits for the peer's advert, or a request completed while one waits: reported in posting
            // order, this one when everything posted before it is.
            q.state[slot] = q.ackAt[slot] != 0 ? TRANSMITTED : DONE;
            waiting++;
            acknowledge();
            return;
        }
        // shm 1.17 writes a truncated receive's error negated (-FI_ETRUNC, OfiShmDataTest): the code is its size.
        int code = Math.abs(error);
        DatDtoStatus status = code != 0 && code != LibFabric.FI_ECANCELED && ia.entry.ibVerbs()
                ? IbWcStatus.toDat(provErrno, recv) : status(q.op[slot], code);
        long len = status != DatDtoStatus.SUCCESS ? 0 : recv ? length : q.remoteLength[slot];
        if (status == DatDtoStatus.FLUSHED) {
            // The peer is gone (jDAT's own flushes of an ended connection carry an older generation): its last advert
            // says which sends landed before the rest are flushed.
            peerLeft();
        }
        if (status != DatDtoStatus.SUCCESS) {
            // tcp may fail a later operation while an earlier one (a read waiting for its response) is still open:
            // a queue completes in posting order, so the earlier ones go first, flushed with the connection.
            for (int s = q.oldestOpen(); s >= 0 && q.order[s] < q.order[slot]; s = q.oldestOpen()) {
                if (q.state[s] != POSTED) {
                    waiting--;
                }
                finish(q, s, DatDtoStatus.FLUSHED, 0);
            }
        }
        finish(q, slot, status, len);
        if (recv && waiting > 0) {
            acknowledge();
        }
        if (status == DatDtoStatus.FLUSHED) {
            // jDAT flushes its own slots when it ends a connection, with the generation moved on: a flush of this
            // generation is the provider tearing the endpoint down, the peer gone before its FI_SHUTDOWN is read.
            ep.connection.breakConnection(true, DatEventType.CONNECTION_EVENT_DISCONNECTED);
        } else if (status != DatDtoStatus.SUCCESS) {
            ep.connection.breakConnection(true, DatEventType.CONNECTION_EVENT_BROKEN);
        }
    }

    /**
     * Reports, in posting order, the sends the peer's advert says landed and the requests completed behind them: from
     * the oldest request not reported, up to one still under way or waiting for an advert. Under the IA's lock.
     */
    void acknowledge() {
        while (waiting > 0) {
            int s = requests.oldestOpen();
            if (s < 0) {
                waiting = 0;
                return;
            }
            byte st = requests.state[s];
            if (st == POSTED || (st == TRANSMITTED && requests.ackAt[s] - credit.peerDelivered > 0)) {
                return;
            }
            waiting--;
            finish(requests, s, DatDtoStatus.SUCCESS, requests.remoteLength[s]);
        }
    }

    private static DatDtoStatus status(byte op, int error) {
        if (error == 0) {
            return DatDtoStatus.SUCCESS;
        }
        return switch (error) {
            // The connection went away under the operation (tcp fails what it was sending when the peer's socket
            // closed): it is flushed with the connection, as the peer's abrupt disconnect flushes on an RC pair.
            case LibFabric.FI_ECANCELED, LibFabric.FI_ECONNRESET, LibFabric.FI_ECONNABORTED, LibFabric.FI_ESHUTDOWN,
                 LibFabric.FI_ENOTCONN, EPIPE -> DatDtoStatus.FLUSHED;
            case LibFabric.FI_ETRUNC, LibFabric.FI_EMSGSIZE -> op == RECV ? DatDtoStatus.LOCAL_LENGTH_ERR
                    : DatDtoStatus.REMOTE_RESPONDER_ERR;
            case LibFabric.FI_EACCES, LibFabric.FI_EINVAL, LibFabric.FI_ENOENT -> op == SEND || op == RECV
                    ? DatDtoStatus.LOCAL_PROTECTION_ERR : DatDtoStatus.REMOTE_ACCESS_ERR;
            default -> DatDtoStatus.TRANSPORT_ERR;
        };
    }

    private void finish(Queue q, int slot, DatDtoStatus status, long length) {
        boolean recv = q == recvs;
        if (recv && lentSlot[slot] >= 0) {
            if (status == DatDtoStatus.FLUSHED) {
                // No message came for it: the buffer is the SRQ's again, for another EP (or this one's next peer).
                unlend(slot);
                return;
            }
            int buffer = lentSlot[slot];
            lentSlot[slot] = -1;
            srq.completed(buffer);
            srqUnreaped++;
        }
        byte kind = recv ? OfiEvd.RECV : OfiEvd.REQUEST;
        OfiEvd evd = recv ? ep.recvEvd : ep.requestEvd;
        long cookie = q.cookie[slot];
        boolean suppressed = status == DatDtoStatus.SUCCESS && (q.flags[slot] & DatCompletionFlags.SUPPRESS) != 0;
        q.release(slot);
        if (suppressed || evd == null || !evd.dto(ep, cookie, status, length, kind)) {
            release(kind);
        }
    }

    /** A completion of this EP was dequeued (or lost): the outstanding count drops. */
    void release(byte kind) {
        if (kind == OfiEvd.REQUEST) {
            requestsOutstanding--;
        } else if (srq != null) {
            srqUnreaped--;
            srq.reaped();
        } else {
            recvsOutstanding--;
        }
    }

    /** Completes every queued or posted slot FLUSHED, receives first, each queue in posting order. */
    void flush() {
        heldHead = 0;
        heldCount = 0;
        for (int slot = oldest(recvs, (byte) -1); slot >= 0; slot = oldest(recvs, (byte) -1)) {
            if (lentSlot[slot] >= 0) {
                unlend(slot);
                continue;
            }
            recvs.posted(slot);
            finish(recvs, slot, DatDtoStatus.FLUSHED, 0);
        }
        for (int slot = oldest(requests, (byte) -1); slot >= 0; slot = oldest(requests, (byte) -1)) {
            requests.posted(slot);
            finish(requests, slot, DatDtoStatus.FLUSHED, 0);
        }
        waiting = 0;
    }

    /** {@return the busy slot posted first, in state {@code wanted} (or any busy one for -1), or -1} */
    private static int oldest(Queue q, byte wanted) {
        int best = -1;
        for (int i = 0; i < q.capacity; i++) {
            byte s = q.state[i];
            if (s != FREE && (wanted < 0 || s == wanted) && (best < 0 || q.order[i] < q.order[best])) {
                best = i;
            }
        }
        return best;
    }

    /** {@return whether a posted operation, or a request held for credit, uses {@code lmr}} */
    boolean inFlightOn(OfiLmr lmr) {
        return uses(requests, lmr, true) || uses(recvs, lmr, false);
    }

    private static boolean uses(Queue q, OfiLmr lmr, boolean held) {
        for (int slot = 0; slot < q.capacity; slot++) {
            byte st = q.state[slot];
            if (st == POSTED || st == TRANSMITTED || st == DONE || (held && st == QUEUED)) {
                for (int s = 0; s < q.segments[slot]; s++) {
                    if (q.lmr[slot * q.maxIov + s] == lmr) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
