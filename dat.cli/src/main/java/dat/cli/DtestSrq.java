// SPDX-License-Identifier: Apache-2.0
package dat.cli;

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
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.Iov;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * OFA uDAPL's {@code dtestsrq} protocol (dapl 2.1.10, {@code test/dtest/dtestsrq.c}, RC with an SRQ, its default
 * mode), either role, over any jDAT IA, wire-compatible with the C {@code dtestsrq} and {@code dtestsrq -h HOST}.
 *
 * <ol>
 *   <li>Both sides create {@code connections} EPs on one SRQ and post {@code connections * burst_size} receives of
 *       {@code buf_len} bytes to it (cookie = buffer index).</li>
 *   <li>The client connects EP {@code i} to conn_qual 45248 with 4 bytes of private data, {@code i} big-endian; the
 *       server accepts each request onto its EP {@code i} with the same 4 bytes. No bootstrap.</li>
 *   <li>Per burst: the client sends {@code burst_size} messages per EP, each {@code buf_len} bytes with byte 0 =
 *       0x55, bytes 4..7 = the EP's index and 8..11 = the EP's message number (from 1), big-endian; every
 *       receiver checks each message's length, header, EP index and that each EP's numbers follow each other,
 *       and re-posts the buffer to the SRQ under the same cookie; the server then answers each with 0xAA. Both
 *       wait for their sends' completions. The bytes C never initialises (1..3, 12 on) are not the protocol's.</li>
 *   <li>The client disconnects each EP; the server waits for a DISCONNECTED per EP.</li>
 * </ol>
 */
final class DtestSrq {

    /** dtestsrq's {@code SERVER_CONN_QUAL}. */
    static final long CONN_QUAL = 45248;
    /** dtestsrq's {@code MAX_CONN}. */
    static final int MAX_CONNECTIONS = 100;
    /** dtestsrq's {@code MAX_BURST}. */
    static final int MAX_BURST = 100;
    /** The header of what fits before the message numbers. */
    static final int HEADER = 12;

    /**
     * What a run does.
     *
     * @param server the server's role, else the client's ({@code -h})
     * @param host the server, for the client
     * @param bufLen {@code -b}: bytes of each message (C's default is the IB MTU its provider reports)
     * @param connections {@code -c}
     * @param bursts {@code -t}
     * @param burstSize {@code -B}
     * @param connQual {@code -p}
     * @param timeoutNanos bound of each wait
     */
    record Config(boolean server, String host, int bufLen, int connections, int bursts, int burstSize,
                  long connQual, long timeoutNanos) {
    }

    private final DatIa ia;
    private final Config cfg;
    private final PrintWriter out;
    private final String role;
    private final Arena arena = Arena.ofShared();
    private final DatEvent event = new DatEvent();
    private final List<DatEp> eps = new ArrayList<>();
    private DatPz pz;
    private DatSrq srq;
    private DatEvd recvEvd;
    private DatEvd requestEvd;
    private DatEvd connectEvd;
    private MemorySegment rbuf;
    private MemorySegment sbuf;
    private DatLmr rbufLmr;
    private DatLmr sbufLmr;
    private Iov iov;
    private int[] lastMessage;

    DtestSrq(DatIa ia, Config cfg, PrintWriter out) {
        this.ia = ia;
        this.cfg = cfg;
        this.out = out;
        this.role = cfg.server() ? "server" : "client";
    }

    /**
     * Runs the protocol to the end.
     *
     * @throws Dtest.Failure at the first check that fails
     */
    void run() {
        try {
            setUp();
            if (cfg.server()) {
                accept();
            } else {
                request();
            }
            say("ALL " + cfg.connections() + " CONNECTED");
            exchange();
            disconnect();
            say("DAPL Test Complete. PASSED");
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
            arena.close();
        }
    }

    private void say(String line) {
        out.println("dat dtestsrq: " + role + ": " + line);
        out.flush();
    }

    private void setUp() {
        DatIaAttr limits = ia.query();
        pz = ia.createPz();
        int messages = cfg.connections() * cfg.burstSize();
        int qlen = Math.min(limits.maxEvdQlen(), Math.max(8, messages * 2));
        recvEvd = ia.createEvd(qlen, null, DatEvdFlags.DTO);
        requestEvd = ia.createEvd(qlen, null, DatEvdFlags.DTO);
        connectEvd = ia.createEvd(Math.min(limits.maxEvdQlen(), Math.max(8, cfg.connections() * 2)), null,
                DatEvdFlags.CONNECTION);
        srq = ia.createSrq(pz, new DatSrqAttr(messages, 1, 0));
        long bytes = (long) cfg.bufLen() * messages;
        rbuf = arena.allocate(Math.max(4096, bytes), 4096);
        sbuf = arena.allocate(Math.max(4096, bytes), 4096);
        int local = DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE;
        rbufLmr = ia.createLmr(pz, rbuf, local);
        sbufLmr = ia.createLmr(pz, sbuf, local);
        iov = Iov.allocate(arena, 1);
        DatEpAttr attr = DatEpAttr.builder()
                .maxMessageSize(Math.min(limits.maxMessageSize(), cfg.bufLen()))
                .maxRequestDtos(cfg.server() ? cfg.burstSize() : messages)
                .maxRecvDtos(cfg.server() ? cfg.burstSize() : messages)
                .maxRdmaReadIn(0)
                .maxRdmaReadOut(0)
                .build();
        for (int i = 0; i < cfg.connections(); i++) {
            eps.add(ia.createEpWithSrq(pz, recvEvd, requestEvd, connectEvd, srq, attr));
        }
        for (int i = 0; i < messages; i++) {
            postRecv(i);
        }
        lastMessage = new int[cfg.connections()];
    }

