// SPDX-License-Identifier: Apache-2.0
package dat.tck.peer;

import dat.api.DatCr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.registry.peer.PeerAddress;
import dat.tck.TckContext;
import dat.tck.rules.PeerProtocol;
import dat.tck.rules.PeerProtocol.ProtocolException;
import dat.tck.rules.PeerProtocol.Request;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The remote end of the kit's cross-node rules: a responder that listens on a PSP of one IA and serves the
 * connection requests of a TCK run on another node ({@code dat tck --peer HOST:CONN_QUAL}, or the configuration
 * parameter {@value TckContext#PEER}). {@code dat tck-peer} runs it.
 *
 * <p>Each connection request is one session. Its private data names a command: echo every message; reject the
 * request; accept and disconnect from this side on the first message; expose a registered region (its
 * {@code rmr_context}, address and length go back in the accept's private data) so the remote side can RDMA-write
 * into it, RDMA-read its known pattern, and ask for its bytes to be sent back; name a connection qualifier
 * nothing listens on; report how an earlier session ended; and "bye", which stops the peer. The byte layouts
 * and the table of commands are in {@code dat.tck.rules.PeerProtocol}; private data never exceeds
 * {@value dat.tck.rules.PeerProtocol#PRIVATE_DATA_SIZE} bytes either way.
 *
 * <p>Bad or unexpected input (a request whose private data does not check out, an unknown command, a message
 * above the announced limit, a command outside the exposed region, an error completion) ends that session, with a
 * message saying what was wrong, never the peer. Sessions are served together and one after another.
 *
 * <p>Every DAT call is made on the thread that calls {@link #open} and {@link #serve}, in turn (the peer polls
 * its EVDs with {@code dat_evd_dequeue}), so the peer needs no thread-safe provider; only {@link #stop()} may be
 * called from another thread.
 *
 * <pre>{@code
 * boolean clean;
 * try (DatIa ia = DatRegistry.load().open("verbs0"); TckPeer peer = TckPeer.open(ia, 7471)) {
 *     clean = peer.serve(Duration.ofMinutes(15), report -> System.out.println(report)).clean();
 * }
 * System.exit(clean ? 0 : 1); // after the IA is closed: a provider's threads may be inside native calls until then
 * }</pre>
 */
public final class TckPeer implements AutoCloseable {

    /** Largest message an echo session accepts (less when the IA's {@code max_message_size} is smaller). */
    public static final long ECHO_LIMIT = 64 * 1024;
    /** Receives an echo session keeps posted: how many messages may be in flight. */
    public static final int ECHO_CREDITS = 16;
    /** How long the peer lets other sessions end after the "bye" session ended, in milliseconds. */
    static final long BYE_GRACE_MILLIS = 2_000;
    /** Longest idle pause of the polling loop, in microseconds: bounds the latency the peer adds when idle. */
    private static final long MAX_IDLE_PARK_MICROS = 1_000;

    final DatIa ia;
    final DatPz pz;
    final DatEvd crEvd;
    private final DatPsp psp;
    private volatile boolean stopRequested;
    private boolean closed;

    private TckPeer(DatIa ia, DatPz pz, DatEvd crEvd, DatPsp psp) {
        this.ia = ia;
        this.pz = pz;
        this.crEvd = crEvd;
        this.psp = psp;
    }

    /**
     * How a session ended.
     */
    public enum Outcome {
        /** The request was rejected as it asked. */
        REJECTED(PeerProtocol.OUTCOME_REJECTED),
        /** The remote side disconnected. */
        REMOTE_DISCONNECT(PeerProtocol.OUTCOME_REMOTE_DISCONNECT),
        /** The peer disconnected as the session asked. */
        LOCAL_DISCONNECT(PeerProtocol.OUTCOME_LOCAL_DISCONNECT),
        /** Bad input, an error completion or a broken connection; the report says which. */
        FAILED(PeerProtocol.OUTCOME_FAILED),
        /** Still connected when the peer stopped. */
        STOPPED(PeerProtocol.OUTCOME_RUNNING);

        private final int code;

        Outcome(int code) {
            this.code = code;
        }

        /** {@return the protocol's code for it, as a STATUS request reports it} */
        int code() {
            return code;
        }

        /** {@return whether this ending is no fault of either side} */
        public boolean clean() {
            return this != FAILED && this != STOPPED;
        }
    }

    /**
     * One ended session.
     *
     * @param number the session's number, from 1, in order of arrival
     * @param command the command it carried ({@code ECHO}, ...), or {@code ?} when the request was unreadable
     * @param token the remote side's token for it, 0 when unreadable
     * @param outcome how it ended
     * @param messages messages it handled (echoed, triggering, or commands served)
     * @param detail what went wrong, or empty
     */
    public record SessionReport(int number, String command, long token, Outcome outcome, long messages,
                                String detail) {

        /** Checks the fields. */
        public SessionReport {
            Objects.requireNonNull(command, "command");
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(detail, "detail");
        }

        /** {@return whether the session ended cleanly} */
        public boolean clean() {
            return outcome.clean();
        }

        /** {@return one line: number, command, token, outcome, messages, and what went wrong} */
        @Override
        public String toString() {
            String head = String.format(Locale.ROOT, "session %d %s token=0x%x: ", number, command, token);
            String ending = switch (outcome) {
                case REJECTED -> "rejected as asked";
                case REMOTE_DISCONNECT -> "ok, ended by the remote disconnect";
                case LOCAL_DISCONNECT -> "ok, ended by the peer's disconnect as asked";
                case FAILED -> "FAILED";
                case STOPPED -> "FAILED, still connected when the peer stopped";
            };
            return head + ending + ", " + messages + (messages == 1 ? " message" : " messages")
                    + (detail.isEmpty() ? "" : ": " + detail);
        }
    }

    /**
     * What a {@link #serve} call did.
     *
     * @param byeReceived whether a remote run said "bye"
     * @param timedOut whether the timeout ended it
     * @param sessions every session, in the order they ended
     */
    public record Summary(boolean byeReceived, boolean timedOut, List<SessionReport> sessions) {

        /** Makes the list immutable. */
        public Summary {
            sessions = List.copyOf(sessions);
        }

        /** {@return whether a remote run said "bye" and every session ended cleanly} */
        public boolean clean() {
            return byeReceived && sessions.stream().allMatch(SessionReport::clean);
        }

        /** {@return the sessions that did not end cleanly} */
        public List<SessionReport> failures() {
            return sessions.stream().filter(s -> !s.clean()).toList();
        }
    }

    /**
     * {@code dat_psp_create}: starts listening on {@code connQual} of {@code ia}.
     *
     * @param ia an open IA; the caller keeps it and closes it after the peer
     * @param connQual the connection qualifier remote runs connect to
     * @return the peer, listening
     * @throws DatException as {@code dat_pz_create}, {@code dat_evd_create} or {@code dat_psp_create} (for
     *     example {@link DatReturn#CONN_QUAL_IN_USE})
     */
    public static TckPeer open(DatIa ia, long connQual) {
        Objects.requireNonNull(ia, "ia");
        DatPz pz = ia.createPz();
        DatEvd crEvd = null;
        try {
            crEvd = ia.createEvd(Math.min(64, ia.query().maxEvdQlen()), null, DatEvdFlags.CR);
            return new TckPeer(ia, pz, crEvd, ia.createPsp(connQual, crEvd, DatPspFlags.CONSUMER));
        } catch (RuntimeException e) {
            if (crEvd != null) {
                crEvd.close();
            }
            pz.close();
            throw e;
        }
    }

    /** {@return the qualifier the peer listens on} */
    public long connQual() {
        return psp.connQual();
    }

    /** {@return where remote runs reach the peer: the IA's address and the qualifier} */
    public PeerAddress address() {
        return new PeerAddress(ia.address(), psp.connQual());
    }

    /** Asks {@link #serve} to stop soon; it then reports sessions still connected as {@link Outcome#STOPPED}. */
    public void stop() {
        stopRequested = true;
    }

    /**
     * Serves connection requests until a remote run says "bye" (and its session and the others have ended, or
     * {@value #BYE_GRACE_MILLIS} ms later), {@code timeout} expires, or {@link #stop()} is called.
     *
     * @param timeout how long to serve at most
     * @param reporter told about each session as it ends, on this thread; may be {@code null}
     * @return what happened
     * @throws DatException when the peer's own PSP or CR EVD fails (not a session's objects)
     */
    public Summary serve(Duration timeout, Consumer<SessionReport> reporter) {
        Objects.requireNonNull(timeout, "timeout");
        Loop loop = new Loop(reporter);
        return loop.run(System.nanoTime() + Math.max(0, timeout.toNanos()));
    }

    /** {@code dat_psp_free} and {@code dat_evd_free} of the peer's own objects; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            psp.close();
        } finally {
            try {
                crEvd.close();
            } finally {
                pz.close();
            }
        }
    }

    /** A STATUS request whose accept waits for the session it asks about. */
    private record PendingStatus(int number, DatCr cr, Request request, long deadlineNanos) {
    }

    /** One {@link #serve} call's state; lives on the serving thread only. */
    private final class Loop {
        private final Consumer<SessionReport> reporter;
        private final List<PeerSession> live = new ArrayList<>();
        private final List<PendingStatus> pending = new ArrayList<>();
        private final List<SessionReport> reports = new ArrayList<>();
        private final Map<Long, SessionReport> byToken = new HashMap<>();
        private final DatEvent event = new DatEvent();
        private int sessions;
        private PeerSession byeSession;
        private boolean byeReceived;
        private long byeEndedAt;

        Loop(Consumer<SessionReport> reporter) {
            this.reporter = reporter;
        }

        Summary run(long deadline) {
            boolean timedOut = false;
            long park = 1;
            try {
                while (!stopRequested) {
                    long now = System.nanoTime();
                    if (now - deadline >= 0) {
                        timedOut = true;
                        break;
                    }
                    boolean busy = takeRequests();
                    busy |= answerStatuses(now, false);
                    for (PeerSession s : live) {
                        busy |= s.progress(event);
                    }
                    busy |= reap();
                    if (byeDone(now)) {
                        break;
                    }
                    if (busy) {
                        park = 1;
                    } else {
                        // Idle: back off to at most a millisecond, so a peer waiting for minutes costs no core.
                        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(park));
                        park = Math.min(MAX_IDLE_PARK_MICROS, park * 2);
                    }
                }
            } finally {
                shutDown();
            }
            return new Summary(byeReceived, timedOut, reports);
        }

        private boolean byeDone(long now) {
            if (byeSession == null || !byeSession.ended()) {
                return false;
            }
            if (byeEndedAt == 0) {
                byeEndedAt = now;
            }
            return (live.isEmpty() && pending.isEmpty())
                    || now - byeEndedAt > TimeUnit.MILLISECONDS.toNanos(BYE_GRACE_MILLIS);
        }

        private boolean takeRequests() {
            boolean any = false;
            while (true) {
                int rc = crEvd.dequeue(event);
                if (rc == DatReturn.DAT_QUEUE_EMPTY) {
                    return any;
                }
                if (rc != DatReturn.DAT_SUCCESS) {
                    throw new DatException(DatReturn.of(rc), "dat_evd_dequeue on the peer's CR EVD returned "
                            + DatReturn.toString(rc));
                }
                any = true;
                if (event.type() == DatEventType.CONNECTION_REQUEST_EVENT) {
                    request(event.cr());
                }
            }
        }

        private void request(DatCr cr) {
            int number = ++sessions;
            Request request;
            try {
                request = PeerProtocol.parseRequest(cr.query().privateData());
            } catch (ProtocolException | DatException e) {
                refuse(cr);
                report(new SessionReport(number, "?", 0, Outcome.FAILED, 0, e.getMessage()));
                return;
            }
            String name = PeerProtocol.commandName(request.command());
            String problem = PeerSession.problem(request, ia);
            if (problem != null) {
                refuse(cr);
                report(new SessionReport(number, name, request.token(), Outcome.FAILED, 0, problem));
                return;
            }
            switch (request.command()) {
                case PeerProtocol.REJECT -> {
                    try {
                        cr.reject();
                        report(new SessionReport(number, name, request.token(), Outcome.REJECTED, 0, ""));
                    } catch (DatException e) {
                        report(new SessionReport(number, name, request.token(), Outcome.FAILED, 0,
                                "dat_cr_reject: " + e.getMessage()));
                    }
                }
                case PeerProtocol.STATUS -> pending.add(new PendingStatus(number, cr, request,
                        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(request.arg2())));
                default -> accept(number, cr, request, null);
            }
        }

        private void accept(int number, DatCr cr, Request request, SessionReport about) {
            PeerSession session = PeerSession.open(TckPeer.this, number, request, cr, about,
                    reports.stream().filter(r -> !r.clean()).count());
            if (session.ended()) {
                report(session.report());
                return;
            }
            live.add(session);
            if (request.command() == PeerProtocol.BYE) {
                byeReceived = true;
                byeSession = session;
            }
        }

        /** Answers the STATUS requests whose session ended, or whose wait is over ({@code all}: every one). */
        private boolean answerStatuses(long now, boolean all) {
            boolean any = false;
            for (Iterator<PendingStatus> it = pending.iterator(); it.hasNext(); ) {
                PendingStatus p = it.next();
                SessionReport about = byToken.get(p.request().arg());
                boolean running = live.stream().anyMatch(s -> s.request.token() == p.request().arg());
                if (about == null && running && !all && now - p.deadlineNanos() < 0) {
                    continue;
                }
                it.remove();
                any = true;
                if (about == null && running) {
                    about = new SessionReport(0, "?", p.request().arg(), Outcome.STOPPED, 0, "");
                }
                if (all) {
                    refuse(p.cr());
                    report(new SessionReport(p.number(), "STATUS", p.request().token(), Outcome.STOPPED, 0,
                            "the peer stopped before answering"));
                } else {
                    accept(p.number(), p.cr(), p.request(), about);
                }
            }
            return any;
        }

        private boolean reap() {
            boolean any = false;
            for (Iterator<PeerSession> it = live.iterator(); it.hasNext(); ) {
                PeerSession s = it.next();
                if (s.ended()) {
                    it.remove();
                    s.release();
                    report(s.report());
                    any = true;
                }
            }
            return any;
        }

        private void report(SessionReport report) {
            reports.add(report);
            if (report.token() != 0) {
                byToken.put(report.token(), report);
            }
            if (reporter != null) {
                reporter.accept(report);
            }
        }

        /** Ends what is left: pending requests refused, live sessions cut off and reported. */
        private void shutDown() {
            answerStatuses(System.nanoTime(), true);
            for (PeerSession s : live) {
                s.stopped();
                s.release();
                report(s.report());
            }
            live.clear();
            DatEvent left = new DatEvent();
            while (crEvd.dequeue(left) == DatReturn.DAT_SUCCESS) {
                if (left.type() == DatEventType.CONNECTION_REQUEST_EVENT) {
                    refuse(left.cr());
                }
            }
        }

        private void refuse(DatCr cr) {
            try {
                cr.reject();
            } catch (DatException e) {
                // The requester gave up, or the request was consumed: nothing is left to refuse.
            }
        }
    }
}
