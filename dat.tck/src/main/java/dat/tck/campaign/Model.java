// SPDX-License-Identifier: Apache-2.0
package dat.tck.campaign;

import dat.api.DatRmr;
import dat.api.DatSrq;
import dat.api.DatSrqParam;
import dat.tck.campaign.ShadowMemory.Mem;
import dat.tck.rules.TckFixture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The model's vocabulary: what it believes about the provider's objects. A {@link Pair} of {@link Side}s is a
 * connection; a side's {@link Req}s and {@link Recv}s are its posted work, each with the {@link Fate} the model allows
 * it; {@link SrqModel} and {@link Window} are the shared receive queue and the RMRs. {@link Completions} moves these
 * beliefs on as events arrive; {@link World} creates them as steps post work.
 */
final class Model {

    private Model() {
    }

    /** A connection's state as the model knows it. */
    enum State { CONNECTED, BROKEN, DISCONNECTED, UNCONNECTED }

    /** What a posted buffer may complete with. */
    enum Fate { SUCCESS, ERROR, FLUSHED, SUCCESS_OR_FLUSHED }

    /** What a request does: the DAT call that posted it. */
    enum ReqKind {
        /** dat_ep_post_send. */
        SEND("send"),
        /** dat_rmr_bind. */
        BIND("RMR bind"),
        /** dat_ep_post_rdma_write. */
        WRITE("RDMA write"),
        /** dat_ep_post_rdma_read. */
        READ("RDMA read");

        private final String label;

        ReqKind(String label) {
            this.label = label;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /** {@return how a failure report names the EP of {@code x}: ep 2k is pair k's active EP, ep 2k+1 its passive} */
    static String ep(Side x) {
        return "ep " + (2 * x.pair.index + (x == x.pair.b ? 1 : 0));
    }

    /** The side of {@code pair} a step names: its active ({@code passive} false) or its passive EP. */
    static Side side(Pair[] pairs, int pair, boolean passive) {
        Pair p = pairs[Math.floorMod(pair, pairs.length)];
        return passive ? p.b : p.a;
    }

    /** A piece of registered memory a post names. */
    record Range(Mem mem, long offset, long length) {
        long address() {
            return mem.lmr.address() + offset;
        }
    }

    /** A request: send, RDMA write or RDMA read. */
    static final class Req {
        final ReqKind kind;
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

        Req(ReqKind kind, long cookie, Range[] local, long length, byte[] data, Range remote, boolean suppressed) {
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
            return kind + " cookie " + cookie + " of " + length + " bytes" + (suppressed ? " (SUPPRESS)" : "");
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

    static final class SrqModel {
        final DatSrq srq;
        private final Pair[] pairs;
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

        SrqModel(DatSrq srq, DatSrqParam created, Pair[] pairs) {
            this.srq = srq;
            this.pairs = pairs;
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

}
