// SPDX-License-Identifier: Apache-2.0
package dat.tck.campaign;

import static dat.tck.campaign.Completions.dataPath;
import static dat.tck.campaign.Completions.expectStatus;
import static dat.tck.campaign.ShadowMemory.REGIONS;
import static dat.tck.campaign.ShadowMemory.REGION_SIZE;
import static dat.tck.campaign.ShadowMemory.lend;
import static dat.tck.campaign.ShadowMemory.overlaps;
import static dat.tck.campaign.ShadowMemory.snapshot;
import static dat.tck.campaign.ShadowMemory.total;
import static dat.tck.campaign.World.MAX_MESSAGE;
import static dat.tck.campaign.World.SRQ_BUFFER_MIN;

import dat.api.DatCompletionFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.Iov;
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
import dat.tck.campaign.ShadowMemory.Mem;
import java.util.List;
import java.util.Locale;

/**
 * The steps that post work: receives, SRQ receives, sends, RDMA writes and reads, RMR binds, RDMA through a window,
 * and malformed posts. Each posts on the provider, checks the status it returned and records in the model what the
 * post may complete with; {@link Completions} checks the completions as they come.
 */
final class Posts {

    private final Pair[] pairs;
    private final DatEpAttr epAttr;
    private final int recvIov;
    private final int requestIov;
    private final int readIov;
    private final int writeIov;
    private final boolean reads;
    private final boolean suppress;
    private final SrqModel srq;
    private final Iov iov;
    private final List<Window> windows;
    private final List<DatEp> freedEps;
    private final List<Integer> freedContexts;
    private final ShadowMemory memory;
    private final Completions oracle;
    private long nextCookie = 1;

    Posts(World w) {
        this.pairs = w.pairs;
        this.epAttr = w.epAttr;
        this.recvIov = epAttr.maxRecvIov();
        this.requestIov = epAttr.maxRequestIov();
        this.readIov = epAttr.maxRdmaReadIov();
        this.writeIov = epAttr.maxRdmaWriteIov();
        this.reads = epAttr.maxRdmaReadOut() > 0 && readIov > 0;
        this.suppress = w.suppress;
        this.srq = w.srq;
        this.iov = w.iov;
        this.windows = w.windows;
        this.freedEps = w.freedEps;
        this.freedContexts = w.freedContexts;
        this.memory = w.memory;
        this.oracle = w.oracle;
    }

    /** What the step under way called, with its arguments resolved; null while it called nothing. */
    String call;

    private Side side(int pair, boolean passive) {
        return Model.side(pairs, pair, passive);
    }

    private void say(String text) {
        call = text;
    }

    private static String segments(int n) {
        return n == 1 ? "1 segment" : n + " segments";
    }

    // ---------------------------------------------------------------- posts

    boolean postRecv(Op.PostRecv op) {
        Side x = side(op.pair(), op.passive());
        if (x.onSrq || x.recvs.size() >= epAttr.maxRecvDtos()) {
            return false;
        }
        // Receives hold half a maximum message or more, sends at most half: only SEND_TOO_LONG overflows one.
        Range[] segs = memory.ranges(1 + Math.floorMod(op.segments(), recvIov),
                MAX_MESSAGE / 2 + Math.floorMod(op.length(), MAX_MESSAGE / 2 + 1));
        if (segs == null) {
            return false;
        }
        long cookie = nextCookie++;
        say(String.format(Locale.ROOT, "dat_ep_post_recv(%s, %s, %,d B)", Model.ep(x), segments(segs.length),
                total(segs)));
        int rc = dataPath(() -> x.s.ep().postRecv(load(segs), iov, cookie, 0), "dat_ep_post_recv on " + x.name);
        expectStatus(DatReturn.DAT_SUCCESS, rc, "dat_ep_post_recv on " + x.name + " in " + x.state());
        Recv r = new Recv(cookie, segs, total(segs));
        lend(segs, true);
        if (x.state() == State.BROKEN || x.state() == State.DISCONNECTED) {
            r.fate = Fate.FLUSHED;
        }
        x.recvs.add(r);
        oracle.match(x);
        return true;
    }

