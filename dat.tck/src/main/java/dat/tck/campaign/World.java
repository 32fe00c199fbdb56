// SPDX-License-Identifier: Apache-2.0
package dat.tck.campaign;

import static dat.tck.campaign.ShadowMemory.resync;
import static dat.tck.campaign.ShadowMemory.unlend;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpRecvInfo;
import dat.api.DatEvd;
import dat.api.DatException;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.DatSrqParam;
import dat.api.Iov;
import dat.tck.campaign.Model.Pair;
import dat.tck.campaign.Model.Range;
import dat.tck.campaign.Model.Recv;
import dat.tck.campaign.Model.Req;
import dat.tck.campaign.Model.ReqKind;
import dat.tck.campaign.Model.Side;
import dat.tck.campaign.Model.SrqModel;
import dat.tck.campaign.Model.State;
import dat.tck.campaign.Model.Window;
import dat.tck.campaign.ShadowMemory.Mem;
import dat.tck.campaign.Violation.Invariant;
import dat.tck.rules.TckFixture;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

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
    static final int REGIONS = ShadowMemory.REGIONS;
    /** Every SRQ buffer holds at least this much, every message to an SRQ EP at most this much. */
    static final int SRQ_BUFFER_MIN = 512;
    static final int MAX_MESSAGE = 2048;
    private static final int DEPTH = 32;

    final TckFixture f;
    final DatEpAttr epAttr;
    private final int recvIov;
    final boolean suppress;
    final ShadowMemory memory;
    final Pair[] pairs = new Pair[PAIRS];
    final SrqModel srq;
    final Iov iov;
    final List<DatEp> freedEps = new ArrayList<>();
    final List<Window> windows = new ArrayList<>();
    final List<Integer> freedContexts = new ArrayList<>();
    final Completions oracle;
    private final Posts posts;
    /** What the control step under way called; see {@link #lastCall}. */
    private String call;

    World(TckFixture f, long seed) {
        this.f = f;
        this.memory = new ShadowMemory(new SplittableRandom(seed ^ 0x5DEECE66DL));
        this.epAttr = f.epAttr().toBuilder().maxRecvDtos(Math.min(DEPTH, f.limits.maxDtoPerEp()))
                .maxRequestDtos(Math.min(DEPTH, f.limits.maxDtoPerEp())).build();
        this.recvIov = epAttr.maxRecvIov();
        this.suppress = (f.provider.completionFlagsSupported() & DatCompletionFlags.SUPPRESS) != 0;
        this.iov = f.iov(Math.max(epAttr.maxRequestIov(), Math.max(recvIov, Math.max(epAttr.maxRdmaReadIov(),
                epAttr.maxRdmaWriteIov()))) + 1);
        for (int i = 0; i < REGIONS; i++) {
            // Region 0 refuses remote writes: the target of WRITE_UNPRIVILEGED.
            int privileges = i == 0 ? DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_READ
                    : DatMemPriv.ALL;
            TckFixture.Region r = f.region(ShadowMemory.REGION_SIZE, privileges);
            memory.regions.add(new Mem(i, r.memory(), r.lmr(), privileges));
        }
        DatSrq shared = null;
        if (f.provider.srqSupported() && f.limits.maxSrqs() > 0) {
            int depth = Math.min(DEPTH, f.limits.maxRecvPerSrq() > 0 ? f.limits.maxRecvPerSrq() : DEPTH);
            shared = f.ia.createSrq(f.pz, new DatSrqAttr(depth, Math.min(recvIov, f.limits.maxIovSegmentsPerDto()),
                    Dat.DAT_SRQ_LW_DEFAULT));
        }
        this.srq = shared == null ? null : new SrqModel(shared, shared.query(), pairs);
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
        this.oracle = new Completions(f, pairs, srq, windows);
        this.posts = new Posts(this);
    }

    // ---------------------------------------------------------------- the step

    /**
     * Runs one step: one method per kind of step, each saying what it called ({@link #lastCall}).
     *
     * @return false when the step did not apply to the world as it is (its target gone, its queue full)
     */
    boolean apply(Op op) {
        call = null;
        posts.call = null;
        boolean applied = switch (op) {
            case Op.PostRecv s -> posts.postRecv(s);
            case Op.SrqPost s -> posts.srqPost(s);
            case Op.Send s -> posts.send(s);
            case Op.Rdma s -> posts.rdma(s);
            case Op.Bind s -> posts.bind(s);
            case Op.WindowRdma s -> posts.windowRdma(s);
            case Op.BadPost s -> posts.badPost(s);
            case Op.Dequeue s -> dequeue(s);
            case Op.SrqResize s -> srqResize(s);
            case Op.Plain s -> switch (s.kind()) {
                case DRAIN -> {
                    say("drain: every completion and event the model owes arrives");
                    oracle.drain();
                    yield true;
                }
                case SRQ_QUERY -> srqQuery();
                default -> lmrCreateDead();
            };
            case Op.OnEp s -> switch (s.kind()) {
                case DISCONNECT -> disconnect(s);
                case FREE_EP -> freeEp(s);
                case RECV_QUERY -> recvQuery(s);
                default -> badControl(s);
            };
            case Op.OnIndex s -> switch (s.kind()) {
                case RESET -> reset(s);
                case CONNECT -> connect(s);
                case LMR_FREE -> lmrFree(s);
                case LMR_CREATE -> lmrCreate(s);
                default -> srqSetLw(s);
            };
        };
        oracle.settleBreaks();
        memory.check("after " + op.kind());
        return applied;
    }

    /** {@return what the last step called, its arguments resolved, or null when it called nothing} */
    String lastCall() {
        return call != null ? call : posts.call;
    }

    private void say(String text) {
        call = text;
    }

    /** The end of an episode: every owed event arrives, nothing else does, memory is as the model says. */
    void finish() {
        oracle.drain();
        List<Side> all = new ArrayList<>();
        for (Pair p : pairs) {
            all.add(p.a);
            all.add(p.b);
        }
        oracle.quiesce(all.toArray(Side[]::new));
        memory.check("at the end of the episode");
    }

    private Pair pair(int a) {
        return pairs[Math.floorMod(a, PAIRS)];
    }

    private Side side(Op.OnEp op) {
        return Model.side(pairs, op.pair(), op.passive());
    }


    // ---------------------------------------------------------------- events

    private boolean dequeue(Op.Dequeue op) {
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
        int i = Math.floorMod(op.evd(), evds.size());
        String[] queues = {"request", "receive", "connection"};
        say(String.format(Locale.ROOT, "dat_evd_dequeue(%s)", owners.get(i) == null ? "the async EVD" : "the "
                + queues[i % 3] + " EVD of "
                + Model.ep(owners.get(i))));
        oracle.poll(evds.get(i), owners.get(i));
        return true;
    }


    // ---------------------------------------------------------------- connection control

    private boolean disconnect(Op.OnEp op) {
        Side x = side(op);
        Pair p = x.pair;
        if (p.state != State.CONNECTED) {
            return false;
        }
        boolean graceful = op.flag() && p.a.reqs.isEmpty() && p.b.reqs.isEmpty();
        say(String.format(Locale.ROOT, "dat_ep_disconnect(%s, %s)", Model.ep(x), graceful ? "GRACEFUL" : "ABRUPT"));
        try {
            x.s.ep().disconnect(graceful ? DatCloseFlags.GRACEFUL : DatCloseFlags.ABRUPT);
        } catch (RuntimeException e) {
            throw new Violation("dat_ep_disconnect of connected " + x.name + " threw " + e, e);
        }
        oracle.breakPair(p);
        if (graceful) {
            // A graceful disconnect may stay DISCONNECT_PENDING until the peer answers, where a request is
            // DAT_INVALID_STATE (the post pages allow CONNECTED and DISCONNECTED only): the step ends when both
            // sides reported the end, so the model's BROKEN means DISCONNECTED on both.
            for (Side y : new Side[] {x, x.peer()}) {
                oracle.await(y.s.connectEvd(), y, () -> y.connEventsOwed > 0, "the end of the graceful disconnect on "
                        + y.name);
            }
        }
        return true;
    }

    private boolean reset(Op.OnIndex op) {
        Pair p = pair(op.value());
        if (p.state == State.CONNECTED || p.state == State.UNCONNECTED) {
            return false;
        }
        say(String.format(Locale.ROOT, "dat_ep_reset(%s), dat_ep_reset(%s)", Model.ep(p.a), Model.ep(p.b)));
        oracle.drain();
        if (p.state != State.DISCONNECTED) {
            throw new Violation(Invariant.CONNECTION_EVENTS, "pair " + p.index + " is still " + p.state
                    + " after its events were drained");
        }
        oracle.quiesce(p.a, p.b);
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

    private boolean connect(Op.OnIndex op) {
        Pair p = pair(op.value());
        if (p.state != State.UNCONNECTED) {
            return false;
        }
        say(String.format(Locale.ROOT, "dat_ep_connect(%s to %s), dat_evd_wait for both ends", Model.ep(p.a),
                Model.ep(p.b)));
        try {
            f.connect(p.a.s, p.b.s);
        } catch (AssertionError | RuntimeException e) {
            throw new Violation("connecting pair " + p.index + " again after reset failed: " + e, e);
        }
        p.state = State.CONNECTED;
        p.a.connectedOnce = true;
        p.b.connectedOnce = true;
        oracle.match(p.a);
        oracle.match(p.b);
        return true;
    }

    /** dat_ep_free with whatever is outstanding; the peer is disconnected; a fresh EP takes the freed one's place. */
    private boolean freeEp(Op.OnEp op) {
        Side x = side(op);
        if (!x.srqDue.isEmpty() || !x.srqMaybe.isEmpty() || (x.onSrq && !x.incoming.isEmpty())) {
            return false;
        }
        Pair p = x.pair;
        say(String.format(Locale.ROOT,
                "dat_ep_free(%s) with %d requests and %d receives outstanding, and a new EP in its place", Model.ep(x),
                x.reqs.size(), x.recvs.size()));
        oracle.breakPair(p);
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
            if (r.kind != ReqKind.BIND && r.window != null) {
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

    private boolean badControl(Op.OnEp op) {
        Side x = side(op);
        if (x.state() != State.CONNECTED) {
            return false;
        }
        boolean connect = !op.flag();
        say(String.format(Locale.ROOT, "%s(%s, connected): DAT_INVALID_STATE", connect ? "dat_ep_connect"
                : "dat_ep_reset", Model.ep(x)));
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

    private boolean recvQuery(Op.OnEp op) {
        Side x = side(op);
        say(String.format(Locale.ROOT, "dat_ep_recv_query(%s)", Model.ep(x)));
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
            throw new Violation(Invariant.COUNTS, what + " is " + value + " though the attributes deny it: expected"
                    + " DAT_VALUE_UNKNOWN");
        }
        if (value < low || value > high) {
            throw new Violation(Invariant.COUNTS, what + " is " + value
                    + "; the model says between " + low + " and " + high + " (the attributes claim the count)");
        }
    }

    private boolean srqQuery() {
        if (srq == null) {
            return false;
        }
        say("dat_srq_query()");
        DatSrqParam param = srqParam();
        int supported = f.provider.srqInfoSupported();
        int posted = srq.pool.size();
        count("available_dto_count", param.availableDtoCount(),
                (supported & Dat.DAT_SRQ_INFO_AVAILABLE_DTO_COUNT) != 0, Math.max(0, posted - srq.mayHold()), posted);
        count("outstanding_dto_count", param.outstandingDtoCount(),
                (supported & Dat.DAT_SRQ_INFO_OUTSTANDING_DTO_COUNT) != 0, posted, posted);
        if (param.maxRecvDtos() != srq.capacity) {
            throw new Violation(Invariant.COUNTS, "dat_srq_query: max_recv_dtos " + param.maxRecvDtos()
                    + " but the SRQ was last"
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

    private boolean srqResize(Op.SrqResize op) {
        if (srq == null) {
            return false;
        }
        int limit = f.limits.maxRecvPerSrq() > 0 ? Math.min(2 * DEPTH, f.limits.maxRecvPerSrq()) : 2 * DEPTH;
        int size = op.zero() ? 0 : 1 + Math.floorMod(op.size(), limit);
        int outstanding = srq.pool.size();
        DatReturn expected = size < 1 ? DatReturn.INVALID_PARAMETER
                : size < outstanding || size < srq.lowWatermark ? DatReturn.INVALID_STATE : null;
        String what = "dat_srq_resize to " + size + " with " + outstanding + " buffers outstanding and low watermark "
                + srq.lowWatermark;
        say(String.format(Locale.ROOT, "dat_srq_resize(%d) with %d buffers posted", size, outstanding));
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

    private boolean srqSetLw(Op.OnIndex op) {
        if (srq == null) {
            return false;
        }
        int lw = Math.floorMod(op.value(), srq.capacity + 2);
        say(String.format(Locale.ROOT, "dat_srq_set_lw(%d) with max_recv_dtos %d", lw, srq.capacity));
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

    private boolean lmrFree(Op.OnIndex op) {
        Mem m = memory.regions.get(Math.floorMod(op.value(), REGIONS));
        boolean windowed = false;
        for (Window w : windows) {
            windowed |= w.mayHold.contains(m);
        }
        if (m.lmr == null || !m.lent.isEmpty() || windowed) {
            m.retiring = m.lmr != null;
            return false;
        }
        int context = m.lmr.lmrContext();
        say(String.format(Locale.ROOT, "dat_lmr_free(region %d)", m.id));
        try {
            m.lmr.close();
        } catch (RuntimeException e) {
            throw new Violation("dat_lmr_free of region " + m.id + " threw " + e, e);
        }
        m.lmr = null;
        freedContexts.add(context);
        return true;
    }

    private boolean lmrCreate(Op.OnIndex op) {
        Mem m = memory.regions.get(Math.floorMod(op.value(), REGIONS));
        if (m.lmr != null) {
            return false;
        }
        say(String.format(Locale.ROOT, "dat_lmr_create(region %d, again)", m.id));
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
        say("dat_lmr_create(256 B of a closed arena): DAT_INVALID_PARAMETER");
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
        return oracle.lowWatermarkEvents();
    }

    @Override
    public void close() {
        f.close();
    }
}
