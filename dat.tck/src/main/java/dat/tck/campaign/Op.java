// SPDX-License-Identifier: Apache-2.0
package dat.tck.campaign;

import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One step of a campaign: a DAT call and each of its random choices drawn on its own, so the shrinker can simplify one
 * choice (fewer segments, a shorter message, no SUPPRESS) without touching the others. Choices are indexes and sizes,
 * never handles: {@link World} maps them onto whatever exists when the step runs (an index modulo what there is, a
 * size modulo what the queue takes), so a sequence stays meaningful when the shrinker deletes steps before it; a step
 * whose target is gone is skipped, not broken. What the step then called, with the arguments it resolved, is what a
 * failure prints ({@link World#lastCall}).
 */
sealed interface Op {

    /** {@return which call this step makes} */
    Kind kind();

    /** The calls a campaign makes. */
    enum Kind {
        /** dat_ep_post_recv on an EP with its own receive queue. */
        POST_RECV,
        /** dat_srq_post_recv. */
        SRQ_POST,
        /** dat_ep_post_send. */
        SEND,
        /** dat_ep_post_send of a message longer than the receive it will land in: breaks the connection. */
        SEND_TOO_LONG,
        /** dat_ep_post_rdma_write. */
        WRITE,
        /** dat_ep_post_rdma_write into a region without REMOTE_WRITE: refused or breaks the connection. */
        WRITE_UNPRIVILEGED,
        /** dat_ep_post_rdma_read. */
        READ,
        /** dat_rmr_bind of a window onto part of a region, over one EP's connection. */
        BIND,
        /** The peer's RDMA write or read through a bound window: inside it, or just outside (refused). */
        WINDOW_RDMA,
        /** One malformed post (a variant per draw): a status, no completion, nothing moved. */
        BAD_POST,
        /** dat_evd_dequeue on one EVD. */
        DEQUEUE,
        /** Waits until every completion and event the model owes has arrived. */
        DRAIN,
        /** dat_ep_disconnect, abrupt or (with nothing outstanding) graceful. */
        DISCONNECT,
        /** dat_ep_reset of both EPs of a disconnected pair. */
        RESET,
        /** Connects a reset pair again. */
        CONNECT,
        /** dat_ep_free of one EP of a pair, with whatever is outstanding, and a new EP in its place. */
        FREE_EP,
        /** dat_ep_recv_query. */
        RECV_QUERY,
        /** dat_srq_query. */
        SRQ_QUERY,
        /** dat_srq_resize. */
        SRQ_RESIZE,
        /** dat_srq_set_lw. */
        SRQ_SET_LW,
        /** dat_lmr_free of a region no post holds. */
        LMR_FREE,
        /** dat_lmr_create again over a freed region's memory. */
        LMR_CREATE,
        /** dat_lmr_create over memory whose arena is closed: refused. */
        LMR_CREATE_DEAD,
        /** dat_ep_connect on an EP that is not UNCONNECTED, or dat_ep_reset on a connected one: refused. */
        BAD_CONTROL
    }

    /**
     * dat_ep_post_recv.
     *
     * @param pair which pair
     * @param passive its passive EP, else its active one
     * @param segments how many segments (modulo the queue's max_recv_iov)
     * @param length how much beyond half a maximum message the buffer holds
     */
    record PostRecv(int pair, boolean passive, int segments, int length) implements Op {
        @Override
        public Kind kind() {
            return Kind.POST_RECV;
        }
    }

    /**
     * dat_srq_post_recv.
     *
     * @param segments how many segments (modulo the SRQ's max_recv_iov)
     * @param length how much beyond the SRQ minimum the buffer holds
     */
    record SrqPost(int segments, int length) implements Op {
        @Override
        public Kind kind() {
            return Kind.SRQ_POST;
        }
    }

    /**
     * dat_ep_post_send; {@code tooLong}: longer than the receive it lands in, by {@code length} modulo 64 plus one.
     *
     * @param tooLong whether it is {@link Kind#SEND_TOO_LONG}
     * @param pair which pair
     * @param passive its passive EP, else its active one
     * @param segments how many segments (modulo what the length and the queue allow)
     * @param length the message's length (modulo the largest the peer takes)
     * @param suppress DAT_COMPLETION_SUPPRESS_FLAG, where the provider supports it
     */
    record Send(boolean tooLong, int pair, boolean passive, int segments, int length, boolean suppress)
            implements Op {
        @Override
        public Kind kind() {
            return tooLong ? Kind.SEND_TOO_LONG : Kind.SEND;
        }
    }

    /**
     * dat_ep_post_rdma_write or dat_ep_post_rdma_read.
     *
     * @param kind {@link Kind#WRITE}, {@link Kind#WRITE_UNPRIVILEGED} or {@link Kind#READ}
     * @param pair which pair
     * @param passive its passive EP, else its active one
     * @param segments how many local segments (modulo what the length and the queue allow)
     * @param length the transfer's length (modulo a maximum message)
     * @param suppress DAT_COMPLETION_SUPPRESS_FLAG, where the provider supports it
     * @param region which remote region
     */
    record Rdma(Kind kind, int pair, boolean passive, int segments, int length, boolean suppress, int region)
            implements Op {
    }

    /**
     * dat_rmr_bind.
     *
     * @param pair which pair
     * @param passive its passive EP, else its active one
     * @param window which RMR
     * @param region which region (not the unprivileged one)
     * @param length the window's length (modulo 8 KiB)
     * @param readOnly REMOTE_READ only, else REMOTE_READ and REMOTE_WRITE
     */
    record Bind(int pair, boolean passive, int window, int region, int length, boolean readOnly) implements Op {
        @Override
        public Kind kind() {
            return Kind.BIND;
        }
    }

    /**
     * An RDMA write or read through a bound window by the peer of the EP it was bound over.
     *
     * @param window which RMR
     * @param read a read (where the provider reads), else a write
     * @param outside straddling the window's bound: refused
     * @param segments how many local segments
     * @param length the transfer's length
     */
    record WindowRdma(int window, boolean read, boolean outside, int segments, int length) implements Op {
        @Override
        public Kind kind() {
            return Kind.WINDOW_RDMA;
        }
    }

    /**
     * A malformed post.
     *
     * @param pair which pair
     * @param passive its passive EP, else its active one
     * @param variant which malformation (modulo 8, see {@code Posts.badPost})
     * @param recv a receive, else a send
     * @param region which region the segments name
     * @param freedEp which freed EP, for a post on one
     */
    record BadPost(int pair, boolean passive, int variant, boolean recv, int region, int freedEp) implements Op {
        @Override
        public Kind kind() {
            return Kind.BAD_POST;
        }
    }

    /**
     * dat_evd_dequeue.
     *
     * @param evd which EVD: three per EP, then the async EVD
     */
    record Dequeue(int evd) implements Op {
        @Override
        public Kind kind() {
            return Kind.DEQUEUE;
        }
    }

    /**
     * A step with no choice of its own.
     *
     * @param kind {@link Kind#DRAIN}, {@link Kind#SRQ_QUERY} or {@link Kind#LMR_CREATE_DEAD}
     */
    record Plain(Kind kind) implements Op {
    }

    /**
     * A call on one EP: {@link Kind#DISCONNECT} (graceful where {@code flag}), {@link Kind#FREE_EP},
     * {@link Kind#RECV_QUERY}, {@link Kind#BAD_CONTROL} (dat_ep_reset where {@code flag}, else dat_ep_connect).
     *
     * @param kind which call
     * @param pair which pair
     * @param passive its passive EP, else its active one
     * @param flag the call's one option
     */
    record OnEp(Kind kind, int pair, boolean passive, boolean flag) implements Op {
    }

    /**
     * A call with one number: {@link Kind#RESET} and {@link Kind#CONNECT} (a pair), {@link Kind#LMR_FREE} and
     * {@link Kind#LMR_CREATE} (a region), {@link Kind#SRQ_SET_LW} (the watermark, modulo max_recv_dtos + 2).
     *
     * @param kind which call
     * @param value its number
     */
    record OnIndex(Kind kind, int value) implements Op {
    }

    /**
     * dat_srq_resize.
     *
     * @param zero to size 0 (refused)
     * @param size else 1 plus this modulo the limit
     */
    record SrqResize(boolean zero, int size) implements Op {
        @Override
        public Kind kind() {
            return Kind.SRQ_RESIZE;
        }
    }

    /**
     * The first campaign's step, from five numbers: the kind and four ints each of which drove several choices. Seeds
     * without {@link Campaign#V2} replay with this, so seeds found before (in CI, the verbs guest, the docs) keep
     * making the same calls.
     *
     * @param kind the call
     * @param a usually which pair
     * @param b usually which side (its low bit) and region (the rest)
     * @param c usually the segment count, SUPPRESS (bit 8) and flags
     * @param d usually a length
     * @return the step
     */
    static Op v1(Kind kind, int a, int b, int c, int d) {
        boolean passive = (b & 1) != 0;
        return switch (kind) {
            case POST_RECV -> new PostRecv(a, passive, c, d);
            case SRQ_POST -> new SrqPost(c, d);
            case SEND, SEND_TOO_LONG -> new Send(kind == Kind.SEND_TOO_LONG, a, passive, c, d, (c & 0x100) != 0);
            case WRITE, WRITE_UNPRIVILEGED, READ -> new Rdma(kind, a, passive, c, d, (c & 0x100) != 0, b >>> 1);
            case BIND -> new Bind(a, passive, c, c >>> 4, d, (c & 0x100) != 0);
            case WINDOW_RDMA -> new WindowRdma(a, (c & 1) != 0, (c & 0x10) != 0, c >>> 8, d);
            case BAD_POST -> new BadPost(a, passive, c, (d & 1) != 0, d >>> 1, d);
            case DEQUEUE -> new Dequeue(a);
            case DRAIN, SRQ_QUERY, LMR_CREATE_DEAD -> new Plain(kind);
            case DISCONNECT, FREE_EP, RECV_QUERY, BAD_CONTROL -> new OnEp(kind, a, passive, (c & 1) != 0);
            case RESET, CONNECT, LMR_FREE, LMR_CREATE, SRQ_SET_LW -> new OnIndex(kind, a);
            case SRQ_RESIZE -> new SrqResize(Math.floorMod(a, 13) == 0, b);
        };
    }

    /**
     * A step whose every choice is drawn on its own, each within the range the world reads it in, a flag as often as
     * the first campaign set it.
     *
     * @param kind the call
     * @param r the episode's step generator
     * @return the step
     */
    static Op draw(Kind kind, SplittableRandom r) {
        int pair = r.nextInt(World.PAIRS);
        boolean passive = r.nextBoolean();
        return switch (kind) {
            case POST_RECV -> new PostRecv(pair, passive, r.nextInt(64), r.nextInt(World.MAX_MESSAGE / 2 + 1));
            case SRQ_POST -> new SrqPost(r.nextInt(64), r.nextInt(World.MAX_MESSAGE));
            case SEND, SEND_TOO_LONG -> new Send(kind == Kind.SEND_TOO_LONG, pair, passive, r.nextInt(64),
                    r.nextInt(World.MAX_MESSAGE / 2 + 1), r.nextBoolean());
            case WRITE, WRITE_UNPRIVILEGED, READ -> new Rdma(kind, pair, passive, r.nextInt(64),
                    r.nextInt(World.MAX_MESSAGE + 1), r.nextBoolean(), r.nextInt(World.REGIONS));
            case BIND -> new Bind(pair, passive, r.nextInt(2), r.nextInt(World.REGIONS - 1), r.nextInt(8192),
                    r.nextBoolean());
            case WINDOW_RDMA -> new WindowRdma(r.nextInt(2), r.nextBoolean(), r.nextBoolean(), r.nextInt(64),
                    r.nextInt(World.MAX_MESSAGE));
            case BAD_POST -> new BadPost(pair, passive, r.nextInt(8), r.nextBoolean(), r.nextInt(World.REGIONS),
                    r.nextInt(64));
            case DEQUEUE -> new Dequeue(r.nextInt(1024));
            case DRAIN, SRQ_QUERY, LMR_CREATE_DEAD -> new Plain(kind);
            case DISCONNECT, FREE_EP, RECV_QUERY, BAD_CONTROL -> new OnEp(kind, pair, passive, r.nextBoolean());
            case RESET, CONNECT -> new OnIndex(kind, pair);
            case LMR_FREE, LMR_CREATE -> new OnIndex(kind, r.nextInt(World.REGIONS));
            case SRQ_SET_LW -> new OnIndex(kind, r.nextInt(1024));
            case SRQ_RESIZE -> new SrqResize(r.nextInt(13) == 0, r.nextInt(1024));
        };
    }

    /**
     * {@return simpler versions of {@code op}, one choice changed each: a number to 0 and to its half, a flag off}
     * The kind, and which EP or pair a step names, stay: changing them changes what the step is, not how big.
     *
     * @param op the step
     */
    static List<Op> simpler(Op op) {
        List<Op> out = new ArrayList<>();
        RecordComponent[] components = op.getClass().getRecordComponents();
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        try {
            for (int i = 0; i < components.length; i++) {
                values[i] = components[i].getAccessor().invoke(op);
                types[i] = components[i].getType();
            }
            Constructor<?> canonical = op.getClass().getDeclaredConstructor(types);
            for (int i = 0; i < components.length; i++) {
                String name = components[i].getName();
                if (name.equals("pair") || name.equals("passive") || name.equals("tooLong")) {
                    continue;
                }
                List<Object> tries = new ArrayList<>();
                if (values[i] instanceof Integer n && n != 0) {
                    tries.add(0);
                    if (n / 2 != 0) {
                        tries.add(n / 2);
                    }
                } else if (values[i] instanceof Boolean b && b) {
                    tries.add(false);
                }
                for (Object t : tries) {
                    Object[] changed = values.clone();
                    changed[i] = t;
                    out.add((Op) canonical.newInstance(changed));
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("a step record without its canonical constructor: " + op, e);
        }
        return out;
    }
}
