// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatCr;
import dat.api.DatCrParam;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatMemPriv;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatReturn;
import dat.registry.peer.PeerAddress;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The two ends of a two-node {@code dat perf} run: the client ({@code --peer HOST:CONN_QUAL}) measures as in one
 * process, the server ({@code dat perf serve}) runs the {@link PerfResponder} for whatever the client asks.
 *
 * <p>The handshake, all before any clock starts:
 * <ol>
 * <li>The connection request's private data ({@value #REQUEST_BYTES} bytes): magic, version, test, op, the number
 *     of sizes, the largest size, and the client's receive buffer (RMR context and address, for the server's RDMA
 *     writes). Both sides size their buffers alike from it: {@link #bufferBytes}.</li>
 * <li>The server checks the op and the largest size against its own IA, registers its buffers, posts one receive
 *     and accepts with {@value #ACCEPT_BYTES} bytes: magic, a status ({@link #OK}, {@link #UNSUPPORTED_OP} or
 *     {@link #TOO_LARGE} with the server's limit) and its receive buffer.</li>
 * <li>The client sends the plan as a first message: the per-size timeout, the window, and per size the size, the
 *     timed and the warm-up iterations.</li>
 * <li>The server pre-posts the test's receives and answers with an 8-byte ready message; both clear their buffers
 *     (the write pingpong needs them zero but for its flag) and the run starts.</li>
 * </ol>
 * The client ends the run with a graceful disconnect. Every responder loop counts the plan's iterations, so the
 * server knows when it is done without a message for it.
 */
final class PerfPeer {

    /** First int of every private data of the protocol: {@code dPrf}. */
    static final int MAGIC = 0x64507266;
    /** The protocol's version; a server refuses another. */
    static final byte VERSION = 1;
    /** Bytes of the connection request's private data: within DAT's minimum {@code max_private_data_size}. */
    static final int REQUEST_BYTES = 32;
    /** Bytes of the accept's private data. */
    static final int ACCEPT_BYTES = 24;
    /** Accept status: the server is ready for the plan. */
    static final int OK = 0;
    /** Accept status: the server's IA cannot run the op. */
    static final int UNSUPPORTED_OP = 1;
    /** Accept status: the largest size is above the server's limit, which the accept carries. */
    static final int TOO_LARGE = 2;
    /** Accept status: the request's version is not this server's. */
    static final int BAD_VERSION = 3;
    /** The ready message: the server's receives are posted. */
    static final long READY = 0x7265616479L;
    /** How long a side waits for the other's disconnect once its own part is done. */
    static final long END_GRACE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private PerfPeer() {
    }

    /**
     * What the connection request carries.
     *
     * @param version the client's protocol version
     * @param test the test
     * @param op the operation
     * @param sizeCount how many sizes the plan has
     * @param maxSize the largest size
     * @param rmrContext the client's receive buffer: RMR context
     * @param address the client's receive buffer: address
     */
    record Request(int version, PerfPlan.Test test, PerfPlan.Op op, int sizeCount, long maxSize, int rmrContext,
                   long address) {

        byte[] encode() {
            return ByteBuffer.allocate(REQUEST_BYTES).putInt(MAGIC).put((byte) version).put((byte) test.ordinal())
                    .put((byte) op.ordinal()).put((byte) 0).putInt(sizeCount).putInt(rmrContext).putLong(maxSize)
                    .putLong(address).array();
        }

        /**
         * {@return the request, or {@code null} when the private data is not a {@code dat perf} client's}
         *
         * @param data the request's private data
         */
        static Request decode(byte[] data) {
            if (data.length < REQUEST_BYTES) {
                return null;
            }
            ByteBuffer b = ByteBuffer.wrap(data);
            int test = b.get(5);
            int op = b.get(6);
            int count = b.getInt(8);
            long maxSize = b.getLong(16);
            if (b.getInt(0) != MAGIC || test < 0 || test >= PerfPlan.Test.values().length || op < 0
                    || op >= PerfPlan.Op.values().length || count < 1 || count > PerfPlan.MAX_SIZES || maxSize < 1) {
                return null;
            }
            return new Request(b.get(4), PerfPlan.Test.values()[test], PerfPlan.Op.values()[op], count, maxSize,
                    b.getInt(12), b.getLong(24));
        }
    }

    /** {@return the bytes of the plan message for {@code sizes} sizes} */
    static long planBytes(int sizes) {
        return 16 + 16L * sizes;
    }

    /**
     * {@return each buffer's size on both nodes: the largest message, the plan message and the 8-byte ready
     * message and stream acknowledgement must fit}
     *
     * @param maxSize the largest size
     * @param sizes how many sizes
     */
    static long bufferBytes(long maxSize, int sizes) {
        return Math.max(Math.max(maxSize, Long.BYTES), planBytes(sizes));
    }

    /** {@return the remote privileges the receive buffers need for {@code op}} */
    static int remotePrivileges(PerfPlan.Op op) {
        return switch (op) {
            case SEND -> 0;
            case WRITE -> DatMemPriv.REMOTE_WRITE;
            case READ -> DatMemPriv.REMOTE_READ;
        };
    }

    // ------------------------------------------------------------------------------------------------ client

    /**
     * Connects the session's client to {@code dat perf serve} at {@code peer} (retrying while it does not listen
     * yet), sends the plan and waits for the server's ready message.
     *
     * @param session a session with a client side only, its buffers allocated ({@link #bufferBytes})
     * @param peer where the server listens
     * @param plan the plan
     * @param timeoutNanos how long to try to connect, and then to wait for each step of the handshake
     * @throws PerfCommand.PerfException when the peer does not answer in time or refuses the plan
     */
    static void connect(PerfSession session, PeerAddress peer, PerfPlan plan, long timeoutNanos) {
        PerfSession.Side c = session.client;
        byte[] request = new Request(VERSION, plan.test(), plan.op(), plan.sizes().length, plan.maxSize(),
                c.rxLmr.rmrContext(), c.rxLmr.address()).encode();
        DatEvent event = new DatEvent();
        Map<DatEventType, Integer> attempts = new EnumMap<>(DatEventType.class);
        boolean connected;
        try {
            connected = peer.connect(c.ep, c.connectEvd, event, request, System.nanoTime() + timeoutNanos,
                    attempts);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerfCommand.PerfException("interrupted while connecting to the peer at " + peer);
        }
        if (!connected) {
            throw new PerfCommand.PerfException("the peer at " + peer + " did not answer within "
                    + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos) + " s (is `dat perf serve --conn-qual "
                    + peer.connQual() + "` running there?); attempts ended in "
                    + (attempts.isEmpty() ? "nothing" : attempts));
        }
        ByteBuffer accept = ByteBuffer.wrap(event.privateData());
        if (accept.remaining() < ACCEPT_BYTES || accept.getInt(0) != MAGIC) {
            throw new PerfCommand.PerfException("the peer at " + peer + " is not `dat perf serve`: its accept"
                    + " carried " + accept.remaining() + " bytes of private data");
        }
        String op = plan.op().cliName();
        switch (accept.getInt(4)) {
            case OK -> { }
            case UNSUPPORTED_OP -> throw new PerfCommand.PerfException("the peer at " + peer + " cannot run op "
                    + op + ": its IA does not support it");
            case TOO_LARGE -> throw new PerfCommand.PerfException("size " + PerfPlan.sizeName(plan.maxSize())
                    + " is above what the peer at " + peer + " takes for op " + op + ": at most "
                    + accept.getLong(16) + " bytes");
            case BAD_VERSION -> throw new PerfCommand.PerfException("the peer at " + peer
                    + " speaks another version of the dat perf protocol; run the same jDAT on both nodes");
            default -> throw new PerfCommand.PerfException("the peer at " + peer + " answered with status "
                    + accept.getInt(4));
        }
        c.peerRmrContext = accept.getInt(8);
        c.peerAddress = accept.getLong(16);
        int bytes = (int) planBytes(plan.sizes().length);
        c.tx.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, plan.timeoutNanos());
        c.tx.set(ValueLayout.JAVA_INT_UNALIGNED, 8, plan.window());
        for (int s = 0; s < plan.sizes().length; s++) {
            c.tx.set(ValueLayout.JAVA_LONG_UNALIGNED, 16 + 16L * s, plan.sizes()[s]);
            c.tx.set(ValueLayout.JAVA_INT_UNALIGNED, 24 + 16L * s, plan.iters()[s]);
            c.tx.set(ValueLayout.JAVA_INT_UNALIGNED, 28 + 16L * s, plan.warmups()[s]);
        }
        String doing = "handshake with the peer at " + peer;
        check(c.ep.postRecv(1, c.rxIov, 0, DatCompletionFlags.DEFAULT), doing, "dat_ep_post_recv");
        c.txIov.set(0, c.txLmr, 0, bytes);
        check(c.ep.postSend(1, c.txIov, 0, DatCompletionFlags.DEFAULT), doing, "dat_ep_post_send");
        PerfSession.expect(c.requestEvd, DatEventType.DTO_COMPLETION, doing, "the plan's send", timeoutNanos);
        DatEvent ready = PerfSession.expect(c.recvEvd, DatEventType.DTO_COMPLETION, doing,
                "the receive of the ready message", timeoutNanos);
        if (ready.transferredLength() != Long.BYTES || c.rx.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != READY) {
            throw new PerfCommand.PerfException(doing + ": expected the ready message, got "
                    + ready.transferredLength() + " bytes");
        }
        clear(c);
    }

    /**
     * Ends the client's connection gracefully and waits a moment for the DISCONNECTED event, so the server sees
     * the end of a run rather than a broken connection.
     *
     * @param session the client's session
     */
    static void disconnect(PerfSession session) {
        PerfSession.Side c = session.client;
        c.ep.disconnect(DatCloseFlags.GRACEFUL);
        awaitEnd(c.connectEvd, END_GRACE_NANOS);
    }

    // ------------------------------------------------------------------------------------------------ server

    /** What the serving node saw; printed by the command. */
    record Served(String client, PerfPlan plan) {
    }

    /**
     * Listens on {@code connQual}, takes the first {@code dat perf} client, checks its request against this IA,
     * and runs the responder for its plan until it is done and the client disconnected.
     *
     * @param ia the IA; closed by the session this creates, or by the caller when none was created
     * @param connQual the qualifier to listen on
     * @param timeoutNanos how long to wait for a client, and then for each step of the handshake
     * @param listening called with the address once the PSP listens
     * @param refused called with each connection request refused (not a {@code dat perf} client)
     * @return what was served
     * @throws PerfCommand.PerfException when no client came in time, or the session failed
     */
    static Served serve(DatIa ia, long connQual, long timeoutNanos, Consumer<String> listening,
                        Consumer<String> refused) {
        DatIaAttr limits = ia.query();
        DatEvd crEvd = ia.createEvd(Math.min(limits.maxEvdQlen(), 8), null, DatEvdFlags.CR);
        DatPsp psp;
        try {
            psp = ia.createPsp(connQual, crEvd, DatPspFlags.CONSUMER);
        } catch (DatException e) {
            throw new PerfCommand.PerfException("cannot listen on conn_qual " + connQual + ": " + e.getMessage());
        }
        listening.accept(new PeerAddress(ia.address(), connQual).toString());
        long deadline = System.nanoTime() + timeoutNanos;
        DatEvent event = new DatEvent();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || crEvd.await(TimeUnit.NANOSECONDS.toMicros(left), 1, event) != DatReturn.DAT_SUCCESS) {
                throw new PerfCommand.PerfException("no client connected within "
                        + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos) + " s");
            }
            if (event.type() != DatEventType.CONNECTION_REQUEST_EVENT) {
                continue;
            }
            DatCr cr = event.cr();
            DatCrParam param = cr.query();
            String who = param.remoteIaAddress() == null ? "?" : param.remoteIaAddress().getHostAddress();
            Request request = Request.decode(param.privateData());
            if (request == null) {
                refused.accept(who + ": not a dat perf client (" + param.privateData().length
                        + " bytes of private data)");
                cr.reject();
                continue;
            }
            psp.close();
            return session(ia, cr, request, who, timeoutNanos);
        }
    }

    private static Served session(DatIa ia, DatCr cr, Request request, String who, long timeoutNanos) {
        PerfSession session = new PerfSession(ia, request.op(), false, true);
        PerfEngine engine = null;
        try {
            PerfSession.Side s = session.server;
            DatEpAttr attr = session.epAttr();
            long limit = Math.min(request.op() == PerfPlan.Op.SEND ? attr.maxMessageSize() : attr.maxRdmaSize(),
                    session.limits.maxLmrBlockSize());
            boolean supported = switch (request.op()) {
                case SEND -> true;
                case WRITE -> session.limits.maxRdmaSize() > 0;
                case READ -> session.limits.maxRdmaSize() > 0 && attr.maxRdmaReadIn() > 0;
            };
            String doing = "serving " + who;
            String refusal = request.version() != VERSION ? "its protocol version is " + request.version()
                    + ", not " + VERSION
                    : !supported ? "op " + request.op().cliName() + " is not supported here"
                    : request.maxSize() > limit ? "its largest size, " + request.maxSize() + " bytes, is above "
                            + limit + " (op " + request.op().cliName() + ")"
                    : null;
            if (refusal != null) {
                // Accept, with the reason in the private data: a rejected client could not tell it from a server
                // that is not listening yet, and would try again until its timeout.
                accept(cr, s, request.version() != VERSION ? BAD_VERSION : supported ? TOO_LARGE : UNSUPPORTED_OP,
                        0, limit);
                awaitEnd(s.connectEvd, END_GRACE_NANOS);
                throw new PerfCommand.PerfException(doing + ": refused the plan: " + refusal);
            }
            session.allocate(bufferBytes(request.maxSize(), request.sizeCount()), remotePrivileges(request.op()));
            s.peerRmrContext = request.rmrContext();
            s.peerAddress = request.address();
            check(s.ep.postRecv(1, s.rxIov, 0, DatCompletionFlags.DEFAULT), doing, "dat_ep_post_recv");
            accept(cr, s, OK, s.rxLmr.rmrContext(), s.rxLmr.address());
            PerfSession.expect(s.connectEvd, DatEventType.CONNECTION_EVENT_ESTABLISHED, doing, "the accepting EP",
                    timeoutNanos);
            DatEvent planMessage = PerfSession.expect(s.recvEvd, DatEventType.DTO_COMPLETION, doing,
                    "the receive of the plan", timeoutNanos);
            PerfPlan plan = plan(request, s.rx, planMessage.transferredLength(), doing);
            clear(s);
            engine = new PerfEngine(plan, session);
            engine.prepost();
            s.tx.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, READY);
            s.txIov.set(0, s.txLmr, 0, Long.BYTES);
            check(s.ep.postSend(1, s.txIov, 0, DatCompletionFlags.DEFAULT), doing, "dat_ep_post_send");
            PerfSession.expect(s.requestEvd, DatEventType.DTO_COMPLETION, doing, "the ready message's send",
                    timeoutNanos);
            s.tx.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0L);
            s.txIov.set(0, s.txLmr, 0, s.txLmr.length());
            boolean ended = engine.run(row -> { });
            if (engine.failure() != null) {
                throw new PerfCommand.PerfException(doing + ": " + engine.failure()
                        + (ended ? "" : "; a worker thread did not stop and was left behind"));
            }
            // A one-sided test (RDMA bw, rate and read) runs without this node: it ends when the client goes.
            long wait = engine.needsResponder() ? END_GRACE_NANOS
                    : plan.timeoutNanos() * plan.sizes().length + END_GRACE_NANOS;
            if (!awaitEnd(s.connectEvd, wait) && !engine.needsResponder()) {
                throw new PerfCommand.PerfException(doing + ": the client did not disconnect within "
                        + TimeUnit.NANOSECONDS.toSeconds(wait) + " s");
            }
            return new Served(who, plan);
        } finally {
            PerfCommand.release(session, engine);
        }
    }

    /**
     * Reads and checks the plan message the client sent: every count and the timeout within what this node would
     * accept from its own command line, so a client cannot make it wait past a clock overflow.
     */
    static PerfPlan plan(Request request, MemorySegment rx, long length, String doing) {
        int n = request.sizeCount();
        if (length != planBytes(n)) {
            throw new PerfCommand.PerfException(doing + ": the plan message has " + length + " bytes, not "
                    + planBytes(n));
        }
        long timeoutNanos = rx.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        int window = rx.get(ValueLayout.JAVA_INT_UNALIGNED, 8);
        long[] sizes = new long[n];
        int[] iters = new int[n];
        int[] warmups = new int[n];
        for (int s = 0; s < n; s++) {
            sizes[s] = rx.get(ValueLayout.JAVA_LONG_UNALIGNED, 16 + 16L * s);
            iters[s] = rx.get(ValueLayout.JAVA_INT_UNALIGNED, 24 + 16L * s);
            warmups[s] = rx.get(ValueLayout.JAVA_INT_UNALIGNED, 28 + 16L * s);
            if (sizes[s] < 1 || sizes[s] > request.maxSize() || iters[s] < 1 || warmups[s] < 0) {
                throw new PerfCommand.PerfException(doing + ": the plan's size " + s + " is " + sizes[s]
                        + " bytes, " + iters[s] + " iterations, " + warmups[s] + " warm-up");
            }
        }
        if (timeoutNanos < 1 || timeoutNanos > TimeUnit.SECONDS.toNanos(OptionChecks.MAX_SECONDS) || window < 1
                || window > PerfPlan.MAX_WINDOW) {
            throw new PerfCommand.PerfException(doing + ": the plan's timeout " + timeoutNanos + " ns or window "
                    + window + " is out of range");
        }
        return new PerfPlan(request.test(), request.op(), sizes, iters, warmups, window, timeoutNanos);
    }

    private static void accept(DatCr cr, PerfSession.Side s, int status, int rmrContext, long value) {
        cr.accept(s.ep, ByteBuffer.allocate(ACCEPT_BYTES).putInt(MAGIC).putInt(status).putInt(rmrContext).putInt(0)
                .putLong(value).array());
    }

    // ------------------------------------------------------------------------------------------------ both

    /** Zeroes both buffers after the handshake's messages: the write pingpong needs them zero but for its flag. */
    private static void clear(PerfSession.Side side) {
        side.tx.fill((byte) 0);
        side.rx.fill((byte) 0);
        side.txIov.set(0, side.txLmr, 0, side.txLmr.length());
        side.rxIov.set(0, side.rxLmr, 0, side.rxLmr.length());
    }

    /** {@return whether a connection event that ends the connection came within {@code timeoutNanos}} */
    private static boolean awaitEnd(DatEvd connectEvd, long timeoutNanos) {
        DatEvent event = new DatEvent();
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || connectEvd.await(TimeUnit.NANOSECONDS.toMicros(left), 1, event)
                    != DatReturn.DAT_SUCCESS) {
                return false;
            }
            if (event.type() == DatEventType.CONNECTION_EVENT_DISCONNECTED
                    || event.type() == DatEventType.CONNECTION_EVENT_BROKEN) {
                return true;
            }
        }
    }

    private static void check(int rc, String doing, String call) {
        if (rc != DatReturn.DAT_SUCCESS) {
            throw new PerfCommand.PerfException(doing + ": " + call + " returned " + DatReturn.toString(rc));
        }
    }
}