    boolean srqPost(Op.SrqPost op) {
        if (srq == null || srq.pool.size() >= srq.capacity) {
            return false;
        }
        int n = 1 + Math.floorMod(op.segments(), Math.min(recvIov, srq.maxIov));
        Range[] segs = memory.ranges(n, SRQ_BUFFER_MIN + Math.floorMod(op.length(), MAX_MESSAGE));
        if (segs == null) {
            return false;
        }
        long cookie = nextCookie++;
        say(String.format(Locale.ROOT, "dat_srq_post_recv(%s, %,d B)", segments(n), total(segs)));
        int rc = dataPath(() -> srq.srq.postRecv(load(segs), iov, cookie), "dat_srq_post_recv");
        expectStatus(DatReturn.DAT_SUCCESS, rc, "dat_srq_post_recv");
        lend(segs, true);
        srq.pool.put(cookie, new Recv(cookie, segs, total(segs)));
        return true;
    }

    boolean send(Op.Send op) {
        boolean tooLong = op.tooLong();
        Side x = side(op.pair(), op.passive());
        Side y = x.peer();
        if (x.reqs.size() >= epAttr.maxRequestDtos()) {
            return false;
        }
        long length = Math.floorMod(op.length(), (y.onSrq ? SRQ_BUFFER_MIN : MAX_MESSAGE / 2) + 1);
        if (tooLong) {
            // Only where the model knows which receive the message lands in, and that it is too small.
            Recv next = y.onSrq || x.state() != State.CONNECTED || !y.incoming.isEmpty() ? null : oracle.firstFree(y);
            if (next == null || !x.allReady()) {
                return false;
            }
            length = next.total + 1 + Math.floorMod(op.length(), 64);
        }
        int n = length == 0 ? 0 : 1 + Math.floorMod(op.segments(), (int) Math.min(requestIov, length));
        Range[] segs = memory.ranges(n, length);
        if (segs == null) {
            return false;
        }
        byte[] payload = memory.fill(segs);
        boolean quiet = suppress && op.suppress();
        long cookie = nextCookie++;
        say(String.format(Locale.ROOT, "dat_ep_post_send(%s, %s, %,d B%s)%s", Model.ep(x), segments(n), length,
                quiet ? ", SUPPRESS" : "",
                tooLong ? ": longer than the receive it lands in" : ""));
        int rc = dataPath(() -> x.s.ep().postSend(load(segs), iov, cookie, quiet ? DatCompletionFlags.SUPPRESS : 0),
                "dat_ep_post_send on " + x.name);
        if (x.state() == State.UNCONNECTED) {
            expectStatus(DatReturn.DAT_INVALID_STATE, rc, "dat_ep_post_send on unconnected " + x.name);
            return true;
        }
        expectStatus(DatReturn.DAT_SUCCESS, rc, "dat_ep_post_send on " + x.name + " in " + x.state());
        Req r = new Req(ReqKind.SEND, cookie, segs, length, payload, null, quiet);
        lend(segs, false);
        x.reqs.add(r);
        if (x.state() == State.CONNECTED) {
            y.incoming.add(new Msg(r));
            oracle.match(y);
        } else {
            r.fate = Fate.FLUSHED;
        }
        return true;
    }

    boolean rdma(Op.Rdma op) {
        ReqKind kind = op.kind() == Op.Kind.READ ? ReqKind.READ : ReqKind.WRITE;
        boolean unprivileged = op.kind() == Op.Kind.WRITE_UNPRIVILEGED;
        Side x = side(op.pair(), op.passive());
        boolean write = kind == ReqKind.WRITE;
        if ((!write && !reads) || x.reqs.size() >= epAttr.maxRequestDtos()) {
            return false;
        }
        if (unprivileged && (x.state() != State.CONNECTED || !x.allReady())) {
            return false;
        }
        long length = Math.floorMod(op.length(), MAX_MESSAGE + 1);
        if (unprivileged && length == 0) {
            // A refusal needs a byte to refuse: an HCA checks no key for an RDMA of zero bytes (InfiniBand C9-88;
            // rxe's check_rkey: "a zero-byte op is not required to set an addr or rkey"), so such a write to memory
            // without REMOTE_WRITE succeeds there, and DAT does not say it must fail (seed 0xda727046cdffc788).
            length = 1;
        }
        int max = write ? writeIov : readIov;
        int n = length == 0 ? 0 : 1 + Math.floorMod(op.segments(), (int) Math.min(max, length));
        Range[] segs = memory.ranges(n, length);
        if (segs == null) {
            return false;
        }
        Range remote = memory.remoteRange(length, write, unprivileged, op.region());
        if (remote == null || overlaps(remote, segs)) {
            return false;
        }
        return postRdma(x, kind, segs, remote, remote.mem().lmr.rmrContext(), unprivileged,
                suppress && op.suppress());
    }