    private void postRecv(long index) {
        iov.set(0, rbufLmr, cfg.bufLen() * index, cfg.bufLen());
        check(srq.postRecv(1, iov, index), "dat_srq_post_recv of buffer " + index);
    }

    /** {@return the 4 bytes of private data that name EP {@code i}} */
    static byte[] epIndex(int i) {
        return new byte[] {(byte) (i >>> 24), (byte) (i >>> 16), (byte) (i >>> 8), (byte) i};
    }

    private void accept() {
        DatEvd crEvd = ia.createEvd(Math.max(8, cfg.connections() * 2), null, DatEvdFlags.CR);
        DatPsp psp = ia.createPsp(cfg.connQual(), crEvd, DatPspFlags.CONSUMER);
        try {
            say("ready on conn_qual " + cfg.connQual());
            boolean[] taken = new boolean[cfg.connections()];
            for (int i = 0; i < cfg.connections(); i++) {
                await(crEvd, "connection request " + i);
                expectType(DatEventType.CONNECTION_REQUEST_EVENT, "the CR EVD");
                if (event.connQual() != cfg.connQual()) {
                    throw new Dtest.Failure("a request arrived on conn_qual " + event.connQual());
                }
                DatCr cr = event.cr();
                byte[] data = cr.query().privateData();
                int ep = index(data);
                if (ep < 0 || ep >= cfg.connections() || taken[ep]) {
                    cr.reject();
                    throw new Dtest.Failure("connection request private data names EP " + ep + " of "
                            + cfg.connections() + (ep >= 0 && ep < taken.length ? " twice" : ""));
                }
                taken[ep] = true;
                cr.accept(eps.get(ep), epIndex(ep));
            }
            for (int i = 0; i < cfg.connections(); i++) {
                await(connectEvd, "ESTABLISHED " + i);
                expectType(DatEventType.CONNECTION_EVENT_ESTABLISHED, "the connect EVD");
            }
        } finally {
            psp.close();
            crEvd.close();
        }
    }

    /** {@return the EP index private data names (4 big-endian bytes, zero padding after), or -1} */
    static int index(byte[] data) {
        if (data == null || data.length < 4) {
            return -1;
        }
        for (int i = 4; i < data.length; i++) {
            if (data[i] != 0) {
                return -1;
            }
        }
        int v = (data[0] & 0xFF) << 24 | (data[1] & 0xFF) << 16 | (data[2] & 0xFF) << 8 | (data[3] & 0xFF);
        return v < 0 ? -1 : v;
    }

    private void request() {
        InetAddress server;
        try {
            server = InetAddress.getByName(cfg.host());
        } catch (UnknownHostException e) {
            throw new Dtest.Failure("cannot resolve " + cfg.host());
        }
        long deadline = System.nanoTime() + cfg.timeoutNanos();
        for (int i = 0; i < cfg.connections(); i++) {
            DatEp ep = eps.get(i);
            while (true) {
                ep.connect(server, cfg.connQual(), TimeUnit.NANOSECONDS.toMicros(cfg.timeoutNanos()), epIndex(i),
                        DatQos.BEST_EFFORT, 0);
                await(connectEvd, "the connection of EP " + i);
                if (event.type() == DatEventType.CONNECTION_EVENT_ESTABLISHED) {
                    break;
                }
                // Started with the C server at about the same time: retry while it does not listen yet.
                if ((event.type() != DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED
                        && event.type() != DatEventType.CONNECTION_EVENT_UNREACHABLE) || System.nanoTime() > deadline) {
                    throw new Dtest.Failure("connecting EP " + i + " ended in " + event.type());
                }
                ep.reset();
                sleep(200);
            }
            if (index(event.privateData()) != i) {
                throw new Dtest.Failure("the accept of EP " + i + " carried "
                        + (event.privateData() == null ? 0 : event.privateData().length)
                        + " bytes naming EP " + index(event.privateData()));
            }
        }
    }

