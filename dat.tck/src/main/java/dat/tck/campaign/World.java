// SPDX-License-Identifier: Apache-2.0
package dat.tck.campaign;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpRecvInfo;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatRmr;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.DatSrqParam;
import dat.api.Iov;
import dat.tck.rules.TckFixture;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * The reference model of DAT semantics and the real provider side by side: one IA, a few registered regions, three
 * EP pairs (the passive EPs of two of them sharing an SRQ when the provider has SRQs), and the model's belief about
 * every posted buffer, queued message, owed completion and byte of registered memory. {@link #apply} runs one
 * {@link Op} against the provider and checks what it returned and everything it reported since against the model.
 *
 * <h2>What the model holds the provider to</h2>
 * <ul>
 * <li>Every post's status: SUCCESS for a well-formed post in CONNECTED, DISCONNECTED (flushed at once) or, for a
 * receive, UNCONNECTED; INVALID_STATE for a request on an unconnected EP; the page's code for each malformed one.
 * <li>Completions per work queue in posting order (RC), each exactly once, with the cookie, status and length the
 * model predicts; SRQ receives per connection in the order of the matching sends, each buffer at most once.
 * <li>A send completes only once a receive took it; a longer message than its receive breaks the connection (both
 * non-SUCCESS); after a break or an abrupt disconnect what was due may complete or be FLUSHED, what was not is
 * FLUSHED, each side gets one DISCONNECTED or BROKEN event.
 * <li>RMR windows: bound over one connection (an RMR_BIND completion in request order), usable by its peer inside
 * the bound range with the bound privileges, refused one byte outside or for a missing privilege, never rebound
 * under an RDMA through it; an LMR a window may hold is not freed.
 * <li>Bytes: a receive holds the message, an RDMA write's target the source, an RDMA read's IOV the remote bytes;
 * and no byte of registered memory changes unless the model lent it to a post that may write it. Freed regions stay
 * watched: a free that returned means nothing moves into that memory afterwards.
 * <li>Counts: {@code dat_ep_recv_query} and {@code dat_srq_query} within the bounds the model can know, resize and
 * watermark rules of the SRQ pages, one low-watermark event per arming.
 * </ul>
 * A feature the attributes deny is never asked for: no SRQ, no SUPPRESS, no RDMA read, no watermark, no RMR.
 */
final class World implements AutoCloseable {

    static final int PAIRS = 3;
    static final int REGIONS = 4;
    private static final int REGION_SIZE = 64 * 1024;
    /** Every SRQ buffer holds at least this much, every message to an SRQ EP at most this much. */
    private static final int SRQ_BUFFER_MIN = 512;
    static final int MAX_MESSAGE = 2048;
    private static final int DEPTH = 32;

    private final TckFixture f;
    private final SplittableRandom bytes;
    private final DatEpAttr epAttr;
    private final int recvIov;
    private final int requestIov;
    private final int readIov;
    private final int writeIov;
    private final boolean reads;
    private final boolean suppress;
    private final List<Mem> regions = new ArrayList<>();
    private final Pair[] pairs = new Pair[PAIRS];
    private final SrqModel srq;
    private final Iov iov;
    private final DatEvent event = new DatEvent();
    private final List<DatEp> freedEps = new ArrayList<>();
    private final List<Window> windows = new ArrayList<>();
    /** Pairs a failing DTO broke during the current step (see {@link #settleBreaks}). */
    private final List<Pair> breaking = new ArrayList<>();
    private final List<Integer> freedContexts = new ArrayList<>();
    private long nextCookie = 1;
    private int lowWatermarkEvents;

    World(TckFixture f, long seed) {
        this.f = f;
        this.bytes = new SplittableRandom(seed ^ 0x5DEECE66DL);
        this.epAttr = f.epAttr().toBuilder().maxRecvDtos(Math.min(DEPTH, f.limits.maxDtoPerEp()))
                .maxRequestDtos(Math.min(DEPTH, f.limits.maxDtoPerEp())).build();
        this.recvIov = epAttr.maxRecvIov();
        this.requestIov = epAttr.maxRequestIov();
        this.readIov = epAttr.maxRdmaReadIov();
        this.writeIov = epAttr.maxRdmaWriteIov();
        this.reads = epAttr.maxRdmaReadOut() > 0 && readIov > 0;
        this.suppress = (f.provider.completionFlagsSupported() & DatCompletionFlags.SUPPRESS) != 0;
        this.iov = f.iov(Math.max(requestIov, Math.max(recvIov, Math.max(readIov, writeIov))) + 1);
        for (int i = 0; i < REGIONS; i++) {
            // Region 0 refuses remote writes: the target of WRITE_UNPRIVILEGED.
            int privileges = i == 0 ? DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_READ
                    : DatMemPriv.ALL;
            TckFixture.Region r = f.region(REGION_SIZE, privileges);
            regions.add(new Mem(i, r.memory(), r.lmr(), privileges));
        }
        DatSrq shared = null;
        if (f.provider.srqSupported() && f.limits.maxSrqs() > 0) {
            int depth = Math.min(DEPTH, f.limits.maxRecvPerSrq() > 0 ? f.limits.maxRecvPerSrq() : DEPTH);
            shared = f.ia.createSrq(f.pz, new DatSrqAttr(depth, Math.min(recvIov, f.limits.maxIovSegmentsPerDto()),
                    Dat.DAT_SRQ_LW_DEFAULT));
        }
        this.srq = shared == null ? null : new SrqModel(shared, shared.query());
        for (int i = 0; i < PAIRS; i++) {
            boolean onSrq = srq != null && i > 0;
            Side a = new Side("pair " + i + " active", f.side(epAttr, null), false);
            Side b = new Side("pair " + i + " passive", f.side(epAttr, onSrq ? srq.srq : null), onSrq);
            pairs[i] = new Pair(i, a, b);
            f.connect(a.s, b.s);
            pairs[i].state = State.CONNECTED;
        }
        for (int i = 0; i < Math.min(2, f.limits.maxRmrs()); i++) {
            windows.add(new Window(f.pz.createRmr()));
        }
    }

    // ---------------------------------------------------------------- model

    enum State { CONNECTED, BROKEN, DISCONNECTED, UNCONNECTED }

    /** What a posted buffer may complete with. */
    enum Fate { SUCCESS, ERROR, FLUSHED, SUCCESS_OR_FLUSHED }

    /** Registered memory and the model's copy of it. */
    static final class Mem {
        final int id;
        final MemorySegment memory;
        final byte[] shadow;
        final int privileges;
        DatLmr lmr;
        /** The application stopped taking buffers from it, to free it once no post holds any. */
        boolean retiring;
        /** Ranges lent to posts: {offset, length, 1 if the provider may write them}. */
        final List<long[]> lent = new ArrayList<>();

        Mem(int id, MemorySegment memory, DatLmr lmr, int privileges) {
            this.id = id;
            this.memory = memory;
            this.lmr = lmr;
            this.privileges = privileges;
            this.shadow = memory.toArray(ValueLayout.JAVA_BYTE);
        }

        boolean overlaps(long offset, long length) {
            for (long[] l : lent) {
                if (offset < l[0] + l[1] && l[0] < offset + length) {
                    return true;
                }
            }
            return false;
        }

        void check(String when) {
            lent.sort(Comparator.comparingLong(l -> l[0]));
            long from = 0;
            for (long[] l : lent) {
                if (l[2] == 1) {
                    compare(from, l[0], when);
                    from = Math.max(from, l[0] + l[1]);
                }
            }
            compare(from, REGION_SIZE, when);
        }

        private void compare(long from, long to, String when) {
            if (to <= from) {
                return;
            }
            long at = memory.asSlice(from, to - from)
                    .mismatch(MemorySegment.ofArray(shadow).asSlice(from, to - from));
            if (at >= 0) {
                long i = from + at;
                throw new Violation("region " + id + (lmr == null ? " (freed)" : "") + " byte " + i + " changed to "
                        + memory.get(ValueLayout.JAVA_BYTE, i) + " (was " + shadow[(int) i] + ") " + when
                        + ": the provider wrote memory no post held");
            }
        }
    }

    /** A piece of registered memory a post names. */
    record Range(Mem mem, long offset, long length) {
        long address() {
            return mem.lmr.address() + offset;
        }
    }

    /** A request: send, RDMA write or RDMA read. */
    static final class Req {
        final char kind;
        final long cookie;
        final Range[] local;
        final long length;
        final byte[] data;
        final Range remote;
        final boolean suppressed;
        /** The RMR a bind binds, or the window an RDMA goes through. */
        Window window;
        /** Ready to run: an RDMA op always, a send once a receive took it. */
        boolean ready;
        Fate fate;

        Req(char kind, long cookie, Range[] local, long length, byte[] data, Range remote, boolean suppressed) {
            this.kind = kind;
            this.cookie = cookie;
            this.local = local;
            this.length = length;
            this.data = data;
            this.remote = remote;
            this.suppressed = suppressed;
        }

        @Override
        public String toString() {
            return switch (kind) {
                case 'S' -> "send";
                case 'B' -> "RMR bind";
                case 'W' -> "RDMA write";
                default -> "RDMA read";
            } + " cookie " + cookie + " of " + length + " bytes" + (suppressed ? " (SUPPRESS)" : "");
        }
    }

    /** A receive buffer, on an EP or on the SRQ. */
    static final class Recv {
        final long cookie;
        final Range[] segments;
        final long total;
        Msg msg;
        Fate fate;

        Recv(long cookie, Range[] segments, long total) {
            this.cookie = cookie;
            this.segments = segments;
            this.total = total;
        }
    }

    /** A message on its way: the send that carries it. */
    record Msg(Req send) {
    }

    static final class Side {
        final String name;
        final boolean onSrq;
        TckFixture.Side s;
        Pair pair;
        boolean connectedOnce = true;
        final ArrayDeque<Req> reqs = new ArrayDeque<>();
        final ArrayDeque<Recv> recvs = new ArrayDeque<>();
        /** Messages sent to this side that no receive took yet. */
        final ArrayDeque<Msg> incoming = new ArrayDeque<>();
        /** Messages an SRQ buffer took for this side, in send order, their receive completion not yet seen. */
        final ArrayDeque<Msg> srqDue = new ArrayDeque<>();
        /** How many of srqDue may never complete (the connection broke under them). */
        int srqOptional;
        /**
         * Messages that may have taken an SRQ buffer before the connection broke, while buffers were scarcer than
         * waiting messages: each may complete (SUCCESS or FLUSHED) or not; none is counted as holding a buffer.
         */
        final ArrayDeque<Msg> srqMaybe = new ArrayDeque<>();
        int connEventsOwed;

        Side(String name, TckFixture.Side s, boolean onSrq) {
            this.name = name;
            this.s = s;
            this.onSrq = onSrq;
        }

        Side peer() {
            return pair.a == this ? pair.b : pair.a;
        }

        /** The EP's state as the model knows it: an EP created after its pair went down was never connected. */
        State state() {
            return connectedOnce ? pair.state : State.UNCONNECTED;
        }

        /** Every request before the first that cannot run yet: these complete in order without help. */
        boolean allReady() {
            for (Req r : reqs) {
                if (!r.ready) {
                    return false;
                }
            }
            return true;
        }
    }

    static final class Pair {
        final int index;
        final Side a;
        final Side b;
        State state;

        Pair(int index, Side a, Side b) {
            this.index = index;
            this.a = a;
            this.b = b;
            a.pair = this;
            b.pair = this;
        }
    }

    final class SrqModel {
        final DatSrq srq;
        /** Its {@code max_recv_iov}, as created. */
        final int maxIov;
        int capacity;
        /** Posted and not reaped, by cookie. */
        final Map<Long, Recv> pool = new LinkedHashMap<>();
        int lowWatermark;
        /** Low-watermark events that may still come: one per arming (an arming below the mark fires at once). */
        int armings;
        /** Armed while surely at or above the watermark: falling below must then raise the event. */
        boolean mustFire;

        SrqModel(DatSrq srq, DatSrqParam created) {
            this.srq = srq;
            this.capacity = created.maxRecvDtos();
            this.maxIov = created.maxRecvIov();
        }

        /** Messages that hold a buffer once they land, the connection standing. */
        int surelyHeld() {
            int n = 0;
            for (Pair p : pairs) {
                n += p.b.srqDue.size() - p.b.srqOptional;
            }
            return n;
        }

        /** Buffers messages were assigned (the model's count; see srqDue). */
        int assigned() {
            int n = 0;
            for (Pair p : pairs) {
                n += p.b.srqDue.size();
            }
            return n;
        }

        /** Buffers on the SRQ no message was assigned: some may be held by messages a break left undecided. */
        int unassigned() {
            return pool.size() - assigned();
        }

        /** Buffers on the SRQ that surely no message holds. */
        int surelyFree() {
            int n = unassigned();
            for (Pair p : pairs) {
                n -= p.b.srqMaybe.size();
            }
            return n;
        }

        /** Messages waiting for an SRQ buffer, over all connections. */
        int waiting() {
            int n = 0;
            for (Pair p : pairs) {
                n += p.b.onSrq && p.state == State.CONNECTED ? p.b.incoming.size() : 0;
            }
            return n;
        }

        /** Messages that may hold a buffer (bounds the counts the SRQ reports). */
        int mayHold() {
            int n = 0;
            for (Pair p : pairs) {
                n += p.b.srqDue.size() + p.b.srqMaybe.size();
            }
            return n + Math.min(waiting(), unassigned());
        }
    }

    /** An RMR: what it exposes once its bind completed, over which connection. */
    static final class Window {
        final DatRmr rmr;
        /** The bind under way, if any. */
        Req pending;
        /** RDMA requests through it not yet completed: it is not rebound under them. */
        int inFlight;
        Side owner;
        Mem mem;
        long offset;
        long length;
        int privileges;
        int context;
        boolean live;
        /** Regions the provider may count it bound to: dat_lmr_free of those must wait (DAT_INVALID_STATE). */
        final List<Mem> mayHold = new ArrayList<>();

        Window(DatRmr rmr) {
            this.rmr = rmr;
        }
    }

    // ---------------------------------------------------------------- the step

    /**
     * Runs one step.
     *
     * @return false when the step did not apply to the world as it is (its target gone, its queue full)
     */
    boolean apply(Op op) {
        boolean applied = switch (op.kind()) {
            case POST_RECV -> postRecv(op);
            case SRQ_POST -> srqPost(op);
            case SEND -> send(op, false);
            case SEND_TOO_LONG -> send(op, true);
            case WRITE -> rdma(op, 'W', false);
            case WRITE_UNPRIVILEGED -> rdma(op, 'W', true);
            case READ -> rdma(op, 'R', false);
            case BIND -> bind(op);
            case WINDOW_RDMA -> windowRdma(op);
            case BAD_POST -> badPost(op);
            case DEQUEUE -> dequeue(op);
            case DRAIN -> {
                drain();
                yield true;
            }
            case DISCONNECT -> disconnect(op);
            case RESET -> reset(op);
            case CONNECT -> connect(op);
            case FREE_EP -> freeEp(op);
            case RECV_QUERY -> recvQuery(op);
            case SRQ_QUERY -> srqQuery();
            case SRQ_RESIZE -> srqResize(op);
            case SRQ_SET_LW -> srqSetLw(op);
            case LMR_FREE -> lmrFree(op);
            case LMR_CREATE -> lmrCreate(op);
            case LMR_CREATE_DEAD -> lmrCreateDead();
            case BAD_CONTROL -> badControl(op);
        };
        settleBreaks();
        checkMemory("after " + op);
        return applied;
    }

    /** The end of an episode: every owed event arrives, nothing else does, memory is as the model says. */
    void finish() {
        drain();
        List<Side> all = new ArrayList<>();
        for (Pair p : pairs) {
            all.add(p.a);
            all.add(p.b);
        }
        quiesce(all.toArray(Side[]::new));
        checkMemory("at the end of the episode");
    }

    private Pair pair(int a) {
        return pairs[Math.floorMod(a, PAIRS)];
    }

    private Side side(int a, int b) {
        Pair p = pair(a);
        return (b & 1) == 0 ? p.a : p.b;
    }

    // ---------------------------------------------------------------- posts

    private boolean postRecv(Op op) {
        Side x = side(op.a(), op.b());
        if (x.onSrq || x.recvs.size() >= epAttr.maxRecvDtos()) {
            return false;
        }
        // Receives hold half a maximum message or more, sends at most half: only SEND_TOO_LONG overflows one.
        Range[] segs = ranges(1 + Math.floorMod(op.c(), recvIov),
                MAX_MESSAGE / 2 + Math.floorMod(op.d(), MAX_MESSAGE / 2 + 1));
        if (segs == null) {
            return false;
        }
        long cookie = nextCookie++;
        int rc = dataPath(() -> x.s.ep().postRecv(load(segs), iov, cookie, 0), "dat_ep_post_recv on " + x.name);
        expectStatus(DatReturn.DAT_SUCCESS, rc, "dat_ep_post_recv on " + x.name + " in " + x.state());
        Recv r = new Recv(cookie, segs, total(segs));
        lend(segs, true);
        if (x.state() == State.BROKEN || x.state() == State.DISCONNECTED) {
            r.fate = Fate.FLUSHED;
        }
        x.recvs.add(r);
        match(x);
        return true;
    }

    private boolean srqPost(Op op) {
        if (srq == null || srq.pool.size() >= srq.capacity) {
            return false;
        }
        int n = 1 + Math.floorMod(op.c(), Math.min(recvIov, srq.maxIov));
        Range[] segs = ranges(n, SRQ_BUFFER_MIN + Math.floorMod(op.d(), MAX_MESSAGE));
        if (segs == null) {
            return false;
        }
        long cookie = nextCookie++;
        int rc = dataPath(() -> srq.srq.postRecv(load(segs), iov, cookie), "dat_srq_post_recv");
        expectStatus(DatReturn.DAT_SUCCESS, rc, "dat_srq_post_recv");
        lend(segs, true);
        srq.pool.put(cookie, new Recv(cookie, segs, total(segs)));
        return true;
    }

    private boolean send(Op op, boolean tooLong) {
        Side x = side(op.a(), op.b());
        Side y = x.peer();
        if (x.reqs.size() >= epAttr.maxRequestDtos()) {
            return false;
        }
        long length = Math.floorMod(op.d(), (y.onSrq ? SRQ_BUFFER_MIN : MAX_MESSAGE / 2) + 1);
        if (tooLong) {
            // Only where the model knows which receive the message lands in, and that it is too small.
            Recv next = y.onSrq || x.state() != State.CONNECTED || !y.incoming.isEmpty() ? null : firstFree(y);
            if (next == null || !x.allReady()) {
                return false;
            }
            length = next.total + 1 + Math.floorMod(op.d(), 64);
        }
        int n = length == 0 ? 0 : 1 + Math.floorMod(op.c(), (int) Math.min(requestIov, length));
        Range[] segs = ranges(n, length);
        if (segs == null) {
            return false;
        }
        byte[] payload = fill(segs);
        boolean quiet = suppress && (op.c() & 0x100) != 0;
        long cookie = nextCookie++;
        int rc = dataPath(() -> x.s.ep().postSend(load(segs), iov, cookie, quiet ? DatCompletionFlags.SUPPRESS : 0),
                "dat_ep_post_send on " + x.name);
        if (x.state() == State.UNCONNECTED) {
            expectStatus(DatReturn.DAT_INVALID_STATE, rc, "dat_ep_post_send on unconnected " + x.name);
            return true;
        }
        expectStatus(DatReturn.DAT_SUCCESS, rc, "dat_ep_post_send on " + x.name + " in " + x.state());
        Req r = new Req('S', cookie, segs, length, payload, null, quiet);
        lend(segs, false);
        x.reqs.add(r);
        if (x.state() == State.CONNECTED) {
            y.incoming.add(new Msg(r));
            match(y);
        } else {
            r.fate = Fate.FLUSHED;
        }
        return true;
    }

    private boolean rdma(Op op, char kind, boolean unprivileged) {
        Side x = side(op.a(), op.b());
        boolean write = kind == 'W';
        if ((!write && !reads) || x.reqs.size() >= epAttr.maxRequestDtos()) {
            return false;
        }
        if (unprivileged && (x.state() != State.CONNECTED || !x.allReady())) {
            return false;
        }
        long length = Math.floorMod(op.d(), MAX_MESSAGE + 1);
        int max = write ? writeIov : readIov;
        int n = length == 0 ? 0 : 1 + Math.floorMod(op.c(), (int) Math.min(max, length));
        Range[] segs = ranges(n, length);
        if (segs == null) {
            return false;
        }
        Range remote = remoteRange(length, write, unprivileged, op.b() >>> 1);
        if (remote == null || overlaps(remote, segs)) {
            return false;
        }
        return postRdma(x, kind, segs, remote, remote.mem.lmr.rmrContext(), unprivileged,
                suppress && (op.c() & 0x100) != 0);
    }

    /**
     * Posts an RDMA write or read of {@code segs} to {@code remote} through {@code context} (a region's or a window's)
     * and models it. {@code refused}: the target must refuse it (a privilege or a bound it lacks), at once with
     * DAT_PRIVILEGES_VIOLATION or by an error completion that breaks the connection.
     */
    private boolean postRdma(Side x, char kind, Range[] segs, Range remote, int context, boolean refused,
                             boolean quiet) {
        boolean write = kind == 'W';
        long length = remote.length;
        byte[] data = write ? fill(segs) : snapshot(remote);
        long cookie = nextCookie++;
        int flags = quiet ? DatCompletionFlags.SUPPRESS : 0;
        String what = (write ? "dat_ep_post_rdma_write" : "dat_ep_post_rdma_read") + " on " + x.name;
        int rc = dataPath(() -> write
                ? x.s.ep().postRdmaWrite(load(segs), iov, cookie, context, remote.address(), length, flags)
                : x.s.ep().postRdmaRead(load(segs), iov, cookie, context, remote.address(), length, flags), what);
        if (x.state() == State.UNCONNECTED) {
            expectStatus(DatReturn.DAT_INVALID_STATE, rc, what + " on an unconnected EP");
            return true;
        }
        if (refused && rc == DatReturn.DAT_PRIVILEGES_VIOLATION) {
            return true;
        }
        expectStatus(DatReturn.DAT_SUCCESS, rc, what + " in " + x.state());
        Req r = new Req(kind, cookie, segs, length, data, remote, quiet);
        r.ready = true;
        lend(segs, !write);
        // A refused write may not move a byte: its target stays watched.
        lend(new Range[] {remote}, write && !refused);
        x.reqs.add(r);
        if (x.state() != State.CONNECTED) {
            r.fate = Fate.FLUSHED;
        } else if (refused) {
            r.fate = Fate.ERROR;
            breakPair(x.pair);
            breaking.add(x.pair);
        } else {
            r.fate = Fate.SUCCESS;
        }
        return true;
    }

    /** dat_rmr_bind of a window onto part of a live region, as a request of {@code x}'s connection. */
    private boolean bind(Op op) {
        if (windows.isEmpty()) {
            return false;
        }
        Side x = side(op.a(), op.b());
        Window w = windows.get(Math.floorMod(op.c(), windows.size()));
        Mem m = regions.get(1 + Math.floorMod(op.c() >>> 4, REGIONS - 1));
        if (w.pending != null || w.inFlight > 0 || x.state() != State.CONNECTED || !x.allReady()
                || x.reqs.size() >= epAttr.maxRequestDtos() || m.lmr == null || m.retiring) {
            return false;
        }
        long length = 1L + Math.floorMod(op.d(), 8192);
        long offset = bytes.nextLong(REGION_SIZE - length + 1);
        int privileges = (op.c() & 0x100) != 0 ? DatMemPriv.REMOTE_READ
                : DatMemPriv.REMOTE_READ | DatMemPriv.REMOTE_WRITE;
        long cookie = nextCookie++;
        String what = "dat_rmr_bind of [" + offset + ", +" + length + ") of region " + m.id + " over " + x.name;
        int rc = dataPath(() -> w.rmr.bind(m.lmr, offset, length, privileges, x.s.ep(), cookie, 0), what);
        expectStatus(DatReturn.DAT_SUCCESS, rc, what);
        // The old binding is gone from the post on; the new one counts once its completion is seen.
        w.live = false;
        w.owner = x;
        w.mem = m;
        if (!w.mayHold.contains(m)) {
            w.mayHold.add(m);
        }
        w.offset = offset;
        w.length = length;
        w.privileges = privileges;
        Req r = new Req('B', cookie, new Range[0], 0, null, null, false);
        r.window = w;
        r.ready = true;
        r.fate = Fate.SUCCESS;
        w.pending = r;
        x.reqs.add(r);
        return true;
    }

    /**
     * The peer of a window's connection writes or reads through it: inside the window it works; one byte outside, or
     * a write through a read-only window, is refused and breaks the connection, and nothing outside moves.
     */
    private boolean windowRdma(Op op) {
        if (windows.isEmpty()) {
            return false;
        }
        Window w = windows.get(Math.floorMod(op.a(), windows.size()));
        if (!w.live) {
            return false;
        }
        Side y = w.owner.peer();
        boolean write = (op.c() & 1) == 0 || !reads;
        if (y.state() != State.CONNECTED || y.reqs.size() >= epAttr.maxRequestDtos()) {
            return false;
        }
        boolean outside = (op.c() & 0x10) != 0;
        boolean readOnly = write && (w.privileges & DatMemPriv.REMOTE_WRITE) == 0;
        boolean refused = outside || readOnly;
        if (refused && !y.allReady()) {
            return false;
        }
        long length = outside ? 2 + Math.floorMod(op.d(), 63) : 1 + Math.floorMod(op.d(), (int) Math.min(w.length,
                MAX_MESSAGE));
        long offset;
        if (outside) {
            // Straddling the window's end (its last byte and beyond), or else its start.
            offset = w.offset + w.length - 1 + length <= REGION_SIZE ? w.offset + w.length - 1 : w.offset - 1;
            if (offset < 0 || offset + length > REGION_SIZE) {
                return false;
            }
        } else {
            offset = w.offset + bytes.nextLong(w.length - length + 1);
        }
        Range remote = new Range(w.mem, offset, length);
        if (w.mem.overlaps(offset, length)) {
            return false;
        }
        int max = write ? writeIov : readIov;
        int n = 1 + Math.floorMod(op.c() >>> 8, (int) Math.min(max, length));
        Range[] segs = ranges(n, length);
        if (segs == null || overlaps(remote, segs)) {
            return false;
        }
        Window via = w;
        boolean posted = postRdma(y, write ? 'W' : 'R', segs, remote, w.context, refused, false);
        Req last = y.reqs.peekLast();
        if (last != null && last.remote == remote) {
            last.window = via;
            via.inFlight++;
        }
        return posted;
    }

    /**
     * Malformed posts: each must return its status, post nothing, move nothing. Variants: 0 one segment more than
     * the queue takes, 1 a segment past its region (the last of several), 2 a freed LMR's context, 3 completion
     * flags outside DAT's, 4 a negative segment count, 5 any post on a freed EP, 6 an SRQ post with too many
     * segments, 7 a receive on an EP that takes its receives from the SRQ.
     */
    private boolean badPost(Op op) {
        Side x = side(op.a(), op.b());
        int variant = Math.floorMod(op.c(), 8);
        boolean recv = (op.d() & 1) != 0 && !x.onSrq;
        String call = recv ? "dat_ep_post_recv" : "dat_ep_post_send";
        int max = recv ? recvIov : requestIov;
        Mem m = liveRegion(op.d() >>> 1);
        if (m == null || (x.state() == State.UNCONNECTED && !recv)) {
            return false;
        }
        int n;
        int flags = 0;
        int expected;
        String why;
        switch (variant) {
            case 0 -> {
                n = max + 1;
                for (int i = 0; i < n; i++) {
                    iov.set(i, m.lmr, 0, 1);
                }
                expected = DatReturn.DAT_INVALID_PARAMETER;
                why = n + " segments where the queue takes " + max;
            }
            case 1 -> {
                n = Math.min(max, 3);
                for (int i = 0; i < n - 1; i++) {
                    iov.set(i, m.lmr, 0, 1);
                }
                iov.set(n - 1, m.lmr, REGION_SIZE - 8, 16);
                expected = DatReturn.DAT_INVALID_PARAMETER;
                why = "its last segment running 8 bytes past its LMR";
            }
            case 2 -> {
                Integer dead = freedContext();
                if (dead == null) {
                    return false;
                }
                n = 1;
                iov.set(0, dead, m.lmr.address(), 8);
                expected = DatReturn.DAT_PRIVILEGES_VIOLATION;
                why = "the lmr_context of a freed LMR";
            }
            case 3 -> {
                n = 1;
                iov.set(0, m.lmr, 0, 8);
                flags = 1 << 20;
                expected = DatReturn.DAT_INVALID_PARAMETER;
                why = "completion flags 0x100000";
            }
            case 4 -> {
                n = -1;
                expected = DatReturn.DAT_INVALID_PARAMETER;
                why = "num_segments -1";
            }
            case 5 -> {
                if (freedEps.isEmpty()) {
                    return false;
                }
                DatEp dead = freedEps.get(Math.floorMod(op.d(), freedEps.size()));
                iov.set(0, m.lmr, 0, 8);
                int rc = dataPath(() -> recv ? dead.postRecv(1, iov, 1, 0) : dead.postSend(1, iov, 1, 0),
                        call + " on a freed EP");
                expectStatus(DatReturn.DAT_INVALID_HANDLE, rc, call + " on a freed EP");
                return true;
            }
            case 6 -> {
                if (srq == null) {
                    return false;
                }
                int srqMax = srq.maxIov;
                for (int i = 0; i <= srqMax; i++) {
                    iov.set(i, m.lmr, 0, 1);
                }
                int rc = dataPath(() -> srq.srq.postRecv(srqMax + 1, iov, 1), "dat_srq_post_recv");
                expectStatus(DatReturn.DAT_INVALID_PARAMETER, rc,
                        "dat_srq_post_recv of " + (srqMax + 1) + " segments where the SRQ takes " + srqMax);
                return true;
            }
            default -> {
                Side y = x.onSrq ? x : x.peer();
                if (!y.onSrq) {
                    return false;
                }
                iov.set(0, m.lmr, 0, 8);
                int rc = dataPath(() -> y.s.ep().postRecv(1, iov, 1, 0), "dat_ep_post_recv on an SRQ EP");
                if (rc == DatReturn.DAT_SUCCESS) {
                    throw new Violation("dat_ep_post_recv on " + y.name + ", which takes its receives from an SRQ,"
                            + " returned DAT_SUCCESS: the buffer can never be used");
                }
                return true;
            }
        }
        int count = n;
        int fl = flags;
        String what = call + " on " + x.name + " with " + why;
        int rc = dataPath(() -> recv ? x.s.ep().postRecv(count, iov, 1, fl) : x.s.ep().postSend(count, iov, 1, fl),
                what);
        expectStatus(expected, rc, what);
        return true;
    }

    private Integer freedContext() {
        for (Integer c : freedContexts) {
            boolean reused = false;
            for (Mem m : regions) {
                reused |= m.lmr != null && m.lmr.lmrContext() == c;
            }
            if (!reused) {
                return c;
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- matching and breaking

    private Recv firstFree(Side y) {
        for (Recv r : y.recvs) {
            if (r.msg == null && r.fate == null) {
                return r;
            }
        }
        return null;
    }

    /** Lets waiting messages take receives, as the transport will. */
    private void match(Side y) {
        if (y.pair.state != State.CONNECTED) {
            return;
        }
        while (!y.incoming.isEmpty()) {
            if (y.onSrq) {
                // Which message takes an SRQ buffer is the transport's choice, even with buffers to spare: one that
                // waits now may be overtaken by one sent later on another connection (on RC its sender backs off
                // after a receiver-not-ready NAK). Nothing is assigned here; a completion assigns (claimFloating),
                // and a drain polls until no message waits or no buffer is left (awaitScarceSrq).
                return;
            }
            Msg m = y.incoming.peek();
            Recv r = firstFree(y);
            if (r == null) {
                return;
            }
            y.incoming.poll();
            r.msg = m;
            m.send.ready = true;
            if (m.send.length > r.total) {
                r.fate = Fate.ERROR;
                m.send.fate = Fate.ERROR;
                breakPair(y.pair);
                breaking.add(y.pair);
                return;
            }
            r.fate = Fate.SUCCESS;
            m.send.fate = Fate.SUCCESS;
        }
    }

    /** The first message waiting for {@code y} takes an unassigned SRQ buffer, if there is one. */
    private boolean claimFloating(Side y) {
        if (!y.onSrq || y.incoming.isEmpty() || srq.unassigned() <= 0 || y.pair.state != State.CONNECTED) {
            return false;
        }
        Msg m = y.incoming.poll();
        y.srqDue.add(m);
        m.send.ready = true;
        m.send.fate = Fate.SUCCESS;
        return true;
    }

    /**
     * The connection goes down (abrupt disconnect, an error, a freed EP): what could run may still complete or be
     * flushed, what could not is flushed, each side is owed one connection event.
     */
    private void breakPair(Pair p) {
        if (p.state != State.CONNECTED) {
            return;
        }
        p.state = State.BROKEN;
        for (Window w : windows) {
            // A window is usable only over the connection it was bound on.
            w.live &= w.owner != p.a && w.owner != p.b;
        }
        for (Side x : new Side[] {p.a, p.b}) {
            // Messages that may have found a free SRQ buffer just before: their sends may succeed.
            int free = x.onSrq ? Math.min(x.incoming.size(), srq.unassigned()) : 0;
            for (int i = 0; i < free; i++) {
                Msg m = x.incoming.poll();
                m.send.ready = true;
                x.srqMaybe.add(m);
            }
        }
        for (Side x : new Side[] {p.a, p.b}) {
            x.connEventsOwed = 1;
            boolean due = true;
            for (Req r : x.reqs) {
                due &= r.ready;
                if (r.fate != Fate.ERROR && r.fate != Fate.FLUSHED) {
                    r.fate = due ? Fate.SUCCESS_OR_FLUSHED : Fate.FLUSHED;
                }
            }
            for (Recv r : x.recvs) {
                if (r.fate == null) {
                    r.fate = Fate.FLUSHED;
                } else if (r.fate == Fate.SUCCESS) {
                    r.fate = Fate.SUCCESS_OR_FLUSHED;
                }
            }
            x.incoming.clear();
            x.srqOptional = x.srqDue.size();
        }
    }

    // ---------------------------------------------------------------- events

    private boolean dequeue(Op op) {
        List<DatEvd> evds = new ArrayList<>();
        List<Side> owners = new ArrayList<>();
        for (Pair p : pairs) {
            for (Side x : new Side[] {p.a, p.b}) {
                for (DatEvd e : new DatEvd[] {x.s.requestEvd(), x.s.recvEvd(), x.s.connectEvd()}) {
                    evds.add(e);
                    owners.add(x);
                }
            }
        }
        evds.add(f.ia.asyncEvd());
        owners.add(null);
        int i = Math.floorMod(op.a(), evds.size());
        poll(evds.get(i), owners.get(i));
        return true;
    }

    /** One dequeue; an event found is checked against the model. */
    private boolean poll(DatEvd evd, Side owner) {
        int rc;
        try {
            rc = evd.dequeue(event);
        } catch (RuntimeException e) {
            throw new Violation("dat_evd_dequeue threw " + e, e);
        }
        if (rc == DatReturn.DAT_QUEUE_EMPTY) {
            return false;
        }
        expectStatus(DatReturn.DAT_SUCCESS, rc, "dat_evd_dequeue");
        if (owner == null) {
            onAsync();
        } else if (evd == owner.s.requestEvd()) {
            onRequest(owner);
        } else if (evd == owner.s.recvEvd()) {
            onRecv(owner);
        } else {
            onConnection(owner);
        }
        return true;
    }

    private void onAsync() {
        if (event.type() == DatEventType.ASYNC_EVENT_SRQ_LOW_WATERMARK && srq != null && srq.armings > 0) {
            srq.armings--;
            srq.mustFire = false;
            lowWatermarkEvents++;
            return;
        }
        throw new Violation("unexpected event on the async EVD: " + event
                + (srq != null && srq.armings == 0 ? " (each arming of the SRQ low watermark was reported already)"
                : ""));
    }

    private void expectDto(Side x, String queue) {
        if (event.type() != DatEventType.DTO_COMPLETION) {
            throw new Violation("on the " + queue + " EVD of " + x.name + ": " + event + ", expected a DTO completion");
        }
        if (event.ep() != x.s.ep()) {
            throw new Violation("completion on the " + queue + " EVD of " + x.name + " names another EP: " + event);
        }
    }

    private void onRequest(Side x) {
        if (event.type() != DatEventType.RMR_BIND_COMPLETION) {
            expectDto(x, "request");
        }
        long cookie = event.userCookie();
        // Completions of one EP's requests come in posting order; suppressed successes before this one are done.
        while (!x.reqs.isEmpty() && x.reqs.peek().cookie != cookie) {
            Req r = x.reqs.peek();
            claimIfFloating(x, r);
            boolean silent = r.suppressed && (r.fate == Fate.SUCCESS || r.fate == Fate.SUCCESS_OR_FLUSHED)
                    && r.ready;
            if (!silent) {
                throw new Violation("request completion with cookie " + cookie + " on " + x.name + " while " + r
                        + " posted before it has not completed: lost, out of order, or never posted; status "
                        + event.dtoStatus());
            }
            x.reqs.poll();
            settle(r, DatDtoStatus.SUCCESS);
        }
        Req r = x.reqs.poll();
        if (r == null) {
            throw new Violation("request completion with cookie " + cookie + " on " + x.name
                    + " where no request is outstanding (a duplicate, or a malformed post that went through): "
                    + event);
        }
        DatDtoStatus status = event.dtoStatus();
        claimIfFloating(x, r);
        if (r.fate == null) {
            throw new Violation(r + " on " + x.name + " completed " + status
                    + " though it could not have run: no receive was posted for it");
        }
        if ((event.type() == DatEventType.RMR_BIND_COMPLETION) != (r.kind == 'B')) {
            throw new Violation(r + " on " + x.name + " completed as " + event.type());
        }
        if (r.kind == 'B' && event.rmr() != r.window.rmr) {
            throw new Violation(r + " on " + x.name + " completed naming another RMR: " + event);
        }
        allowed(r.fate, status, r + " on " + x.name);
        if (status == DatDtoStatus.SUCCESS && r.kind != 'B') {
            if (r.suppressed) {
                throw new Violation(r + " on " + x.name + " reported its successful completion despite SUPPRESS");
            }
            if (event.transferredLength() != r.length) {
                throw new Violation(r + " on " + x.name + " completed with transferred_length "
                        + event.transferredLength() + ", expected " + r.length);
            }
        }
        settle(r, status);
    }

    /** A send completes (or a later request does) while its message waits for an SRQ buffer: it took one. */
    private void claimIfFloating(Side x, Req r) {
        Side y = x.peer();
        if (r.fate == null && r.kind == 'S' && !y.incoming.isEmpty() && y.incoming.peek().send() == r) {
            claimFloating(y);
        }
    }

    /** A request is done: its bytes checked, its memory given back. */
    private void settle(Req r, DatDtoStatus status) {
        boolean ok = status == DatDtoStatus.SUCCESS;
        if (r.kind != 'B' && r.window != null) {
            r.window.inFlight--;
        }
        switch (r.kind) {
            case 'W' -> {
                unlend(r.local);
                unlend(new Range[] {r.remote});
                if (ok) {
                    expectBytes(new Range[] {r.remote}, r.data, r.length, "target of " + r);
                } else if (r.fate != Fate.ERROR) {
                    // Flushed: it may have landed in part. A refused write (ERROR) had its target watched.
                    resync(new Range[] {r.remote});
                }
            }
            case 'B' -> {
                Window w = r.window;
                if (w.pending == r) {
                    w.pending = null;
                    w.live = ok && w.owner.state() == State.CONNECTED;
                    w.context = w.rmr.rmrContext();
                    if (ok) {
                        w.mayHold.retainAll(List.of(w.mem));
                    }
                }
            }
            case 'R' -> {
                unlend(r.local);
                unlend(new Range[] {r.remote});
                if (ok) {
                    expectBytes(r.local, r.data, r.length, "local IOV of " + r);
                } else {
                    resync(r.local);
                }
            }
            default -> unlend(r.local);
        }
    }

    private void onRecv(Side x) {
        expectDto(x, "receive");
        long cookie = event.userCookie();
        DatDtoStatus status = event.dtoStatus();
        if (x.onSrq) {
            Recv buffer = srq.pool.get(cookie);
            if (buffer == null) {
                throw new Violation("receive completion on " + x.name + " with cookie " + cookie
                        + ", which is no buffer posted to the SRQ and not yet completed: " + event);
            }
            if (x.srqDue.isEmpty() && x.srqMaybe.isEmpty() && !claimFloating(x)) {
                throw new Violation("SRQ buffer " + cookie + " completed " + status + " on " + x.name
                        + " though no message was sent to it, or none could have taken a buffer");
            }
            boolean optional = x.srqDue.isEmpty() || x.srqOptional > 0;
            allowed(optional ? Fate.SUCCESS_OR_FLUSHED : Fate.SUCCESS, status, "SRQ buffer " + cookie + " on "
                    + x.name);
            Msg m;
            if (!x.srqDue.isEmpty()) {
                m = x.srqDue.poll();
                x.srqOptional = Math.max(0, x.srqOptional - 1);
            } else {
                m = x.srqMaybe.poll();
            }
            srq.pool.remove(cookie);
            finishRecv(x, buffer, m, status);
            return;
        }
        Recv r = x.recvs.peek();
        if (r == null || r.cookie != cookie) {
            throw new Violation("receive completion with cookie " + cookie + " on " + x.name + (r == null
                    ? " where no receive is outstanding" : " while receive " + r.cookie
                    + " posted before it has not completed") + ": " + event);
        }
        if (r.fate == null) {
            throw new Violation("receive " + cookie + " on " + x.name + " completed " + status
                    + " though no message was sent to it");
        }
        allowed(r.fate, status, "receive " + cookie + " on " + x.name);
        x.recvs.poll();
        finishRecv(x, r, r.msg, status);
    }

    private void finishRecv(Side x, Recv r, Msg m, DatDtoStatus status) {
        unlend(r.segments);
        if (status == DatDtoStatus.SUCCESS) {
            if (event.transferredLength() != m.send.length) {
                throw new Violation("receive " + r.cookie + " on " + x.name + " completed with transferred_length "
                        + event.transferredLength() + " for a message of " + m.send.length + " bytes");
            }
            expectBytes(r.segments, m.send.data, m.send.length, "receive " + r.cookie + " on " + x.name);
        } else {
            resync(r.segments);
        }
    }

    private void onConnection(Side x) {
        DatEventType type = event.type();
        if (type != DatEventType.CONNECTION_EVENT_DISCONNECTED && type != DatEventType.CONNECTION_EVENT_BROKEN) {
            throw new Violation("on the connection EVD of " + x.name + ": " + event);
        }
        if (x.connEventsOwed == 0) {
            throw new Violation(type + " on " + x.name + " where the connection is " + x.pair.state
                    + " and its end was already reported");
        }
        x.connEventsOwed--;
        Side y = x.peer();
        if (x.pair.state == State.BROKEN && y.connEventsOwed == 0 && x.connEventsOwed == 0) {
            x.pair.state = State.DISCONNECTED;
        }
    }

    private static void allowed(Fate fate, DatDtoStatus status, String what) {
        boolean ok = switch (fate) {
            case SUCCESS -> status == DatDtoStatus.SUCCESS;
            case FLUSHED -> status == DatDtoStatus.FLUSHED;
            case ERROR -> status != DatDtoStatus.SUCCESS;
            case SUCCESS_OR_FLUSHED -> status == DatDtoStatus.SUCCESS || status == DatDtoStatus.FLUSHED;
        };
        if (!ok) {
            throw new Violation(what + " completed " + status + "; the model allows " + switch (fate) {
                case SUCCESS -> "SUCCESS";
                case FLUSHED -> "FLUSHED only: it could not run before the connection went down";
                case ERROR -> "an error status: the message was longer than its receive, or the target refused it";
                case SUCCESS_OR_FLUSHED -> "SUCCESS or FLUSHED (the connection went down under it)";
            });
        }
    }

    // ---------------------------------------------------------------- draining

    private boolean owesRequest(Side x) {
        if (x.pair.state == State.CONNECTED) {
            for (Req r : x.reqs) {
                if (!r.ready) {
                    return false;
                }
                if (!r.suppressed || r.fate == Fate.ERROR) {
                    return true;
                }
            }
            return false;
        }
        for (Req r : x.reqs) {
            if ((r.fate != Fate.SUCCESS_OR_FLUSHED && r.fate != Fate.SUCCESS) || !r.suppressed) {
                return true;
            }
        }
        return false;
    }

    private boolean owesRecv(Side x) {
        if (x.onSrq) {
            return x.srqDue.size() > x.srqOptional;
        }
        Recv head = x.recvs.peek();
        return head != null && head.fate != null;
    }

    /**
     * A failing DTO breaks its connection where it executes, some time after its post: until the break has happened,
     * the peer's posts may still run (a send of the peer's taking a receive the model counts as flushed), which no
     * model can tell from the outside. So the step that posted it ends only when both sides reported the end; their
     * DTO EVDs are polled meanwhile, as a provider may learn of the failure only by translating its completion.
     */
    private void settleBreaks() {
        while (!breaking.isEmpty()) {
            Pair p = breaking.remove(breaking.size() - 1);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(f.eventTimeoutMillis());
            while (p.a.connEventsOwed > 0 || p.b.connEventsOwed > 0) {
                boolean any = false;
                for (Side x : new Side[] {p.a, p.b}) {
                    // Every EVD is polled, whatever an earlier one returned.
                    any |= poll(x.s.connectEvd(), x);
                    any |= poll(x.s.requestEvd(), x);
                    any |= poll(x.s.recvEvd(), x);
                }
                if (!any) {
                    if (System.nanoTime() > deadline) {
                        throw new Violation("waited " + f.eventTimeoutMillis() + " ms for the connection events of"
                                + " pair " + p.index + " after a failed DTO broke it" + describe(p.a) + describe(p.b));
                    }
                    Thread.yield();
                }
            }
        }
    }

    /** Waits, per EVD, for everything the model says must arrive. */
    void drain() {
        do {
            for (Pair p : pairs) {
                for (Side x : new Side[] {p.a, p.b}) {
                    await(x.s.requestEvd(), x, () -> owesRequest(x), "request completions of " + x.name);
                    await(x.s.recvEvd(), x, () -> owesRecv(x), "receive completions of " + x.name);
                    await(x.s.connectEvd(), x, () -> x.connEventsOwed > 0, "the connection event of " + x.name);
                }
            }
        } while (awaitScarceSrq());
        if (srq != null) {
            // Once every message the model owes has landed, the SRQ holds pool - held buffers.
            await(f.ia.asyncEvd(), null, () -> srq.mustFire && srq.pool.size() - srq.surelyHeld() < srq.lowWatermark,
                    "the SRQ low watermark event");
        }
        // A last look: anything present now must also be allowed.
        for (Pair p : pairs) {
            for (Side x : new Side[] {p.a, p.b}) {
                while (poll(x.s.requestEvd(), x) || poll(x.s.recvEvd(), x) || poll(x.s.connectEvd(), x)) {
                    Thread.onSpinWait();
                }
            }
        }
    }

    /**
     * Messages wait for SRQ buffers and unassigned buffers exist: some message must take one. Polls the SRQ EPs and
     * their senders until none waits or no buffer is left.
     *
     * @return whether anything was waited for
     */
    private boolean awaitScarceSrq() {
        if (srq == null || srq.waiting() == 0 || srq.surelyFree() <= 0) {
            return false;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(f.eventTimeoutMillis());
        while (srq.waiting() > 0 && srq.surelyFree() > 0) {
            boolean any = false;
            for (Pair p : pairs) {
                if (p.b.onSrq) {
                    any |= poll(p.b.s.recvEvd(), p.b);
                    any |= poll(p.a.s.requestEvd(), p.a);
                }
            }
            if (!any) {
                if (System.nanoTime() > deadline) {
                    throw new Violation(srq.waiting() + " message(s) wait for SRQ buffers and " + srq.surelyFree()
                            + " buffer(s) are on the SRQ, yet none arrived in " + f.eventTimeoutMillis() + " ms");
                }
                Thread.yield();
            }
        }
        return true;
    }

    private void await(DatEvd evd, Side owner, BooleanSupplier owed, String what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(f.eventTimeoutMillis());
        while (owed.getAsBoolean()) {
            if (!poll(evd, owner)) {
                if (System.nanoTime() > deadline) {
                    throw new Violation("waited " + f.eventTimeoutMillis() + " ms for " + what + ", which the model"
                            + " says must come" + describe(owner));
                }
                Thread.yield();
            }
        }
    }

    private String describe(Side x) {
        if (x == null) {
            return "";
        }
        return " (" + x.pair.state + "; outstanding requests " + x.reqs + ", receives " + x.recvs.size()
                + ", SRQ messages " + x.srqDue.size() + ")";
    }

    /**
     * Disconnected sides settle what may never report: suppressed successes and SRQ messages the break caught. If
     * anything is undecided, the kit's quiet time passes first, for a late completion to show itself.
     */
    private void quiesce(Side... sides) {
        List<Side> down = new ArrayList<>();
        boolean undecided = false;
        for (Side x : sides) {
            if (x.state() == State.BROKEN || x.state() == State.DISCONNECTED) {
                down.add(x);
                undecided |= x.srqOptional > 0 || !x.srqMaybe.isEmpty() || !x.reqs.isEmpty();
            }
        }
        if (undecided) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TckFixture.QUIET_MILLIS);
            while (System.nanoTime() < deadline) {
                boolean any = false;
                for (Side x : down) {
                    any |= poll(x.s.requestEvd(), x);
                    any |= poll(x.s.recvEvd(), x);
                }
                if (!any) {
                    Thread.yield();
                }
            }
        }
        for (Side x : down) {
            while (!x.reqs.isEmpty()) {
                Req r = x.reqs.poll();
                if (!r.suppressed || !r.ready) {
                    throw new Violation(r + " on " + x.name + " never completed; the connection is "
                            + x.pair.state);
                }
                settle(r, DatDtoStatus.SUCCESS);
            }
            if (!x.recvs.isEmpty()) {
                throw new Violation("receive " + x.recvs.peek().cookie + " on " + x.name + " never completed");
            }
            x.srqDue.clear();
            x.srqMaybe.clear();
            x.srqOptional = 0;
        }
    }

    // ---------------------------------------------------------------- connection control

    private boolean disconnect(Op op) {
        Side x = side(op.a(), op.b());
        Pair p = x.pair;
        if (p.state != State.CONNECTED) {
            return false;
        }
        boolean graceful = (op.c() & 1) != 0 && p.a.reqs.isEmpty() && p.b.reqs.isEmpty();
        try {
            x.s.ep().disconnect(graceful ? DatCloseFlags.GRACEFUL : DatCloseFlags.ABRUPT);
        } catch (RuntimeException e) {
            throw new Violation("dat_ep_disconnect of connected " + x.name + " threw " + e, e);
        }
        breakPair(p);
        if (graceful) {
            // A graceful disconnect may stay DISCONNECT_PENDING until the peer answers, where a request is
            // DAT_INVALID_STATE (the post pages allow CONNECTED and DISCONNECTED only): the step ends when both
            // sides reported the end, so the model's BROKEN means DISCONNECTED on both.
            for (Side y : new Side[] {x, x.peer()}) {
                await(y.s.connectEvd(), y, () -> y.connEventsOwed > 0, "the end of the graceful disconnect on "
                        + y.name);
            }
        }
        return true;
    }

    private boolean reset(Op op) {
        Pair p = pair(op.a());
        if (p.state == State.CONNECTED || p.state == State.UNCONNECTED) {
            return false;
        }
        drain();
        if (p.state != State.DISCONNECTED) {
            throw new Violation("pair " + p.index + " is still " + p.state + " after its events were drained");
        }
        quiesce(p.a, p.b);
        for (Side x : new Side[] {p.a, p.b}) {
            if (x.connectedOnce) {
                try {
                    x.s.ep().reset();
                } catch (RuntimeException e) {
                    throw new Violation("dat_ep_reset of disconnected " + x.name + " threw " + e, e);
                }
            }
        }
        p.state = State.UNCONNECTED;
        return true;
    }

    private boolean connect(Op op) {
        Pair p = pair(op.a());
        if (p.state != State.UNCONNECTED) {
            return false;
        }
        try {
            f.connect(p.a.s, p.b.s);
        } catch (AssertionError | RuntimeException e) {
            throw new Violation("connecting pair " + p.index + " again after reset failed: " + e, e);
        }
        p.state = State.CONNECTED;
        p.a.connectedOnce = true;
        p.b.connectedOnce = true;
        match(p.a);
        match(p.b);
        return true;
    }

    /** dat_ep_free with whatever is outstanding; the peer is disconnected; a fresh EP takes the freed one's place. */
    private boolean freeEp(Op op) {
        Side x = side(op.a(), op.b());
        if (!x.srqDue.isEmpty() || !x.srqMaybe.isEmpty() || (x.onSrq && !x.incoming.isEmpty())) {
            return false;
        }
        Pair p = x.pair;
        breakPair(p);
        try {
            x.s.ep().close();
        } catch (RuntimeException e) {
            throw new Violation("dat_ep_free of " + x.name + " threw " + e, e);
        }
        freedEps.add(x.s.ep());
        // The freed EP's buffers: whatever it did to them is done once dat_ep_free returned.
        for (Req r : x.reqs) {
            unlend(r.local);
            resync(r.local);
            if (r.remote != null) {
                unlend(new Range[] {r.remote});
                resync(new Range[] {r.remote});
            }
        }
        for (Recv r : x.recvs) {
            unlend(r.segments);
            resync(r.segments);
        }
        for (Window w : windows) {
            if (w.pending != null && x.reqs.contains(w.pending)) {
                w.pending = null;
            }
        }
        for (Req r : x.reqs) {
            if (r.kind != 'B' && r.window != null) {
                r.window.inFlight--;
            }
        }
        x.reqs.clear();
        x.recvs.clear();
        x.incoming.clear();
        x.connEventsOwed = 0;
        x.s.requestEvd().close();
        x.s.recvEvd().close();
        x.s.connectEvd().close();
        x.s = f.side(epAttr, x.onSrq ? srq.srq : null);
        x.connectedOnce = false;
        Side y = x.peer();
        if (p.state != State.UNCONNECTED && y.connEventsOwed == 0) {
            p.state = State.DISCONNECTED;
        }
        return true;
    }

    private boolean badControl(Op op) {
        Side x = side(op.a(), op.b());
        if (x.state() != State.CONNECTED) {
            return false;
        }
        boolean connect = (op.c() & 1) == 0;
        try {
            if (connect) {
                x.s.ep().connect(f.ia.address(), 1, f.eventTimeoutMicros(), null, DatQos.BEST_EFFORT, 0);
            } else {
                x.s.ep().reset();
            }
        } catch (DatException e) {
            if (e.type() != DatReturn.INVALID_STATE) {
                throw new Violation((connect ? "dat_ep_connect" : "dat_ep_reset") + " of connected " + x.name
                        + " threw " + e.getMessage() + ", expected DAT_INVALID_STATE", e);
            }
            return true;
        } catch (RuntimeException e) {
            throw new Violation((connect ? "dat_ep_connect" : "dat_ep_reset") + " of connected " + x.name
                    + " threw " + e, e);
        }
        throw new Violation((connect ? "dat_ep_connect" : "dat_ep_reset") + " of connected " + x.name
                + " succeeded; expected DAT_INVALID_STATE");
    }

    // ---------------------------------------------------------------- queries and the SRQ

    private boolean recvQuery(Op op) {
        Side x = side(op.a(), op.b());
        int supported = f.provider.epRecvInfoSupported();
        int both = Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED | Dat.DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN;
        DatEpRecvInfo info;
        try {
            info = x.s.ep().recvQuery(both);
        } catch (DatException e) {
            if ((supported & both) == 0 && e.type() == DatReturn.MODEL_NOT_SUPPORTED) {
                return true;
            }
            throw new Violation("dat_ep_recv_query of " + x.name + " threw " + e.getMessage()
                    + " (ep_recv_info_supported = " + supported + ")", e);
        } catch (RuntimeException e) {
            throw new Violation("dat_ep_recv_query of " + x.name + " threw " + e, e);
        }
        int high;
        int low;
        if (x.onSrq) {
            high = x.srqDue.size() + x.srqMaybe.size() + Math.min(x.incoming.size(), Math.max(0, srq.unassigned()));
            low = 0;
        } else {
            high = x.recvs.size();
            int done = 0;
            for (Recv r : x.recvs) {
                done += r.fate == null ? 0 : 1;
            }
            low = high - done;
        }
        count("nbufs_allocated of " + x.name, info.nbufsAllocated(),
                (supported & Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED) != 0, low, high);
        count("bufs_alloc_span of " + x.name, info.bufsAllocSpan(),
                (supported & Dat.DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN) != 0, 0, x.onSrq ? high : x.recvs.size());
        return true;
    }

    private static void count(String what, int value, boolean supported, int low, int high) {
        if (value == Dat.DAT_VALUE_UNKNOWN) {
            // "The Provider can return the reserved value DAT_VALUE_UNKNOWN if it cannot obtain the requested count
            // at a reasonable cost" (dat_ep_recv_query), whatever the attribute says.
            return;
        }
        if (!supported) {
            throw new Violation(what + " is " + value + " though the attributes deny it: expected"
                    + " DAT_VALUE_UNKNOWN");
        }
        if (value < low || value > high) {
            throw new Violation(what + " is " + value
                    + "; the model says between " + low + " and " + high + " (the attributes claim the count)");
        }
    }

    private boolean srqQuery() {
        if (srq == null) {
            return false;
        }
        DatSrqParam param = srqParam();
        int supported = f.provider.srqInfoSupported();
        int posted = srq.pool.size();
        count("available_dto_count", param.availableDtoCount(),
                (supported & Dat.DAT_SRQ_INFO_AVAILABLE_DTO_COUNT) != 0, Math.max(0, posted - srq.mayHold()), posted);
        count("outstanding_dto_count", param.outstandingDtoCount(),
                (supported & Dat.DAT_SRQ_INFO_OUTSTANDING_DTO_COUNT) != 0, posted, posted);
        if (param.maxRecvDtos() != srq.capacity) {
            throw new Violation("dat_srq_query: max_recv_dtos " + param.maxRecvDtos() + " but the SRQ was last"
                    + " sized to " + srq.capacity);
        }
        return true;
    }

    private DatSrqParam srqParam() {
        try {
            return srq.srq.query();
        } catch (RuntimeException e) {
            throw new Violation("dat_srq_query threw " + e, e);
        }
    }

    private boolean srqResize(Op op) {
        if (srq == null) {
            return false;
        }
        int limit = f.limits.maxRecvPerSrq() > 0 ? Math.min(2 * DEPTH, f.limits.maxRecvPerSrq()) : 2 * DEPTH;
        int size = Math.floorMod(op.a(), 13) == 0 ? 0 : 1 + Math.floorMod(op.b(), limit);
        int outstanding = srq.pool.size();
        DatReturn expected = size < 1 ? DatReturn.INVALID_PARAMETER
                : size < outstanding || size < srq.lowWatermark ? DatReturn.INVALID_STATE : null;
        String what = "dat_srq_resize to " + size + " with " + outstanding + " buffers outstanding and low watermark "
                + srq.lowWatermark;
        try {
            srq.srq.resize(size);
        } catch (DatException e) {
            if (e.type() != expected) {
                throw new Violation(what + " threw " + e.getMessage() + ", expected "
                        + (expected == null ? "success" : "DAT_" + expected), e);
            }
            return true;
        } catch (RuntimeException e) {
            throw new Violation(what + " threw " + e, e);
        }
        if (expected != null) {
            throw new Violation(what + " succeeded; the page says DAT_" + expected);
        }
        int capacity = srqParam().maxRecvDtos();
        if (capacity < size) {
            throw new Violation(what + ": max_recv_dtos is " + capacity + " afterwards, below the size asked for");
        }
        srq.capacity = capacity;
        return true;
    }

    private boolean srqSetLw(Op op) {
        if (srq == null) {
            return false;
        }
        int lw = Math.floorMod(op.a(), srq.capacity + 2);
        boolean supported = (f.provider.srqWatermarksSupported() & Dat.DAT_SRQ_WATERMARK_LOW) != 0;
        DatReturn expected = !supported ? DatReturn.MODEL_NOT_SUPPORTED
                : lw > srq.capacity ? DatReturn.INVALID_PARAMETER : null;
        String what = "dat_srq_set_lw to " + lw + " (max_recv_dtos " + srq.capacity + ")";
        try {
            srq.srq.setLowWatermark(lw);
        } catch (DatException e) {
            if (e.type() != expected) {
                throw new Violation(what + " threw " + e.getMessage() + ", expected "
                        + (expected == null ? "success" : "DAT_" + expected), e);
            }
            return true;
        } catch (RuntimeException e) {
            throw new Violation(what + " threw " + e, e);
        }
        if (expected != null) {
            throw new Violation(what + " succeeded; expected DAT_" + expected);
        }
        srq.lowWatermark = lw;
        boolean armed = lw != Dat.DAT_SRQ_LW_DEFAULT;
        srq.armings += armed ? 1 : 0;
        srq.mustFire = armed && srq.pool.size() - srq.mayHold() >= lw;
        return true;
    }

    // ---------------------------------------------------------------- memory

    private boolean lmrFree(Op op) {
        Mem m = regions.get(Math.floorMod(op.a(), REGIONS));
        boolean windowed = false;
        for (Window w : windows) {
            windowed |= w.mayHold.contains(m);
        }
        if (m.lmr == null || !m.lent.isEmpty() || windowed) {
            m.retiring = m.lmr != null;
            return false;
        }
        int context = m.lmr.lmrContext();
        try {
            m.lmr.close();
        } catch (RuntimeException e) {
            throw new Violation("dat_lmr_free of region " + m.id + " threw " + e, e);
        }
        m.lmr = null;
        freedContexts.add(context);
        return true;
    }

    private boolean lmrCreate(Op op) {
        Mem m = regions.get(Math.floorMod(op.a(), REGIONS));
        if (m.lmr != null) {
            return false;
        }
        try {
            m.lmr = f.ia.createLmr(f.pz, m.memory, m.privileges);
            m.retiring = false;
        } catch (RuntimeException e) {
            throw new Violation("dat_lmr_create over region " + m.id + " again threw " + e, e);
        }
        return true;
    }

    private boolean lmrCreateDead() {
        MemorySegment dead;
        try (Arena arena = Arena.ofShared()) {
            dead = arena.allocate(256, 64);
        }
        try {
            DatLmr lmr = f.ia.createLmr(f.pz, dead, DatMemPriv.ALL);
            lmr.close();
            throw new Violation("dat_lmr_create over memory whose arena is closed succeeded; expected"
                    + " DAT_INVALID_PARAMETER (a transfer into it would crash the JVM or fail later)");
        } catch (DatException e) {
            if (e.type() != DatReturn.INVALID_PARAMETER) {
                throw new Violation("dat_lmr_create over dead memory threw " + e.getMessage()
                        + ", expected DAT_INVALID_PARAMETER", e);
            }
        } catch (Violation e) {
            throw e;
        } catch (RuntimeException e) {
            throw new Violation("dat_lmr_create over dead memory threw " + e, e);
        }
        return true;
    }

    private Mem liveRegion(int pick) {
        for (int i = 0; i < REGIONS; i++) {
            Mem m = regions.get(Math.floorMod(pick + i, REGIONS));
            if (m.lmr != null) {
                return m;
            }
        }
        return null;
    }

    /** {@code n} free ranges of live regions adding up to {@code length} bytes, or null. */
    private Range[] ranges(int n, long length) {
        Range[] out = new Range[n];
        long left = length;
        for (int i = 0; i < n; i++) {
            // Every piece at least 1 byte: left >= n - i holds throughout.
            long piece = i == n - 1 ? left : 1 + bytes.nextLong(left - (n - 1 - i));
            Range r = freeRange(piece, -1);
            if (r == null) {
                return null;
            }
            out[i] = r;
            left -= piece;
        }
        // Two pieces of one post may not overlap either.
        for (int i = 1; i < n; i++) {
            if (overlaps(out[i], Arrays.copyOf(out, i))) {
                return null;
            }
        }
        return out;
    }

    private static boolean overlaps(Range r, Range[] others) {
        for (Range o : others) {
            if (o.mem == r.mem && o.offset < r.offset + Math.max(1, r.length)
                    && r.offset < o.offset + Math.max(1, o.length)) {
                return true;
            }
        }
        return false;
    }

    private Range freeRange(long length, int onlyRegion) {
        for (int attempt = 0; attempt < 8; attempt++) {
            Mem m = onlyRegion >= 0 ? regions.get(onlyRegion) : regions.get(bytes.nextInt(REGIONS));
            if (m.lmr == null || m.retiring) {
                continue;
            }
            long offset = bytes.nextLong(REGION_SIZE - Math.max(1, length) + 1);
            if (!m.overlaps(offset, Math.max(1, length))) {
                return new Range(m, offset, length);
            }
        }
        return null;
    }

    private Range remoteRange(long length, boolean write, boolean unprivileged, int pick) {
        if (unprivileged) {
            return freeRange(length, 0);
        }
        int region = 1 + Math.floorMod(pick, REGIONS - 1);
        return freeRange(length, write ? region : Math.floorMod(pick, REGIONS));
    }

    private int load(Range[] segs) {
        for (int i = 0; i < segs.length; i++) {
            iov.set(i, segs[i].mem.lmr, segs[i].offset, segs[i].length);
        }
        return segs.length;
    }

    private static long total(Range[] segs) {
        long t = 0;
        for (Range r : segs) {
            t += r.length;
        }
        return t;
    }

    /** The application writes fresh bytes into the ranges before posting them. */
    private byte[] fill(Range[] segs) {
        byte[] data = new byte[(int) total(segs)];
        bytes.nextBytes(data);
        int at = 0;
        for (Range r : segs) {
            MemorySegment.copy(data, at, r.mem.memory, ValueLayout.JAVA_BYTE, r.offset, (int) r.length);
            System.arraycopy(data, at, r.mem.shadow, (int) r.offset, (int) r.length);
            at += (int) r.length;
        }
        return data;
    }

    private static byte[] snapshot(Range r) {
        return Arrays.copyOfRange(r.mem.shadow, (int) r.offset, (int) (r.offset + r.length));
    }

    private static void lend(Range[] segs, boolean writable) {
        for (Range r : segs) {
            r.mem.lent.add(new long[] {r.offset, Math.max(1, r.length), writable ? 1 : 0});
        }
    }

    private static void unlend(Range[] segs) {
        for (Range r : segs) {
            for (Iterator<long[]> it = r.mem.lent.iterator(); it.hasNext(); ) {
                long[] l = it.next();
                if (l[0] == r.offset && l[1] == Math.max(1, r.length)) {
                    it.remove();
                    break;
                }
            }
        }
    }

    /** The content of these ranges is undefined now (an error or flush): take what is there. */
    private static void resync(Range[] segs) {
        for (Range r : segs) {
            MemorySegment.copy(r.mem.memory, ValueLayout.JAVA_BYTE, r.offset, r.mem.shadow, (int) r.offset,
                    (int) r.length);
        }
    }

    /** The first {@code length} bytes scattered over {@code segs} must be {@code data}; the rest is undefined. */
    private static void expectBytes(Range[] segs, byte[] data, long length, String what) {
        long at = 0;
        for (Range r : segs) {
            long n = Math.min(r.length, Math.max(0, length - at));
            for (long i = 0; i < n; i++) {
                byte actual = r.mem.memory.get(ValueLayout.JAVA_BYTE, r.offset + i);
                if (actual != data[(int) (at + i)]) {
                    throw new Violation(what + ": byte " + (at + i) + " is " + actual + ", expected "
                            + data[(int) (at + i)] + " (region " + r.mem.id + " offset " + (r.offset + i) + ")");
                }
            }
            at += n;
        }
        resync(segs);
    }

    private void checkMemory(String when) {
        for (Mem m : regions) {
            m.check(when);
        }
    }

    // ---------------------------------------------------------------- plumbing

    private int dataPath(IntSupplier call, String what) {
        try {
            return call.getAsInt();
        } catch (RuntimeException | Error e) {
            if (e instanceof Violation v) {
                throw v;
            }
            throw new Violation(what + " threw " + e + ": the data path returns a status, never throws", e);
        }
    }

    private static void expectStatus(int expected, int actual, String what) {
        if (actual != expected) {
            throw new Violation(what + " returned " + DatReturn.toString(actual) + ", expected "
                    + DatReturn.toString(expected));
        }
    }

    /** {@return the model's belief, for a failure report} */
    String describeModel() {
        StringBuilder out = new StringBuilder();
        for (Pair p : pairs) {
            out.append(String.format("%n    pair %d %s", p.index, p.state));
            for (Side x : new Side[] {p.a, p.b}) {
                out.append(String.format("%n      %s%s: requests %s; receives %s; messages waiting %d", x.name,
                        x.connectedOnce ? "" : " (new EP)", x.reqs, x.recvs.stream().map(r -> r.cookie + "/"
                        + r.total + (r.fate == null ? "" : " " + r.fate)).toList(), x.incoming.size()));
                if (x.onSrq) {
                    out.append(String.format("; SRQ messages %d (%d optional), maybe %d", x.srqDue.size(),
                            x.srqOptional, x.srqMaybe.size()));
                }
                if (x.connEventsOwed > 0) {
                    out.append("; connection event owed");
                }
            }
        }
        if (srq != null) {
            out.append(String.format("%n    SRQ: %d buffers posted and not reaped, %d assigned to messages,"
                    + " capacity %d, low watermark %d", srq.pool.size(), srq.assigned(), srq.capacity,
                    srq.lowWatermark));
        }
        return out.toString();
    }

    /** {@return how many low-watermark events the episode saw} */
    int lowWatermarkEvents() {
        return lowWatermarkEvents;
    }

    @Override
    public void close() {
        f.close();
    }
}
