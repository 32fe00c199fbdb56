// SPDX-License-Identifier: Apache-2.0
package dat.tck.campaign;

import static dat.tck.campaign.ShadowMemory.expectBytes;
import static dat.tck.campaign.ShadowMemory.resync;
import static dat.tck.campaign.ShadowMemory.unlend;

import dat.api.DatDtoStatus;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatReturn;
import dat.tck.campaign.Model.Fate;
import dat.tck.campaign.Model.Msg;
import dat.tck.campaign.Model.Pair;
import dat.tck.campaign.Model.Range;
import dat.tck.campaign.Model.Recv;
import dat.tck.campaign.Model.Req;
import dat.tck.campaign.Model.ReqKind;
import dat.tck.campaign.Model.Side;
import dat.tck.campaign.Model.SrqModel;
import dat.tck.campaign.Model.State;
import dat.tck.campaign.Model.Window;
import dat.tck.campaign.Violation.Invariant;
import dat.tck.rules.TckFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * The completion oracle: which completion and connection event may arrive when, and what each must carry. Every event
 * the kit dequeues is checked here against the model ({@link #poll}); a message is matched to the receive it lands in
 * ({@link #match}); a broken connection decides what may still complete and what must flush ({@link #breakPair}); a
 * drain waits for everything the model says must come ({@link #drain}).
 *
 * <p>It is the part whose error the README recounts: a refused RDMA write breaks the connection when the target
 * answers, not at its post, so the peer's sends in between may still land; {@link #settleBreaks} waits for both
 * sides to report the end before a step that posted a failing DTO ends.
 */
final class Completions {

    private final TckFixture f;
    private final Pair[] pairs;
    private final SrqModel srq;
    private final List<Window> windows;
    private final DatEvent event = new DatEvent();
    /** Pairs a failing DTO broke during the current step (see {@link #settleBreaks}). */
    private final List<Pair> breaking = new ArrayList<>();
    private int lowWatermarkEvents;

    Completions(TckFixture f, Pair[] pairs, SrqModel srq, List<Window> windows) {
        this.f = f;
        this.pairs = pairs;
        this.srq = srq;
        this.windows = windows;
    }

    /** A failing DTO broke {@code p}: the step that posted it ends once both sides reported the end. */
    void broken(Pair p) {
        breakPair(p);
        breaking.add(p);
    }

    /** {@return how many low-watermark events the episode saw} */
    int lowWatermarkEvents() {
        return lowWatermarkEvents;
    }

    // ---------------------------------------------------------------- matching and breaking

    Recv firstFree(Side y) {
        for (Recv r : y.recvs) {
            if (r.msg == null && r.fate == null) {
                return r;
            }
        }
        return null;
    }

    /** Lets waiting messages take receives, as the transport will. */
    void match(Side y) {
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
            m.send().ready = true;
            if (m.send().length > r.total) {
                r.fate = Fate.ERROR;
                m.send().fate = Fate.ERROR;
                breakPair(y.pair);
                breaking.add(y.pair);
                return;
            }
            r.fate = Fate.SUCCESS;
            m.send().fate = Fate.SUCCESS;
        }
    }

    /** The first message waiting for {@code y} takes an unassigned SRQ buffer, if there is one. */
    private boolean claimFloating(Side y) {
        if (!y.onSrq || y.incoming.isEmpty() || srq.unassigned() <= 0 || y.pair.state != State.CONNECTED) {
            return false;
        }
        Msg m = y.incoming.poll();
        y.srqDue.add(m);
        m.send().ready = true;
        m.send().fate = Fate.SUCCESS;
        return true;
    }

    /**
     * The connection goes down (abrupt disconnect, an error, a freed EP): what could run may still complete or be
     * flushed, what could not is flushed, each side is owed one connection event.
     */
    void breakPair(Pair p) {
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
                m.send().ready = true;
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

    /** One dequeue; an event found is checked against the model. */
    boolean poll(DatEvd evd, Side owner) {
        int rc;
        try {
            rc = evd.dequeue(event);
        } catch (RuntimeException e) {
            throw new Violation(Invariant.STATUS, "dat_evd_dequeue threw " + e, e);
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
        throw new Violation(Invariant.COMPLETIONS, "unexpected event on the async EVD: " + event
                + (srq != null && srq.armings == 0 ? " (each arming of the SRQ low watermark was reported already)"
                : ""));
    }

    private void expectDto(Side x, String queue) {
        if (event.type() != DatEventType.DTO_COMPLETION) {
            throw new Violation(Invariant.COMPLETIONS, "on the " + queue + " EVD of " + x.name + ": " + event
                    + ", expected a DTO completion");
        }
        if (event.ep() != x.s.ep()) {
            throw new Violation(Invariant.COMPLETIONS, "completion on the " + queue + " EVD of " + x.name
                    + " names another EP: " + event);
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
                throw new Violation(Invariant.COMPLETIONS, "request completion with cookie " + cookie + " on "
                        + x.name + " while " + r
                        + " posted before it has not completed: lost, out of order, or never posted; status "
                        + event.dtoStatus());
            }
            x.reqs.poll();
            settle(r, DatDtoStatus.SUCCESS);
        }
        Req r = x.reqs.poll();
        if (r == null) {
            throw new Violation(Invariant.COMPLETIONS, "request completion with cookie " + cookie + " on " + x.name
                    + " where no request is outstanding (a duplicate, or a malformed post that went through): "
                    + event);
        }
        DatDtoStatus status = event.dtoStatus();
        claimIfFloating(x, r);
        if (r.fate == null) {
            throw new Violation(Invariant.COMPLETIONS, r + " on " + x.name + " completed " + status
                    + " though it could not have run: no receive was posted for it");
        }
        if ((event.type() == DatEventType.RMR_BIND_COMPLETION) != (r.kind == ReqKind.BIND)) {
            throw new Violation(Invariant.COMPLETIONS, r + " on " + x.name + " completed as " + event.type());
        }
        if (r.kind == ReqKind.BIND && event.rmr() != r.window.rmr) {
            throw new Violation(Invariant.COMPLETIONS, r + " on " + x.name + " completed naming another RMR: " + event);
        }
        allowed(r.fate, status, r + " on " + x.name);
        if (status == DatDtoStatus.SUCCESS && r.kind != ReqKind.BIND) {
            if (r.suppressed) {
                throw new Violation(Invariant.COMPLETIONS, r + " on " + x.name
                        + " reported its successful completion despite SUPPRESS");
            }
            if (event.transferredLength() != r.length) {
                throw new Violation(Invariant.COMPLETIONS, r + " on " + x.name + " completed with transferred_length "
                        + event.transferredLength() + ", expected " + r.length);
            }
        }
        settle(r, status);
    }

    /** A send completes (or a later request does) while its message waits for an SRQ buffer: it took one. */
    private void claimIfFloating(Side x, Req r) {
        Side y = x.peer();
        if (r.fate == null && r.kind == ReqKind.SEND && !y.incoming.isEmpty() && y.incoming.peek().send() == r) {
            claimFloating(y);
        }
    }

    /** A request is done: its bytes checked, its memory given back. */
    void settle(Req r, DatDtoStatus status) {
        boolean ok = status == DatDtoStatus.SUCCESS;
        if (r.kind != ReqKind.BIND && r.window != null) {
            r.window.inFlight--;
        }
        switch (r.kind) {
            case ReqKind.WRITE -> {
                unlend(r.local);
                unlend(new Range[] {r.remote});
                if (ok) {
                    expectBytes(new Range[] {r.remote}, r.data, r.length, "target of " + r);
                } else if (r.fate != Fate.ERROR) {
                    // Flushed: it may have landed in part. A refused write (ERROR) had its target watched.
                    resync(new Range[] {r.remote});
                }
            }
            case ReqKind.BIND -> {
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
            case ReqKind.READ -> {
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
                throw new Violation(Invariant.COMPLETIONS, "receive completion on " + x.name + " with cookie " + cookie
                        + ", which is no buffer posted to the SRQ and not yet completed: " + event);
            }
            if (x.srqDue.isEmpty() && x.srqMaybe.isEmpty() && !claimFloating(x)) {
                throw new Violation(Invariant.COMPLETIONS, "SRQ buffer " + cookie + " completed " + status + " on "
                        + x.name
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
            throw new Violation(Invariant.COMPLETIONS, "receive completion with cookie " + cookie + " on " + x.name
                    + (r == null
                    ? " where no receive is outstanding" : " while receive " + r.cookie
                    + " posted before it has not completed") + ": " + event);
        }
        if (r.fate == null) {
            throw new Violation(Invariant.COMPLETIONS, "receive " + cookie + " on " + x.name + " completed " + status
                    + " though no message was sent to it");
        }
        allowed(r.fate, status, "receive " + cookie + " on " + x.name);
        x.recvs.poll();
        finishRecv(x, r, r.msg, status);
    }

    private void finishRecv(Side x, Recv r, Msg m, DatDtoStatus status) {
        unlend(r.segments);
        if (status == DatDtoStatus.SUCCESS) {
            if (event.transferredLength() != m.send().length) {
                throw new Violation(Invariant.COMPLETIONS, "receive " + r.cookie + " on " + x.name
                        + " completed with transferred_length "
                        + event.transferredLength() + " for a message of " + m.send().length + " bytes");
            }
            expectBytes(r.segments, m.send().data, m.send().length, "receive " + r.cookie + " on " + x.name);
        } else {
            resync(r.segments);
        }
    }

    private void onConnection(Side x) {
        DatEventType type = event.type();
        if (type != DatEventType.CONNECTION_EVENT_DISCONNECTED && type != DatEventType.CONNECTION_EVENT_BROKEN) {
            throw new Violation(Invariant.CONNECTION_EVENTS, "on the connection EVD of " + x.name + ": " + event);
        }
        if (x.connEventsOwed == 0) {
            throw new Violation(Invariant.CONNECTION_EVENTS, type + " on " + x.name + " where the connection is "
                    + x.pair.state
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
            throw new Violation(Invariant.COMPLETIONS, what + " completed " + status + "; the model allows "
                    + switch (fate) {
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
    void settleBreaks() {
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
                        throw new Violation(Invariant.OWED_EVENTS, "waited " + f.eventTimeoutMillis()
                                + " ms for the connection events of"
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
                    throw new Violation(Invariant.OWED_EVENTS, srq.waiting()
                            + " message(s) wait for SRQ buffers and " + srq.surelyFree()
                            + " buffer(s) are on the SRQ, yet none arrived in " + f.eventTimeoutMillis() + " ms");
                }
                Thread.yield();
            }
        }
        return true;
    }

    void await(DatEvd evd, Side owner, BooleanSupplier owed, String what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(f.eventTimeoutMillis());
        while (owed.getAsBoolean()) {
            if (!poll(evd, owner)) {
                if (System.nanoTime() > deadline) {
                    throw new Violation(Invariant.OWED_EVENTS, "waited " + f.eventTimeoutMillis() + " ms for "
                            + what + ", which the model"
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
    void quiesce(Side... sides) {
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
                    throw new Violation(Invariant.OWED_EVENTS, r + " on " + x.name
                            + " never completed; the connection is "
                            + x.pair.state);
                }
                settle(r, DatDtoStatus.SUCCESS);
            }
            if (!x.recvs.isEmpty()) {
                throw new Violation(Invariant.OWED_EVENTS, "receive " + x.recvs.peek().cookie + " on " + x.name
                        + " never completed");
            }
            x.srqDue.clear();
            x.srqMaybe.clear();
            x.srqOptional = 0;
        }
    }


    // ---------------------------------------------------------------- plumbing

    static int dataPath(IntSupplier call, String what) {
        try {
            return call.getAsInt();
        } catch (RuntimeException | Error e) {
            if (e instanceof Violation v) {
                throw v;
            }
            throw new Violation(Invariant.STATUS, what + " threw " + e
                    + ": the data path returns a status, never throws",
                    e);
        }
    }

    /**
     * Checks a status. A page names a status by its type; a provider may add a subtype (OFA's C uDAPL answers a post
     * on an unconnected EP {@code DAT_INVALID_STATE/DAT_INVALID_STATE_EP_UNCONNECTED}), so an expected status without a
     * subtype accepts any subtype of its type, as the rules' {@code assertStatus} does.
     */
    static void expectStatus(int expected, int actual, String what) {
        boolean same = actual == expected
                || ((expected & DatReturn.SUBTYPE_MASK) == 0 && (actual & ~DatReturn.SUBTYPE_MASK) == expected);
        if (!same) {
            throw new Violation(Invariant.STATUS, what + " returned " + DatReturn.toString(actual) + ", expected "
                    + DatReturn.toString(expected));
        }
    }
}
