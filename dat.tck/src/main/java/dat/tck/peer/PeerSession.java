// SPDX-License-Identifier: Apache-2.0
package dat.tck.peer;

import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatCr;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatHandle;
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatReturn;
import dat.api.DatRmr;
import dat.api.Iov;
import dat.tck.peer.TckPeer.Outcome;
import dat.tck.peer.TckPeer.SessionReport;
import dat.tck.rules.PeerProtocol;
import dat.tck.rules.PeerProtocol.ProtocolException;
import dat.tck.rules.PeerProtocol.Request;
import dat.tck.rules.TckFixture;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

/**
 * One connection of a {@link TckPeer}: its EP, EVDs and memory, and what its command does with the messages that
 * arrive. Runs on the peer's serving thread only; {@link #progress} polls its three EVDs.
 */
final class PeerSession {

    /** Receives a session exposing a region keeps posted for command messages. */
    private static final int COMMAND_CREDITS = 4;
    /** Bytes of each command receive buffer: room for a command message and then some, to catch longer ones. */
    private static final long COMMAND_BUFFER = 64;
    /** How long a session that asked for its end waits for the connection event before it is cut off. */
    private static final long END_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private enum State { ACCEPTING, CONNECTED, ENDING, ENDED }

    private final TckPeer peer;
    private final int number;
    final Request request;
    private final Arena arena = Arena.ofShared();
    private DatEvd requestEvd;
    private DatEvd recvEvd;
    private DatEvd connectEvd;
    private DatEp ep;
    private DatLmr lmr;
    private DatLmr commandLmr;
    /** The window of {@link PeerProtocol#BIND_WINDOW}, made on the first such command. */
    private DatRmr rmr;
    private Iov iov;
    private long bufferSize;
    private int credits;
    private State state = State.ACCEPTING;
    private boolean disconnectedHere;
    private Outcome outcome;
    private String detail = "";
    private long messages;
    private long endingSince;

    private PeerSession(TckPeer peer, int number, Request request) {
        this.peer = peer;
        this.number = number;
        this.request = request;
    }

    /**
     * Checks a request's arguments against the protocol and the IA.
     *
     * @param request the request
     * @param ia the peer's IA
     * @return what is wrong, or {@code null}
     */
    static String problem(Request request, DatIa ia) {
        DatIaAttr limits = ia.query();
        return switch (request.command()) {
            case PeerProtocol.ECHO -> {
                long limit = echoLimit(limits);
                yield request.arg() < 0 || request.arg() > limit
                        ? "ECHO asks for messages of " + request.arg() + " bytes; this peer echoes 0.." + limit : null;
            }
            case PeerProtocol.EXPOSE -> {
                long max = Math.min(PeerProtocol.EXPOSE_MAX_LENGTH, Math.min(limits.maxLmrBlockSize(),
                        limits.maxRdmaSize()));
                yield request.arg() < 1 || request.arg() > max
                        ? "EXPOSE asks for a region of " + request.arg() + " bytes; this peer exposes 1.." + max : null;
            }
            case PeerProtocol.STATUS -> request.arg2() < 0 || request.arg2() > PeerProtocol.STATUS_MAX_WAIT_MILLIS
                    ? "STATUS asks to wait " + request.arg2() + " ms; the protocol allows 0.."
                            + PeerProtocol.STATUS_MAX_WAIT_MILLIS : null;
            case PeerProtocol.REJECT, PeerProtocol.DISCONNECT, PeerProtocol.FREE_QUAL, PeerProtocol.BYE -> null;
            default -> "unknown command " + request.command() + " (the protocol knows 1.." + PeerProtocol.BYE + ")";
        };
    }

    private static long echoLimit(DatIaAttr limits) {
        return Math.min(TckPeer.ECHO_LIMIT, limits.maxMessageSize());
    }

