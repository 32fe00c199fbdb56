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
import dat.api.Iov;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * OFA uDAPL's {@code dtest} protocol (dapl 2.1.10, {@code test/dtest/dtest.c}, its default mode: RDMA write, RDMA
 * read, then a message ping-pong), either role, over any jDAT IA, wire-compatible with the C {@code dtest -s} and
 * {@code dtest -h HOST}. Where C prints what it got, this checks every byte the protocol defines.
 *
 * <ol>
 *   <li>Bootstrap over TCP port 15828: the server writes 128 bytes, {@code "%04hx:%08x:%08x:%08x:%s"} of LID 0,
 *       QPN 0, scope 0, its IA's IPv4 address as a little-endian host's {@code s_addr}, and the dat.conf provider
 *       name the C client then opens (NUL-padded).</li>
 *   <li>The client connects to conn_qual 45248 with 48 bytes of private data {@code 1..48}; the server checks
 *       them and accepts with each byte plus one; the client checks those. Beyond 48 bytes only padding (zeros)
 *       may follow (rdma_cm hands over the whole field).</li>
 *   <li>Each side posts three 16-byte receives (cookies 0, 1, 2) and sends its receive buffer as a big-endian
 *       {@code DAT_RMR_TRIPLET} (address u64, length u32, rmr_context u32), signalled (cookie 0xaaaa).</li>
 *   <li>RDMA write: {@code burst} writes of the whole buffer to the peer's, one in {@code signal_rate}
 *       signalled with its index as cookie; then the client sends the triplet again and waits for the server's,
 *       the server waits first. The written buffer is {@code "<role> RDMA write data..."}, NUL, then 'b's.</li>
 *   <li>RDMA read: each side writes {@code "<role> RDMA read data..."} into its own buffer and reads the peer's
 *       four times (cookie 0x9999); then the triplet again, suppressed, and the peer's.</li>
 *   <li>Ping-pong: 100 receives of {@code buf_len} (cookies 0..99), a second's pause, then 100 messages, the
 *       client's first byte 0x55, the server's answer 0xAA (the rest of a C sender's message is memory it never
 *       initialised, so only that byte is the protocol's).</li>
 *   <li>The client disconnects; the server waits for the DISCONNECTED event.</li>
 * </ol>
 */
final class Dtest {

    /** dtest's {@code SERVER_CONN_QUAL}. */
    static final long CONN_QUAL = 45248;
    /** dtest's {@code CONN_PORT}: the TCP bootstrap. */
    static final int BOOTSTRAP_PORT = 15828;
    /** dtest's {@code CONN_MSG_SIZE}. */
    static final int BOOTSTRAP_BYTES = 128;
    /** Private data bytes each way. */
    static final int PRIVATE_DATA = 48;
    /** {@code sizeof(DAT_RMR_TRIPLET)} in DAT 2.0. */
    static final int TRIPLET = 16;
    /** dtest's {@code MSG_BUF_COUNT}. */
    static final int MSG_BUFS = 3;
    /** dtest's {@code MAX_RDMA_RD}. */
    static final int RDMA_READS = 4;
    /** dtest's {@code msg_burst}. */
    static final int PING_PONGS = 100;
    /** The cookie of every send. */
    static final long SEND_COOKIE = 0xaaaa;
    /** The cookie of every RDMA read. */
    static final long READ_COOKIE = 0x9999;
    private static final String BLAH = "blah, blah, blah\n";

    /**
     * What a run does.
     *
     * @param server the server's role ({@code -s}), else the client's
     * @param host the server, for the client ({@code -h})
     * @param bufLen {@code -b}: bytes of each RDMA and ping-pong message
     * @param burst {@code -B}: RDMA writes
     * @param signalRate {@code -S}: one write in this many is signalled
     * @param peerProvider {@code -P}: the provider name the server hands a C client
     * @param connQual the connection qualifier (dtest's is fixed)
     * @param bootstrapPort the TCP bootstrap port (dtest's is fixed)
     * @param timeoutNanos bound of each wait
     */
    record Config(boolean server, String host, int bufLen, int burst, int signalRate, String peerProvider,
                  long connQual, int bootstrapPort, long timeoutNanos) {
    }

    /** A check of the protocol failed; the message says which and what came instead. */
    static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message);
        }
    }

    private final DatIa ia;
    private final Config cfg;
    private final PrintWriter out;
    private final String role;
    private final String peerRole;
    private final int rqCnt;
    private final int sqCnt;
    private final Arena arena = Arena.ofShared();
    private final DatEvent event = new DatEvent();
    private DatPz pz;
    private DatEvd recvEvd;
    private DatEvd requestEvd;
    private DatEvd connectEvd;
    private DatEp ep;
    private MemorySegment rbuf;
    private MemorySegment sbuf;
    private MemorySegment sndMsg;
    private MemorySegment rcvMsg;
    private DatLmr rbufLmr;
    private DatLmr sbufLmr;
    private DatLmr sndMsgLmr;
    private DatLmr rcvMsgLmr;
    private Iov iov;
    private int recvMsgIndex;
    private final long[] peerAddress = new long[MSG_BUFS];
    private final int[] peerContext = new int[MSG_BUFS];
    private final int[] peerLength = new int[MSG_BUFS];
    /** The triplet bytes the peer sent first, which it sends again unchanged at each step. */
    private byte[] firstTriplet;

    Dtest(DatIa ia, Config cfg, PrintWriter out) {
        this.ia = ia;
        this.cfg = cfg;
        this.out = out;
        this.role = cfg.server() ? "server" : "client";
        this.peerRole = cfg.server() ? "client" : "server";
        this.rqCnt = MSG_BUFS + PING_PONGS;
        this.sqCnt = MSG_BUFS + RDMA_READS + PING_PONGS;
    }

    /**
     * Runs the protocol to the end.
     *
     * @throws Failure at the first check that fails
     */
    void run() {
        try {
            setUp();
            connect();
            rdmaWrite();
            rdmaRead();
            pingPong();
            disconnect();
            say("DAPL Test Complete. PASSED");
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
            arena.close();
        }
    }

    private void say(String line) {
        out.println("dat dtest: " + role + ": " + line);
        out.flush();
    }

    private void setUp() {
        DatIaAttr limits = ia.query();
        pz = ia.createPz();
        int qlen = Math.min(limits.maxEvdQlen(), rqCnt + sqCnt);
        recvEvd = ia.createEvd(qlen, null, DatEvdFlags.DTO);
        requestEvd = ia.createEvd(qlen, null, DatEvdFlags.DTO);
        connectEvd = ia.createEvd(Math.min(limits.maxEvdQlen(), 8), null, DatEvdFlags.CONNECTION);
        long bytes = (long) cfg.bufLen() * rqCnt;
        rbuf = arena.allocate(Math.max(4096, bytes), 4096);
        sbuf = arena.allocate(Math.max(4096, bytes), 4096);
        rbuf.asSlice(0, cfg.bufLen()).fill((byte) 'a');
        sbuf.asSlice(0, cfg.bufLen()).fill((byte) 'b');
        sndMsg = arena.allocate(4096, 4096);
        rcvMsg = arena.allocate(4096, 4096);
        int all = DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_READ | DatMemPriv.REMOTE_WRITE;
        rbufLmr = ia.createLmr(pz, rbuf, all);
        sbufLmr = ia.createLmr(pz, sbuf, all);
        sndMsgLmr = ia.createLmr(pz, sndMsg.asSlice(0, TRIPLET), DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
        rcvMsgLmr = ia.createLmr(pz, rcvMsg.asSlice(0, (long) TRIPLET * MSG_BUFS),
                DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
        iov = Iov.allocate(arena, 1);
        int reads = Math.min(RDMA_READS, Math.min(limits.maxRdmaReadIn(), limits.maxRdmaReadOut()));
        DatEpAttr attr = DatEpAttr.builder()
                .maxMessageSize(Math.min(limits.maxMessageSize(), Math.max(cfg.bufLen(), TRIPLET)))
                .maxRdmaSize(Math.min(limits.maxRdmaSize(), Math.max(cfg.bufLen(), 0x10000)))
                .maxRecvDtos(rqCnt)
                .maxRequestDtos(sqCnt)
                .maxRdmaReadIn(reads)
                .maxRdmaReadOut(reads)
                .build();
        ep = ia.createEp(pz, recvEvd, requestEvd, connectEvd, attr);
    }

    private void postMessageReceives() {
        for (int i = 0; i < MSG_BUFS; i++) {
            iov.set(0, rcvMsgLmr, (long) TRIPLET * i, TRIPLET);
            check(ep.postRecv(1, iov, i, DatCompletionFlags.DEFAULT), "dat_ep_post_recv of message buffer " + i);
        }
    }

    private void connect() {
        postMessageReceives();
        putString(rbuf, BLAH);
        if (cfg.server()) {
            accept();
        } else {
            request();
        }
        say("CONNECTED!");
        // The triplet of our receive buffer, in network order, sent at each of the protocol's three steps.
        sndMsg.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0, rbufLmr.address());
        sndMsg.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 8, cfg.bufLen());
        sndMsg.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12, rbufLmr.rmrContext());
        sendTriplet(DatCompletionFlags.DEFAULT);
        receiveTriplet("the first RMR message");
    }

    private void accept() {
        DatEvd crEvd = ia.createEvd(8, null, DatEvdFlags.CR);
        DatPsp psp = ia.createPsp(cfg.connQual(), crEvd, DatPspFlags.CONSUMER);
        try {
            // After the PSP listens (C dtest writes first): a client then never connects before anyone listens.
            bootstrapServe();
            say("waiting for a connect request on conn_qual " + cfg.connQual());
            await(crEvd, "the connection request");
            expectType(DatEventType.CONNECTION_REQUEST_EVENT, "the CR EVD");
            if (event.connQual() != cfg.connQual()) {
                throw new Failure("the request arrived on conn_qual " + event.connQual() + ", not " + cfg.connQual());
            }
            DatCr cr = event.cr();
            byte[] data = cr.query().privateData();
            String problem = checkPrivateData(data, 1);
            if (problem != null) {
                cr.reject();
                throw new Failure("connect request private data: " + problem);
            }
            cr.accept(ep, pattern(2));
            await(connectEvd, "ESTABLISHED");
            expectType(DatEventType.CONNECTION_EVENT_ESTABLISHED, "the connect EVD");
        } finally {
            psp.close();
            crEvd.close();
        }
    }

    private void request() {
        InetAddress server = bootstrapClient();
        long deadline = System.nanoTime() + cfg.timeoutNanos();
        while (true) {
            ep.connect(server, cfg.connQual(), TimeUnit.NANOSECONDS.toMicros(cfg.timeoutNanos()), pattern(1),
                    DatQos.BEST_EFFORT, 0);
            await(connectEvd, "the connection to " + server.getHostAddress());
            if (event.type() == DatEventType.CONNECTION_EVENT_ESTABLISHED) {
                break;
            }
            if ((event.type() != DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED
                    && event.type() != DatEventType.CONNECTION_EVENT_UNREACHABLE) || System.nanoTime() > deadline) {
                throw new Failure("connecting to " + server.getHostAddress() + " conn_qual " + cfg.connQual()
                        + " ended in " + event.type());
            }
            // The server listened after its bootstrap (C dtest's order): reset, take back the flushed
            // receives and try again.
            ep.reset();
            int flushed = 0;
            while (recvEvd.dequeue(event) == DatReturn.DAT_SUCCESS) {
                flushed++;
            }
            say("connect ended in " + event.type() + "; again (" + flushed + " receives flushed)");
            postMessageReceives();
            sleep(200);
        }
        String problem = checkPrivateData(event.privateData(), 2);
        if (problem != null) {
            throw new Failure("accept private data: " + problem);
        }
    }

    /** {@return the 48 bytes of private data: {@code first, first + 1, ...}} */
    static byte[] pattern(int first) {
        byte[] b = new byte[PRIVATE_DATA];
        for (int i = 0; i < PRIVATE_DATA; i++) {
            b[i] = (byte) (i + first);
        }
        return b;
    }

    /**
     * {@return why {@code data} is not the 48-byte pattern starting at {@code first} (zero padding allowed after
     * it), or {@code null}}
     */
    static String checkPrivateData(byte[] data, int first) {
        if (data == null || data.length < PRIVATE_DATA) {
            return (data == null ? 0 : data.length) + " bytes, expected " + PRIVATE_DATA;
        }
        for (int i = 0; i < data.length; i++) {
            int expected = i < PRIVATE_DATA ? (byte) (i + first) : 0;
            if (data[i] != expected) {
                return "byte " + i + " is " + Byte.toUnsignedInt(data[i]) + ", expected " + (expected & 0xFF);
            }
        }
        return null;
    }

    // ---------------------------------------------------------------------------------------------- bootstrap

    /**
     * {@return the 128-byte bootstrap message: dtest's {@code CONN_MSG_FMT} with LID, QPN and scope 0, the
     * address as a little-endian host's {@code s_addr}, and the provider name, NUL-padded}
     */
    static byte[] bootstrapMessage(InetAddress address, String provider) {
        byte[] ip = address.getAddress();
        if (ip.length != 4) {
            throw new Failure("the bootstrap carries an IPv4 address; the IA's is " + address.getHostAddress());
        }
        long sAddr = Byte.toUnsignedLong(ip[0]) | Byte.toUnsignedLong(ip[1]) << 8 | Byte.toUnsignedLong(ip[2]) << 16
                | Byte.toUnsignedLong(ip[3]) << 24;
        byte[] text = String.format("%04x:%08x:%08x:%08x:%s", 0, 0, 0, sAddr, provider)
                .getBytes(StandardCharsets.US_ASCII);
        if (text.length >= BOOTSTRAP_BYTES) {
            throw new Failure("provider name " + provider + " does not fit dtest's bootstrap message");
        }
        byte[] msg = new byte[BOOTSTRAP_BYTES];
        System.arraycopy(text, 0, msg, 0, text.length);
        return msg;
    }

    /**
     * Parses a bootstrap message as dtest's client does.
     *
     * @return the server's address and the provider name it named
     */
    static Bootstrap parseBootstrap(byte[] msg) {
        int end = 0;
        while (end < msg.length && msg[end] != 0) {
            end++;
        }
        String[] f = new String(msg, 0, end, StandardCharsets.US_ASCII).split(":", 5);
        if (f.length != 5 || f[4].isEmpty()) {
            throw new Failure("bootstrap message is not dtest's: " + Text.safe(new String(msg, 0, end,
                    StandardCharsets.US_ASCII)));
        }
        long sAddr;
        try {
            sAddr = Long.parseLong(f[3], 16);
        } catch (NumberFormatException e) {
            throw new Failure("bootstrap message's address field is not hex: " + Text.safe(f[3]));
        }
        if (sAddr == 0) {
            throw new Failure("the server sent no IPv4 address (an IB UCM server's LID/QPN is not supported)");
        }
        byte[] ip = {(byte) sAddr, (byte) (sAddr >>> 8), (byte) (sAddr >>> 16), (byte) (sAddr >>> 24)};
        try {
            return new Bootstrap(InetAddress.getByAddress(ip), f[4].split("\\s", 2)[0]);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("4 bytes are an address", e);
        }
    }

    /**
     * The bootstrap's content.
     *
     * @param address the server's IA address
     * @param provider the provider name the server opened
     */
    record Bootstrap(InetAddress address, String provider) {
    }

    private void bootstrapServe() {
        String provider = cfg.peerProvider() != null ? cfg.peerProvider() : ia.name();
        byte[] msg = bootstrapMessage(ia.address(), provider);
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            listener.setSoTimeout((int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(cfg.timeoutNanos())));
            listener.bind(new InetSocketAddress(cfg.bootstrapPort()));
            // Once bound: a harness starts a C client, which tries the bootstrap once, when it reads this line.
            say("waiting on TCP port " + cfg.bootstrapPort() + " for the client's bootstrap (provider " + provider
                    + ", address " + ia.address().getHostAddress() + ")");
            try (Socket s = listener.accept(); OutputStream o = s.getOutputStream()) {
                o.write(msg);
                o.flush();
            }
        } catch (IOException e) {
            throw new Failure("bootstrap on TCP port " + cfg.bootstrapPort() + ": " + e.getMessage());
        }
    }

    private InetAddress bootstrapClient() {
        long deadline = System.nanoTime() + cfg.timeoutNanos();
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(cfg.host(), cfg.bootstrapPort()), 5000);
                s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(cfg.timeoutNanos())));
                byte[] msg = readFully(s.getInputStream());
                Bootstrap b = parseBootstrap(msg);
                say("server " + b.address().getHostAddress() + " runs provider " + Text.safe(b.provider()));
                return b.address();
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new Failure("bootstrap from " + cfg.host() + " TCP port " + cfg.bootstrapPort() + ": "
                            + e.getMessage());
                }
                sleep(200);
            }
        }
    }

    private static byte[] readFully(InputStream in) throws IOException {
        byte[] msg = new byte[BOOTSTRAP_BYTES];
        int n = 0;
        while (n < msg.length) {
            int r = in.read(msg, n, msg.length - n);
            if (r < 0) {
                break;
            }
            n += r;
        }
        if (n == 0) {
            throw new IOException("the server closed without a message");
        }
        return msg;
    }

    // ------------------------------------------------------------------------------------------------- phases

    private void sendTriplet(int flags) {
        iov.set(0, sndMsgLmr, 0, TRIPLET);
        check(ep.postSend(1, iov, SEND_COOKIE, flags), "dat_ep_post_send of the RMR message");
        if (flags == DatCompletionFlags.DEFAULT) {
            await(requestEvd, "the RMR message's send completion");
            expectDto(TRIPLET, SEND_COOKIE, "the RMR message's send");
        }
    }

    private void receiveTriplet(String what) {
        await(recvEvd, what);
        expectDto(TRIPLET, recvMsgIndex, what);
        MemorySegment m = rcvMsg.asSlice((long) TRIPLET * recvMsgIndex, TRIPLET);
        byte[] raw = m.toArray(ValueLayout.JAVA_BYTE);
        if (firstTriplet == null) {
            firstTriplet = raw;
        } else if (!Arrays.equals(firstTriplet, raw)) {
            throw new Failure(what + " differs from the first: the peer re-sends the same triplet");
        }
        peerAddress[recvMsgIndex] = m.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0);
        peerLength[recvMsgIndex] = m.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 8);
        peerContext[recvMsgIndex] = m.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12);
        if (peerLength[recvMsgIndex] != cfg.bufLen()) {
            throw new Failure("the peer's buffer is " + peerLength[recvMsgIndex] + " bytes, this run's -b is "
                    + cfg.bufLen() + " (give both sides the same -b)");
        }
        say("received RMR from remote: r_key_ctx=" + Integer.toHexString(peerContext[recvMsgIndex]) + ",va="
                + Long.toHexString(peerAddress[recvMsgIndex]) + ",len=0x" + Integer.toHexString(cfg.bufLen()));
        recvMsgIndex++;
    }

    private void rdmaWrite() {
        int r = recvMsgIndex - 1;
        putString(sbuf, role + " RDMA write data...");
        iov.set(0, sbufLmr, 0, cfg.bufLen());
        for (int i = 0; i < cfg.burst(); i++) {
            boolean signalled = (i + 1) % cfg.signalRate() == 0;
            check(ep.postRdmaWrite(1, iov, i, peerContext[r], peerAddress[r], peerLength[r],
                    signalled ? DatCompletionFlags.DEFAULT : DatCompletionFlags.SUPPRESS),
                    "dat_ep_post_rdma_write " + i);
            if (signalled) {
                await(requestEvd, "RDMA write " + i);
                expectDto(cfg.bufLen(), i, "RDMA write " + i);
            }
        }
        if (cfg.server()) {
            receiveTriplet("the client's RDMA write completion message");
            sendTriplet(DatCompletionFlags.SUPPRESS);
        } else {
            sendTriplet(DatCompletionFlags.SUPPRESS);
            receiveTriplet("the server's RDMA write completion message");
        }
        byte[] expected = writeData(peerRole, cfg.bufLen());
        String problem = compare(rbuf, expected, null);
        if (problem != null) {
            throw new Failure("the peer's RDMA writes: " + problem);
        }
        say("RDMA write buffer contains: " + peerRole + " RDMA write data... (" + cfg.bufLen()
                + " bytes checked)");
    }

    /** {@return what {@code role}'s RDMA writes put in the peer's buffer} */
    static byte[] writeData(String writer, int bufLen) {
        byte[] b = new byte[bufLen];
        Arrays.fill(b, (byte) 'b');
        byte[] text = (writer + " RDMA write data...").getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, b, 0, Math.min(text.length, bufLen));
        if (text.length < bufLen) {
            b[text.length] = 0;
        }
        return b;
    }

    /** {@return {@code before} with {@code text} and its NUL written over its start: C's {@code strcpy}} */
    static byte[] strcpy(byte[] before, String text) {
        byte[] b = before.clone();
        byte[] t = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(t, 0, b, 0, Math.min(t.length, b.length));
        if (t.length < b.length) {
            b[t.length] = 0;
        }
        return b;
    }

    private void rdmaRead() {
        int r = recvMsgIndex - 1;
        putString(sbuf, BLAH);
        putString(rbuf, role + " RDMA read data...");
        // The peer's buffer holds our writes and, once the peer got this far, its own read text over them: the
        // protocol does not say which a read finds, so each byte must be one of the two.
        byte[] before = writeData(role, cfg.bufLen());
        byte[] after = strcpy(before, peerRole + " RDMA read data...");
        iov.set(0, sbufLmr, 0, cfg.bufLen());
        for (int i = 0; i < RDMA_READS; i++) {
            check(ep.postRdmaRead(1, iov, READ_COOKIE, peerContext[r], peerAddress[r], peerLength[r],
                    DatCompletionFlags.DEFAULT),
                    "dat_ep_post_rdma_read " + i);
            await(requestEvd, "RDMA read " + i);
            expectDto(cfg.bufLen(), READ_COOKIE, "RDMA read " + i);
            String problem = compare(sbuf, after, before);
            if (problem != null) {
                throw new Failure("RDMA read " + i + ": " + problem);
            }
        }
        sendTriplet(DatCompletionFlags.SUPPRESS);
        receiveTriplet("the peer's RDMA read completion message");
        say("RDMA read buffer contains: " + peerRole + " RDMA read data... (" + RDMA_READS + " x " + cfg.bufLen()
                + " bytes checked)");
    }

    private void pingPong() {
        for (int i = 0; i < PING_PONGS; i++) {
            iov.set(0, rbufLmr, (long) cfg.bufLen() * i, cfg.bufLen());
            check(ep.postRecv(1, iov, i, DatCompletionFlags.DEFAULT), "dat_ep_post_recv of ping-pong buffer " + i);
        }
        // dtest pauses here too, so the peer's receives are posted before the first message.
        sleep(1000);
        byte mine = cfg.server() ? (byte) 0xaa : 0x55;
        byte theirs = cfg.server() ? 0x55 : (byte) 0xaa;
        for (int i = 0; i < PING_PONGS; i++) {
            MemorySegment s = sbuf.asSlice((long) cfg.bufLen() * i, cfg.bufLen());
            if (!cfg.server()) {
                send(s, mine, i);
            }
            await(recvEvd, "ping-pong message " + i);
            expectDto(cfg.bufLen(), i, "ping-pong message " + i);
            byte got = rbuf.get(ValueLayout.JAVA_BYTE, (long) cfg.bufLen() * i);
            if (got != theirs) {
                throw new Failure("ping-pong message " + i + " starts with 0x" + Integer.toHexString(got & 0xFF)
                        + ", expected 0x" + Integer.toHexString(theirs & 0xFF));
            }
            if (cfg.server()) {
                send(s, mine, i);
            }
        }
        say("ping-pong: " + PING_PONGS + " x " + cfg.bufLen() + " byte messages checked");
    }

    private void send(MemorySegment s, byte first, int i) {
        s.set(ValueLayout.JAVA_BYTE, 0, first);
        iov.set(0, sbufLmr, s.address() - sbuf.address(), cfg.bufLen());
        check(ep.postSend(1, iov, SEND_COOKIE, DatCompletionFlags.SUPPRESS), "dat_ep_post_send ping-pong " + i);
    }

    private void disconnect() {
        if (!cfg.server()) {
            ep.disconnect(DatCloseFlags.ABRUPT);
        }
        await(connectEvd, "the disconnect");
        expectType(DatEventType.CONNECTION_EVENT_DISCONNECTED, "the connect EVD");
        // Suppressed sends may still report a failure: none may have failed.
        while (requestEvd.dequeue(event) == DatReturn.DAT_SUCCESS) {
            if (event.type() == DatEventType.DTO_COMPLETION && event.dtoStatus() != DatDtoStatus.SUCCESS
                    && event.dtoStatus() != DatDtoStatus.FLUSHED) {
                throw new Failure("a request completed with " + event.dtoStatus());
            }
        }
    }

    // ---------------------------------------------------------------------------------------------- helpers

    /**
     * {@return where {@code actual} differs from {@code expected} (or, where {@code alternative} is given, from
     * both), or {@code null}}
     */
    static String compare(MemorySegment actual, byte[] expected, byte[] alternative) {
        byte[] got = actual.asSlice(0, expected.length).toArray(ValueLayout.JAVA_BYTE);
        for (int i = 0; i < expected.length; i++) {
            if (got[i] != expected[i] && (alternative == null || got[i] != alternative[i])) {
                return "byte " + i + " of " + expected.length + " is 0x" + Integer.toHexString(got[i] & 0xFF)
                        + ", expected 0x" + Integer.toHexString(expected[i] & 0xFF)
                        + (alternative == null ? "" : " or 0x" + Integer.toHexString(alternative[i] & 0xFF));
            }
        }
        return null;
    }

    private static void putString(MemorySegment m, String text) {
        byte[] t = text.getBytes(StandardCharsets.US_ASCII);
        MemorySegment.copy(t, 0, m, ValueLayout.JAVA_BYTE, 0, t.length);
        m.set(ValueLayout.JAVA_BYTE, t.length, (byte) 0);
    }

    private void await(DatEvd evd, String what) {
        int rc = evd.await(Math.min(TimeUnit.NANOSECONDS.toMicros(cfg.timeoutNanos()), 0xFFFF_FFFEL), 1, event);
        if (rc != DatReturn.DAT_SUCCESS) {
            throw new Failure("waiting for " + what + ": " + DatReturn.toString(rc));
        }
    }

    private void expectType(DatEventType type, String where) {
        if (event.type() != type) {
            throw new Failure("expected " + type + " on " + where + ", got " + event);
        }
    }

    private void expectDto(long length, long cookie, String what) {
        if (event.type() != DatEventType.DTO_COMPLETION || event.dtoStatus() != DatDtoStatus.SUCCESS
                || event.transferredLength() != length || event.userCookie() != cookie) {
            throw new Failure(what + ": expected a successful DTO of " + length + " bytes with cookie 0x"
                    + Long.toHexString(cookie) + ", got " + event);
        }
    }

    private static void check(int rc, String what) {
        if (rc != DatReturn.DAT_SUCCESS) {
            throw new Failure(what + " returned " + DatReturn.toString(rc));
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure("interrupted");
        }
    }
}