    /**
     * Posts an RDMA write or read of {@code segs} to {@code remote} through {@code context} (a region's or a window's)
     * and models it. {@code refused}: the target must refuse it (a privilege or a bound it lacks), at once with
     * DAT_PRIVILEGES_VIOLATION or by an error completion that breaks the connection.
     */
    private boolean postRdma(Side x, ReqKind kind, Range[] segs, Range remote, int context, boolean refused,
                             boolean quiet) {
        boolean write = kind == ReqKind.WRITE;
        long length = remote.length();
        byte[] data = write ? memory.fill(segs) : snapshot(remote);
        long cookie = nextCookie++;
        int flags = quiet ? DatCompletionFlags.SUPPRESS : 0;
        String what = (write ? "dat_ep_post_rdma_write" : "dat_ep_post_rdma_read") + " on " + x.name;
        say(String.format(Locale.ROOT, "%s(%s, %s, %,d B%s, %s [%,d, +%,d)%s%s)", write ? "dat_ep_post_rdma_write"
                : "dat_ep_post_rdma_read",
                Model.ep(x), segments(segs.length), length, quiet ? ", SUPPRESS" : "",
                context == remote.mem().lmr.rmrContext() ? "region " + remote.mem().id : "window on region "
                + remote.mem().id, remote.offset(), length, (remote.mem().privileges & DatMemPriv.REMOTE_WRITE) == 0
                && write ? " without REMOTE_WRITE" : "", refused ? ": refused" : ""));
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
            oracle.broken(x.pair);
        } else {
            r.fate = Fate.SUCCESS;
        }
        return true;
    }

    /** dat_rmr_bind of a window onto part of a live region, as a request of {@code x}'s connection. */
    boolean bind(Op.Bind op) {
        if (windows.isEmpty()) {
            return false;
        }
        Side x = side(op.pair(), op.passive());
        Window w = windows.get(Math.floorMod(op.window(), windows.size()));
        Mem m = memory.regions.get(1 + Math.floorMod(op.region(), REGIONS - 1));
        if (w.pending != null || w.inFlight > 0 || x.state() != State.CONNECTED || !x.allReady()
                || x.reqs.size() >= epAttr.maxRequestDtos() || m.lmr == null || m.retiring) {
            return false;
        }
        long length = 1L + Math.floorMod(op.length(), 8192);
        long offset = memory.bytes.nextLong(REGION_SIZE - length + 1);
        int privileges = op.readOnly() ? DatMemPriv.REMOTE_READ
                : DatMemPriv.REMOTE_READ | DatMemPriv.REMOTE_WRITE;
        long cookie = nextCookie++;
        String what = "dat_rmr_bind of [" + offset + ", +" + length + ") of region " + m.id + " over " + x.name;
        say(String.format(Locale.ROOT, "dat_rmr_bind(rmr %d, region %d [%,d, +%,d), %s, %s)", windows.indexOf(w),
                m.id, offset, length,
                op.readOnly() ? "REMOTE_READ" : "REMOTE_READ | REMOTE_WRITE", Model.ep(x)));
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
        Req r = new Req(ReqKind.BIND, cookie, new Range[0], 0, null, null, false);
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
    boolean windowRdma(Op.WindowRdma op) {
        if (windows.isEmpty()) {
            return false;
        }
        Window w = windows.get(Math.floorMod(op.window(), windows.size()));
        if (!w.live) {
            return false;
        }
        Side y = w.owner.peer();
        boolean write = !op.read() || !reads;
        if (y.state() != State.CONNECTED || y.reqs.size() >= epAttr.maxRequestDtos()) {
            return false;
        }
        boolean outside = op.outside();
        boolean readOnly = write && (w.privileges & DatMemPriv.REMOTE_WRITE) == 0;
        boolean refused = outside || readOnly;
        if (refused && !y.allReady()) {
            return false;
        }
        long length = outside ? 2 + Math.floorMod(op.length(), 63) : 1 + Math.floorMod(op.length(),
                (int) Math.min(w.length,
                MAX_MESSAGE));
        long offset;
        if (outside) {
            // Straddling the window's end (its last byte and beyond), or else its start.
            offset = w.offset + w.length - 1 + length <= REGION_SIZE ? w.offset + w.length - 1 : w.offset - 1;
            if (offset < 0 || offset + length > REGION_SIZE) {
                return false;
            }
        } else {
            offset = w.offset + memory.bytes.nextLong(w.length - length + 1);
        }
        Range remote = new Range(w.mem, offset, length);
        if (w.mem.overlaps(offset, length)) {
            return false;
        }
        int max = write ? writeIov : readIov;
        int n = 1 + Math.floorMod(op.segments(), (int) Math.min(max, length));
        Range[] segs = memory.ranges(n, length);
        if (segs == null || overlaps(remote, segs)) {
            return false;
        }
        Window via = w;
        boolean posted = postRdma(y, write ? ReqKind.WRITE : ReqKind.READ, segs, remote, w.context, refused, false);
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
    boolean badPost(Op.BadPost op) {
        Side x = side(op.pair(), op.passive());
        int variant = Math.floorMod(op.variant(), 8);
        boolean recv = op.recv() && !x.onSrq;
        String post = recv ? "dat_ep_post_recv" : "dat_ep_post_send";
        int max = recv ? recvIov : requestIov;
        Mem m = memory.liveRegion(op.region());
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
                return postOnFreedEp(op, recv, post, m);
            }
            case 6 -> {
                return srqPostTooLong(m);
            }
            default -> {
                return recvOnSrqEp(x, m);
            }
        }
        int count = n;
        int fl = flags;
        String what = post + " on " + x.name + " with " + why;
        say(String.format(Locale.ROOT, "%s(%s, %s): %s", post, Model.ep(x), why, DatReturn.toString(expected)));
        int rc = dataPath(() -> recv ? x.s.ep().postRecv(count, iov, 1, fl) : x.s.ep().postSend(count, iov, 1, fl),
                what);
        expectStatus(expected, rc, what);
        return true;
    }

    /** Variant 5 of {@link #badPost}: any post on a freed EP; false when no EP was freed yet. */
    private boolean postOnFreedEp(Op.BadPost op, boolean recv, String post, Mem m) {
        if (freedEps.isEmpty()) {
            return false;
        }
        DatEp dead = freedEps.get(Math.floorMod(op.freedEp(), freedEps.size()));
        say(String.format(Locale.ROOT, "%s(a freed EP): DAT_INVALID_HANDLE", post));
        iov.set(0, m.lmr, 0, 8);
        int rc = dataPath(() -> recv ? dead.postRecv(1, iov, 1, 0) : dead.postSend(1, iov, 1, 0),
                post + " on a freed EP");
        expectStatus(DatReturn.DAT_INVALID_HANDLE, rc, post + " on a freed EP");
        return true;
    }

    /** Variant 6 of {@link #badPost}: an SRQ post of one segment more than the SRQ takes; false without an SRQ. */
    private boolean srqPostTooLong(Mem m) {
        if (srq == null) {
            return false;
        }
        int srqMax = srq.maxIov;
        for (int i = 0; i <= srqMax; i++) {
            iov.set(i, m.lmr, 0, 1);
        }
        say(String.format(Locale.ROOT,
                "dat_srq_post_recv(%d segments where the SRQ takes %d): DAT_INVALID_PARAMETER", srqMax + 1,
                        srqMax));
        int rc = dataPath(() -> srq.srq.postRecv(srqMax + 1, iov, 1), "dat_srq_post_recv");
        expectStatus(DatReturn.DAT_INVALID_PARAMETER, rc,
                "dat_srq_post_recv of " + (srqMax + 1) + " segments where the SRQ takes " + srqMax);
        return true;
    }

    /**
     * Variant 7 of {@link #badPost}: a receive on whichever of {@code x} and its peer takes its receives from the
     * SRQ; false when neither does.
     */
    private boolean recvOnSrqEp(Side x, Mem m) {
        Side y = x.onSrq ? x : x.peer();
        if (!y.onSrq) {
            return false;
        }
        iov.set(0, m.lmr, 0, 8);
        say(String.format(Locale.ROOT, "dat_ep_post_recv(%s, which takes its receives from the SRQ): refused",
                Model.ep(y)));
        int rc = dataPath(() -> y.s.ep().postRecv(1, iov, 1, 0), "dat_ep_post_recv on an SRQ EP");
        if (rc == DatReturn.DAT_SUCCESS) {
            throw new Violation("dat_ep_post_recv on " + y.name + ", which takes its receives from an SRQ,"
                    + " returned DAT_SUCCESS: the buffer can never be used");
        }
        return true;
    }

    private Integer freedContext() {
        for (Integer c : freedContexts) {
            boolean reused = false;
            for (Mem m : memory.regions) {
                reused |= m.lmr != null && m.lmr.lmrContext() == c;
            }
            if (!reused) {
                return c;
            }
        }
        return null;
    }

    private int load(Range[] segs) {
        for (int i = 0; i < segs.length; i++) {
            iov.set(i, segs[i].mem().lmr, segs[i].offset(), segs[i].length());
        }
        return segs.length;
    }
}