    private void exchange() {
        byte expectedHeader = cfg.server() ? 0x55 : (byte) 0xaa;
        int sent = 0;
        for (int b = 0; b < cfg.bursts(); b++) {
            long offset = 0;
            if (!cfg.server()) {
                offset = sendAll(0x55, sent);
            }
            for (int n = 0; n < cfg.connections() * cfg.burstSize(); n++) {
                await(recvEvd, "message " + n + " of burst " + b);
                if (event.type() != DatEventType.DTO_COMPLETION || event.dtoStatus() != DatDtoStatus.SUCCESS
                        || event.transferredLength() != cfg.bufLen()) {
                    throw new Dtest.Failure("burst " + b + ": expected a successful receive of " + cfg.bufLen()
                            + " bytes, got " + event);
                }
                long index = event.userCookie();
                if (index < 0 || index >= (long) cfg.connections() * cfg.burstSize()) {
                    throw new Dtest.Failure("burst " + b + ": a receive completed with unknown cookie " + index);
                }
                MemorySegment m = rbuf.asSlice(cfg.bufLen() * index, cfg.bufLen());
                byte header = m.get(ValueLayout.JAVA_BYTE, 0);
                int ep = m.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 4);
                int number = m.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 8);
                if (ep < 0 || ep >= cfg.connections()) {
                    throw new Dtest.Failure("burst " + b + ": a message names EP " + ep);
                }
                if (eps.get(ep) != event.ep()) {
                    throw new Dtest.Failure("burst " + b + ": the message for EP " + ep + " arrived on another EP");
                }
                if (lastMessage[ep] + 1 != number) {
                    throw new Dtest.Failure("EP " + ep + " got message " + number + ", expected "
                            + (lastMessage[ep] + 1));
                }
                lastMessage[ep] = number;
                if (header != expectedHeader) {
                    throw new Dtest.Failure("EP " + ep + " message " + number + " header 0x"
                            + Integer.toHexString(header & 0xFF) + ", expected 0x"
                            + Integer.toHexString(expectedHeader & 0xFF));
                }
                postRecv(index);
            }
            if (cfg.server()) {
                offset = sendAll(0xaa, sent);
            }
            if (offset != (long) cfg.bufLen() * cfg.connections() * cfg.burstSize()) {
                throw new IllegalStateException("every EP sent a burst");
            }
            sent += cfg.burstSize();
            for (int n = 0; n < cfg.connections() * cfg.burstSize(); n++) {
                await(requestEvd, "send completion " + n + " of burst " + b);
                if (event.type() != DatEventType.DTO_COMPLETION || event.dtoStatus() != DatDtoStatus.SUCCESS
                        || event.transferredLength() != cfg.bufLen()) {
                    throw new Dtest.Failure("burst " + b + ": expected a successful send of " + cfg.bufLen()
                            + " bytes, got " + event);
                }
            }
        }
        say(cfg.bursts() + " bursts of " + cfg.burstSize() + " messages on " + cfg.connections()
                + " EPs checked");
    }

    /** Sends a burst on every EP; {@return the bytes of sbuf used} */
    private long sendAll(int header, int sentBefore) {
        long offset = 0;
        for (int ep = 0; ep < cfg.connections(); ep++) {
            for (int i = 0; i < cfg.burstSize(); i++) {
                MemorySegment m = sbuf.asSlice(offset, cfg.bufLen());
                m.fill((byte) 0);
                m.set(ValueLayout.JAVA_BYTE, 0, (byte) header);
                m.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 4, ep);
                m.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 8, sentBefore + i + 1);
                iov.set(0, sbufLmr, offset, cfg.bufLen());
                check(eps.get(ep).postSend(1, iov, offset, DatCompletionFlags.DEFAULT), "dat_ep_post_send EP " + ep);
                offset += cfg.bufLen();
            }
        }
        return offset;
    }

    private void disconnect() {
        for (int i = 0; i < cfg.connections(); i++) {
            if (!cfg.server()) {
                eps.get(i).disconnect(DatCloseFlags.ABRUPT);
            }
            await(connectEvd, "the disconnect of EP " + i);
            expectType(DatEventType.CONNECTION_EVENT_DISCONNECTED, "the connect EVD");
            if (!eps.contains(event.ep())) {
                throw new Dtest.Failure("DISCONNECTED for an EP this run did not create");
            }
        }
    }

    private void await(DatEvd evd, String what) {
        int rc = evd.await(Math.min(TimeUnit.NANOSECONDS.toMicros(cfg.timeoutNanos()), 0xFFFF_FFFEL), 1, event);
        if (rc != DatReturn.DAT_SUCCESS) {
            throw new Dtest.Failure("waiting for " + what + ": " + DatReturn.toString(rc));
        }
    }

    private void expectType(DatEventType type, String where) {
        if (event.type() != type) {
            throw new Dtest.Failure("expected " + type + " on " + where + ", got " + event);
        }
    }

    private static void check(int rc, String what) {
        if (rc != DatReturn.DAT_SUCCESS) {
            throw new Dtest.Failure(what + " returned " + DatReturn.toString(rc));
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Dtest.Failure("interrupted");
        }
    }
}