    /**
     * Sets the session up and accepts the request; on failure rejects it and returns an ended session.
     *
     * @param peer the peer
     * @param number the session number
     * @param request the checked request
     * @param cr the connection request
     * @param about for STATUS: the report of the session asked about, or {@code null}
     * @param failedBefore for BYE: how many sessions failed before this one
     * @return the session
     */
    static PeerSession open(TckPeer peer, int number, Request request, DatCr cr, SessionReport about,
                            long failedBefore) {
        PeerSession s = new PeerSession(peer, number, request);
        byte[] acceptData;
        try {
            acceptData = s.setUp(about, failedBefore);
        } catch (DatException e) {
            s.release();
            s.outcome = Outcome.FAILED;
            s.detail = "setting up: " + e.getMessage();
            s.state = State.ENDED;
            try {
                cr.reject();
            } catch (DatException gone) {
                // The requester gave up meanwhile; the setup failure is what the report says.
            }
            return s;
        }
        try {
            cr.accept(s.ep, acceptData);
        } catch (DatException e) {
            s.outcome = Outcome.FAILED;
            s.detail = "dat_cr_accept: " + e.getMessage();
            s.state = State.ENDED;
        }
        return s;
    }

    /** Creates the objects, posts the receives the command needs, and returns the accept's private data. */
    private byte[] setUp(SessionReport about, long failedBefore) {
        DatIa ia = peer.ia;
        DatIaAttr limits = ia.query();
        int qlen = Math.min(256, limits.maxEvdQlen());
        requestEvd = ia.createEvd(qlen, null, DatEvdFlags.DTO | (limits.maxRmrs() > 0 ? DatEvdFlags.RMR_BIND : 0));
        recvEvd = ia.createEvd(qlen, null, DatEvdFlags.DTO);
        connectEvd = ia.createEvd(Math.min(16, limits.maxEvdQlen()), null, DatEvdFlags.CONNECTION);
        int dtos = Math.min(2 * TckPeer.ECHO_CREDITS, limits.maxDtoPerEp());
        DatEpAttr attr = DatEpAttr.builder()
                .maxMessageSize(Math.min(PeerProtocol.EXPOSE_MAX_LENGTH, limits.maxMessageSize()))
                .maxRdmaSize(Math.min(PeerProtocol.EXPOSE_MAX_LENGTH, limits.maxRdmaSize()))
                .maxRecvDtos(dtos).maxRequestDtos(dtos)
                .maxRecvIov(1).maxRequestIov(1)
                .maxRdmaReadIov(Math.min(1, limits.maxIovSegmentsPerRdmaRead()))
                .maxRdmaWriteIov(Math.min(1, limits.maxIovSegmentsPerRdmaWrite()))
                // The remote side reads from the exposed region: this EP is the target of its reads.
                .maxRdmaReadIn(Math.min(4, limits.maxRdmaReadIn()))
                .maxRdmaReadOut(Math.min(4, limits.maxRdmaReadOut()))
                .recvCompletionFlags(DatCompletionFlags.DEFAULT).requestCompletionFlags(DatCompletionFlags.DEFAULT)
                .build();
        ep = ia.createEp(peer.pz, recvEvd, requestEvd, connectEvd, attr);
        iov = Iov.allocate(arena, 1);
        return switch (request.command()) {
            case PeerProtocol.ECHO -> {
                bufferSize = echoLimit(limits);
                credits = Math.min(TckPeer.ECHO_CREDITS, dtos);
                lmr = register(bufferSize * credits, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
                for (int i = 0; i < credits; i++) {
                    postReceive(lmr, i);
                }
                yield PeerProtocol.accept(request, 0, bufferSize, credits, 0);
            }
            case PeerProtocol.DISCONNECT -> {
                bufferSize = COMMAND_BUFFER;
                credits = 1;
                lmr = register(bufferSize, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
                postReceive(lmr, 0);
                yield PeerProtocol.accept(request, 0, 0, 0, 0);
            }
            case PeerProtocol.EXPOSE -> {
                lmr = register(request.arg(), DatMemPriv.ALL);
                MemorySegment region = lmr.segment();
                for (long i = 0; i < region.byteSize(); i++) {
                    region.set(ValueLayout.JAVA_BYTE, i, TckFixture.patternByte(request.arg2(), i));
                }
                bufferSize = COMMAND_BUFFER;
                credits = COMMAND_CREDITS;
                commandLmr = register(bufferSize * credits, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
                for (int i = 0; i < credits; i++) {
                    postReceive(commandLmr, i);
                }
                yield PeerProtocol.accept(request, lmr.rmrContext(), lmr.address(), lmr.length(), request.arg2());
            }
            case PeerProtocol.FREE_QUAL -> {
                // A qualifier dat_psp_create_any picked is free at that moment; the peer never listens there again.
                DatPsp probe = ia.createPspAny(peer.crEvd, DatPspFlags.CONSUMER);
                long free = probe.connQual();
                probe.close();
                yield PeerProtocol.accept(request, 0, free, 0, 0);
            }
            case PeerProtocol.STATUS -> about == null
                    ? PeerProtocol.accept(request, 0, 0, 0, PeerProtocol.OUTCOME_UNKNOWN)
                    : PeerProtocol.accept(request, 0, about.messages(), 0, about.outcome().code());
            case PeerProtocol.BYE -> PeerProtocol.accept(request, 0, number - 1, failedBefore, 0);
            default -> throw new IllegalStateException("unchecked command " + request.command());
        };
    }

    private DatLmr register(long size, int privileges) {
        long align = Math.max(8, peer.ia.providerAttr().optimalBufferAlignment());
        return peer.ia.createLmr(peer.pz, arena.allocate(size, align), privileges);
    }

    private void postReceive(DatLmr into, int slot) {
        int rc = ep.postRecv(1, iov.set(0, into, slot * bufferSize, bufferSize), slot, DatCompletionFlags.DEFAULT);
        if (rc != DatReturn.DAT_SUCCESS) {
            throw new DatException(DatReturn.of(rc), "dat_ep_post_recv of buffer " + slot + " returned "
                    + DatReturn.toString(rc));
        }
    }

    /** {@return whether the session is over and can be released} */
    boolean ended() {
        return state == State.ENDED;
    }

    /**
     * Takes what its EVDs hold and acts on it.
     *
     * @param event a holder to reuse
     * @return whether anything happened
     */
    boolean progress(DatEvent event) {
        if (state == State.ENDED) {
            return false;
        }
        boolean any = false;
        try {
            if (state == State.ACCEPTING) {
                // The requester may send as soon as its ESTABLISHED arrives, before this side's (on IB/RoCE the
                // first message can overtake the CM's RTU). Posts are valid only once CONNECTED, so a message
                // that came early waits on its EVD until the connection event says the session is up.
                while (state == State.ACCEPTING && dequeue(connectEvd, event)) {
                    any = true;
                    connectionEvent(event);
                }
                if (state == State.ACCEPTING) {
                    return any;
                }
            }
            // Completions before connection events: an error completion is the cause of the broken connection
            // that follows it, and the report should name the cause.
            while (state != State.ENDED && dequeue(recvEvd, event)) {
                any = true;
                received(event);
            }
            while (state != State.ENDED && dequeue(requestEvd, event)) {
                any = true;
                sent(event);
            }
            while (state != State.ENDED && dequeue(connectEvd, event)) {
                any = true;
                connectionEvent(event);
            }
        } catch (ProtocolException e) {
            fail(e.getMessage());
            any = true;
        } catch (DatException e) {
            fail(e.getMessage());
            any = true;
        }
        if (state == State.ENDING && System.nanoTime() - endingSince > END_WAIT_NANOS) {
            fail("no DAT_CONNECTION_EVENT_DISCONNECTED within " + TimeUnit.NANOSECONDS.toSeconds(END_WAIT_NANOS)
                    + " s of dat_ep_disconnect");
            state = State.ENDED;
        }
        return any;
    }

    private static boolean dequeue(DatEvd evd, DatEvent event) {
        int rc = evd.dequeue(event);
        if (rc == DatReturn.DAT_SUCCESS) {
            return true;
        }
        if (rc != DatReturn.DAT_QUEUE_EMPTY) {
            throw new DatException(DatReturn.of(rc), "dat_evd_dequeue returned " + DatReturn.toString(rc));
        }
        return false;
    }

    private void connectionEvent(DatEvent event) {
        DatEventType type = event.type();
        switch (type) {
            case CONNECTION_EVENT_ESTABLISHED -> {
                if (state == State.ACCEPTING) {
                    state = State.CONNECTED;
                }
            }
            case CONNECTION_EVENT_DISCONNECTED -> {
                if (outcome == null) {
                    outcome = disconnectedHere ? Outcome.LOCAL_DISCONNECT : Outcome.REMOTE_DISCONNECT;
                }
                state = State.ENDED;
            }
            case CONNECTION_EVENT_BROKEN -> {
                fail("the connection broke (DAT_CONNECTION_EVENT_BROKEN)");
                state = State.ENDED;
            }
            case CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR -> {
                fail("the accept did not complete (DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR)");
                state = State.ENDED;
            }
            default -> fail("unexpected connection event " + type);
        }
    }

    private void received(DatEvent event) {
        DatDtoStatus status = event.dtoStatus();
        if (status == DatDtoStatus.FLUSHED) {
            // Receives still posted when the connection ends are flushed: the end itself is reported separately.
            return;
        }
        int slot = (int) event.userCookie();
        if (status == DatDtoStatus.LOCAL_LENGTH_ERR) {
            throw new ProtocolException("a message longer than the " + bufferSize
                    + "-byte buffer this session posted (DAT_DTO_ERR_LOCAL_LENGTH)");
        }
        if (status != DatDtoStatus.SUCCESS) {
            throw new ProtocolException("a receive completed with " + status);
        }
        if (state == State.ENDING) {
            return;
        }
        long length = event.transferredLength();
        switch (request.command()) {
            case PeerProtocol.ECHO -> {
                messages++;
                send(lmr, slot * bufferSize, length, slot, "the echo of message " + messages);
            }
            case PeerProtocol.DISCONNECT -> {
                messages++;
                disconnectedHere = true;
                ep.disconnect(DatCloseFlags.GRACEFUL);
                ending();
            }
            case PeerProtocol.EXPOSE -> {
                messages++;
                MemorySegment message = commandLmr.segment().asSlice(slot * bufferSize, length);
                PeerProtocol.Command command = PeerProtocol.parseCommand(message.asByteBuffer());
                if (command.op() != PeerProtocol.SEND_BACK && command.op() != PeerProtocol.BIND_WINDOW) {
                    throw new ProtocolException("command message " + messages + ": unknown op " + command.op()
                            + " (the protocol knows " + PeerProtocol.SEND_BACK + ", SEND_BACK, and "
                            + PeerProtocol.BIND_WINDOW + ", BIND_WINDOW)");
                }
                long size = lmr.length();
                if (command.offset() < 0 || command.length() < 0 || command.offset() > size
                        || command.length() > size - command.offset()) {
                    throw new ProtocolException("command message " + messages + ": "
                            + (command.op() == PeerProtocol.SEND_BACK ? "SEND_BACK" : "BIND_WINDOW") + " of "
                            + command.length() + " bytes at offset " + command.offset() + " lies outside the " + size
                            + "-byte region");
                }
                if (command.op() == PeerProtocol.BIND_WINDOW) {
                    bindWindow(command, slot);
                } else {
                    send(lmr, command.offset(), command.length(), slot, "SEND_BACK " + messages);
                }
            }
            default -> throw new ProtocolException("a message arrived, but a " + PeerProtocol.commandName(
                    request.command()) + " session expects none");
        }
    }

    private void send(DatLmr from, long offset, long length, int slot, String what) {
        int rc = length == 0 ? ep.postSend(0, null, slot, DatCompletionFlags.DEFAULT)
                : ep.postSend(1, iov.set(0, from, offset, length), slot, DatCompletionFlags.DEFAULT);
        if (rc != DatReturn.DAT_SUCCESS) {
            throw new ProtocolException("dat_ep_post_send of " + what + " (" + length + " bytes) returned "
                    + DatReturn.toString(rc));
        }
    }

    /** BIND_WINDOW: binds the session's RMR over this connection; the bind completion sends the answer. */
    private void bindWindow(PeerProtocol.Command command, int slot) {
        if (peer.ia.query().maxRmrs() == 0) {
            answer(slot, PeerProtocol.NO_WINDOW, 0, 0);
            return;
        }
        if (rmr == null) {
            rmr = peer.pz.createRmr();
        }
        int rc = rmr.bind(lmr, command.offset(), command.length(), DatMemPriv.REMOTE_READ | DatMemPriv.REMOTE_WRITE,
                ep, slot, DatCompletionFlags.DEFAULT);
        if (rc != DatReturn.DAT_SUCCESS) {
            throw new ProtocolException("dat_rmr_bind of [" + command.offset() + ", +" + command.length()
                    + ") returned " + DatReturn.toString(rc));
        }
    }

    /** Sends a command-form answer from the command slot {@code slot}, whose receive is posted again once sent. */
    private void answer(int slot, int op, long offset, long length) {
        PeerProtocol.command(commandLmr.segment().asSlice(slot * bufferSize, PeerProtocol.COMMAND_SIZE)
                .asByteBuffer(), op, offset, length);
        send(commandLmr, slot * bufferSize, PeerProtocol.COMMAND_SIZE, slot, "the answer to BIND_WINDOW");
    }

    private void sent(DatEvent event) {
        if (event.type() == DatEventType.RMR_BIND_COMPLETION) {
            if (event.dtoStatus() != DatDtoStatus.SUCCESS) {
                throw new ProtocolException("dat_rmr_bind completed with " + event.dtoStatus());
            }
            answer((int) event.userCookie(), PeerProtocol.WINDOW_BOUND, Integer.toUnsignedLong(rmr.rmrContext()),
                    rmr.query().virtualAddress());
            return;
        }
        DatDtoStatus status = event.dtoStatus();
        if (status == DatDtoStatus.FLUSHED) {
            return;
        }
        if (status != DatDtoStatus.SUCCESS) {
            throw new ProtocolException("a send completed with " + status);
        }
        if (state != State.ENDING) {
            // The buffer the message was sent from (ECHO) or the command slot (EXPOSE) is free again.
            postReceive(request.command() == PeerProtocol.EXPOSE ? commandLmr : lmr, (int) event.userCookie());
        }
    }

    private void ending() {
        if (state != State.ENDING) {
            state = State.ENDING;
            endingSince = System.nanoTime();
        }
    }

    /** Records the first failure and cuts the connection; the disconnect event then ends the session. */
    private void fail(String why) {
        if (outcome == null) {
            outcome = Outcome.FAILED;
            detail = why;
        }
        if (state == State.ACCEPTING || state == State.CONNECTED) {
            ending();
            try {
                ep.disconnect(DatCloseFlags.ABRUPT);
            } catch (DatException e) {
                state = State.ENDED;
            }
        }
    }

    /** The peer stopped with this session still connected. */
    void stopped() {
        if (outcome == null && state != State.ENDED) {
            outcome = Outcome.STOPPED;
        }
        state = State.ENDED;
    }

    /** {@return the report; the session has ended} */
    SessionReport report() {
        return new SessionReport(number, PeerProtocol.commandName(request.command()), request.token(),
                outcome == null ? Outcome.STOPPED : outcome, messages, detail);
    }

    /** {@code dat_ep_free}, then the EVDs and LMRs, then the memory; a failure to free fails the session. */
    void release() {
        DatHandle[] handles = {ep, rmr, requestEvd, recvEvd, connectEvd, lmr, commandLmr};
        for (DatHandle h : handles) {
            if (h == null) {
                continue;
            }
            try {
                h.close();
            } catch (DatException e) {
                if (outcome == null || outcome.clean()) {
                    outcome = Outcome.FAILED;
                    detail = "freeing " + h.handleType() + ": " + e.getMessage();
                }
            }
        }
        arena.close();
    }
}
