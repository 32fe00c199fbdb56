// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static dat.tck.rules.TckFixture.assertSameBytes;
import static dat.tck.rules.TckFixture.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpState;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatMemPriv;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.Iov;
import dat.registry.peer.PeerAddress;
import dat.tck.DatRule;
import dat.tck.TckContext;
import dat.tck.TckEnvironment;
import dat.tck.rules.PeerProtocol.Accept;
import dat.tck.rules.PeerProtocol.ProtocolException;
import dat.tck.rules.TckFixture.Region;
import dat.tck.rules.TckFixture.Side;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Rules that need a second node: this side connects to a {@code dat.tck.peer.TckPeer} running on another node (or
 * another IA), named by the configuration parameter {@value TckContext#PEER}, and checks what crosses the wire:
 * private data, rejects, a qualifier nobody listens on, messages, RDMA into and out of the peer's memory, and
 * disconnects from either side. Without the parameter every rule is skipped as not applicable. After the last
 * rule the class tells the peer "bye", which stops it.
 *
 * <p>One instance serves all the rules of a run ({@link TestInstance.Lifecycle#PER_CLASS}) so that the "bye" can
 * use the provider under test after them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class CrossNodeRules extends RuleSupport {

    /** The skip reason without a peer, after {@link #NOT_APPLICABLE}. */
    public static final String NO_PEER = "no remote peer (set " + TckContext.PEER + "=HOST:CONN_QUAL)";

    /** Sizes of the single-segment messages of the echo rules; a multi-segment one follows them. */
    private static final int[] ECHO_SIZES = {1, 64, 4096};
    /** Bytes of the multi-segment message of the echo rules. */
    private static final int MULTI_SIZE = 4100;
    /** Receive buffer of each echoed message on this side. */
    private static final long ECHO_BUFFER = 8192;
    /** Length of the region the RDMA rules ask the peer to expose. */
    private static final long REGION = 4096;

    private PeerAddress peer;

    /**
     * @param env the provider under test
     */
    protected CrossNodeRules(TckEnvironment env) {
        super(env);
    }

    @BeforeEach
    final void requirePeer(TckContext context) {
        Optional<PeerAddress> address = PeerProtocol.peer(context);
        applicableIf(address.isPresent(), NO_PEER);
        peer = address.orElseThrow();
        applicableIf(f.provider.maxPrivateDataSize() >= PeerProtocol.PRIVATE_DATA_SIZE, "max_private_data_size "
                + f.provider.maxPrivateDataSize() + " is below the " + PeerProtocol.PRIVATE_DATA_SIZE
                + " bytes of the peer protocol's requests");
    }

    /**
     * The run is over: tell the peer, so that {@code dat tck-peer} exits. A failure here fails no rule (the peer
     * then waits for its timeout and exits 1); it is printed to standard error.
     *
     * @param context the run's settings
     */
    @AfterAll
    final void sayBye(TckContext context) {
        Optional<PeerAddress> address;
        try {
            address = PeerProtocol.peer(context);
        } catch (IllegalArgumentException e) {
            return;
        }
        if (address.isEmpty()) {
            return;
        }
        env.configure(context);
        try (TckFixture bye = new TckFixture(IaOpener.open(env, context), context.eventTimeoutMillis())) {
            Side side = bye.side(bye.epAttr(), null);
            side.ep().connect(address.get().host(), address.get().connQual(), bye.eventTimeoutMicros(),
                    PeerProtocol.request(PeerProtocol.BYE, token(), 0, 0), DatQos.BEST_EFFORT, 0);
            if (bye.next(side.connectEvd()).type() == DatEventType.CONNECTION_EVENT_ESTABLISHED) {
                side.ep().disconnect(DatCloseFlags.GRACEFUL);
                bye.next(side.connectEvd());
            }
        } catch (RuntimeException | AssertionError e) {
            System.err.println("dat.tck: could not tell the peer at " + address.get() + " bye: " + e);
        }
    }

    /** A connection to the peer, the request that opened it and the peer's accept. */
    private record Link(Side side, long token, Accept accept) {
        DatEp ep() {
            return side.ep();
        }
    }

    private static long token() {
        return ThreadLocalRandom.current().nextLong() | 1;
    }

    private void connect(Side side, byte[] request) {
        side.ep().connect(peer.host(), peer.connQual(), f.eventTimeoutMicros(), request, DatQos.BEST_EFFORT, 0);
    }

    /** Connects {@code side} to the peer with a request and checks the accept. */
    private Link open(Side side, int command, long arg, int arg2) {
        long token = token();
        byte[] request = PeerProtocol.request(command, token, arg, arg2);
        connect(side, request);
        return established(side, token, request);
    }

    private Link open(int command, long arg, int arg2) {
        return open(f.side(f.epAttr(), null), command, arg, arg2);
    }

    private Link established(Side side, long token, byte[] request) {
        DatEvent event = f.next(side.connectEvd());
        if (event.type() != DatEventType.CONNECTION_EVENT_ESTABLISHED) {
            String hint = switch (event.type()) {
                case CONNECTION_EVENT_PEER_REJECTED -> "the peer refused it; its output says why";
                case CONNECTION_EVENT_NON_PEER_REJECTED, CONNECTION_EVENT_UNREACHABLE, CONNECTION_EVENT_TIMED_OUT ->
                        "is dat tck-peer running there, listening on conn_qual " + peer.connQual() + "?";
                default -> "an unexpected connection event";
            };
            fail("the peer at " + peer + " did not accept a " + PeerProtocol.commandName(request[5]) + " request: "
                    + event.type() + " (" + hint + ")");
        }
        try {
            return new Link(side, token, PeerProtocol.parseAccept(event.privateData(), request));
        } catch (ProtocolException e) {
            return fail(e.getMessage());
        }
    }

    /** Graceful disconnect from this side, and its event. */
    private void hangUp(Link link) {
        link.ep().disconnect(DatCloseFlags.GRACEFUL);
        assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, f.next(link.side().connectEvd()).type(),
                "connection event after dat_ep_disconnect");
    }

    private int postRecv(Side side, Region into, long offset, long length, long cookie) {
        return side.ep().postRecv(1, f.iov(1).set(0, into.lmr(), offset, length), cookie, DatCompletionFlags.DEFAULT);
    }

    /**
     * dat_ep_connect DESCRIPTION: "The Consumer-provided private_data is passed to the remote side and is provided
     * to the remote Consumer in the Connection Request." dat_cr_accept returns the acceptor's private data in the
     * requester's DAT_CONNECTION_EVENT_ESTABLISHED. The peer checks the request's CRC32C and sends back the CRC of
     * the request as it arrived; this side checks the accept's own CRC32C and fields.
     * If this fails, check that connect and accept private data cross the wire whole (a transport may zero-pad
     * them, never change them), and that the peer runs and is reachable at {@value TckContext#PEER}.
     */
    @Test
    @DatRule(call = "dat_ep_connect", section = "DESCRIPTION", rule = "across nodes: private data intact both ways")
    void required_ep_connect_crossNodePrivateDataIntactBothWays() {
        Link link = open(PeerProtocol.ECHO, 0, 0);
        assertSame(DatEpState.CONNECTED, link.ep().state(), "state after DAT_CONNECTION_EVENT_ESTABLISHED");
        hangUp(link);
    }

    /**
     * dat_ep_connect DESCRIPTION: "The rejection of the connection by the remote Consumer is reported to the local
     * Consumer through a DAT_CONNECTION_EVENT_PEER_REJECTED event on the connect_evd_handle of the local Endpoint
     * and the local Endpoint is automatically transitioned into a DAT_EP_STATE_DISCONNECTED state." The peer calls
     * dat_cr_reject (which in DAT 1.2 carries no private data).
     * If this fails, check how a consumer reject from the remote CM (not a missing listener) is mapped.
     */
    @Test
    @DatRule(call = "dat_ep_connect", section = "DESCRIPTION", rule = "across nodes: a peer's reject is PEER_REJECTED")
    void required_ep_connect_crossNodePeerRejectIsPeerRejected() {
        Side side = f.side(f.epAttr(), null);
        connect(side, PeerProtocol.request(PeerProtocol.REJECT, token(), 0, 0));
        assertSame(DatEventType.CONNECTION_EVENT_PEER_REJECTED, f.next(side.connectEvd()).type(),
                "connection event of a request the remote consumer rejected with dat_cr_reject");
        assertSame(DatEpState.DISCONNECTED, side.ep().state(), "state after the reject");
    }

    /**
     * dat_ep_connect DESCRIPTION: "The same DAT_CONNECTION_EVENT_NON_PEER_REJECTED event is returned if the
     * connection cannot be established for all reasons of not establishing the connection, except timeout, remote
     * host not reachable, and remote peer reject. For example, remote Consumer is not listening on the requested
     * Connection Qualifier". DAT_CONNECTION_EVENT_UNREACHABLE is for a remote host that cannot be reached, and
     * this host can (the peer answers on it), so the event must be NON_PEER_REJECTED. The qualifier is one the
     * peer found free on its IA.
     * If this fails, check how a reject by the remote CM itself (no listener, invalid service ID, connection
     * refused) is mapped: not to PEER_REJECTED, UNREACHABLE or TIMED_OUT.
     */
    @Test
    @DatRule(call = "dat_ep_connect", section = "DESCRIPTION",
            rule = "across nodes: nobody listening is NON_PEER_REJECTED")
    void required_ep_connect_crossNodeNoListenerIsNonPeerRejected() {
        Link probe = open(PeerProtocol.FREE_QUAL, 0, 0);
        long free = probe.accept().value1();
        hangUp(probe);
        Side side = f.side(f.epAttr(), null);
        // Half the event timeout: a provider that waits for its connect timeout reports TIMED_OUT in time to be seen.
        side.ep().connect(peer.host(), free, f.eventTimeoutMicros() / 2, null, DatQos.BEST_EFFORT, 0);
        DatEventType type = f.next(side.connectEvd()).type();
        assertSame(DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED, type, "connection event of a connect to conn_qual "
                + free + " of the reachable host " + peer.host().getHostAddress() + ", where nothing listens");
        assertSame(DatEpState.DISCONNECTED, side.ep().state(), "state after the failed connect");
    }

    /**
     * dat_ep_connect DESCRIPTION: "The remote Endpoint is identified by Remote IA and Remote Connection Qualifier."
     * Several EPs connect to the same remote qualifier at once; each gets a connection of its own, which carries
     * its own messages only.
     * If this fails, check that connections to the same remote qualifier get distinct remote EPs and that the
     * messages of one do not reach another.
     */
    @Test
    @DatRule(call = "dat_ep_connect", section = "DESCRIPTION",
            rule = "across nodes: several connections to one PSP at once")
    void required_ep_connect_crossNodeSeveralConnectionsToOnePsp() {
        int n = 3;
        List<Side> sides = new ArrayList<>();
        List<byte[]> requests = new ArrayList<>();
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Side side = f.side(f.epAttr(), null);
            long token = token();
            byte[] request = PeerProtocol.request(PeerProtocol.ECHO, token, 64, 0);
            connect(side, request);
            sides.add(side);
            requests.add(request);
            tokens.add(token);
        }
        List<Link> links = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            links.add(established(sides.get(i), tokens.get(i), requests.get(i)));
        }
        Region src = f.region();
        Region dst = f.region();
        pattern(src.memory(), 13);
        for (int i = 0; i < n; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, postRecv(links.get(i).side(), dst, 64L * i, 64, i), "dat_ep_post_recv");
        }
        for (int i = 0; i < n; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, links.get(i).ep().postSend(1, f.iov(1).set(0, src.lmr(), 64L * i, 64),
                    i, DatCompletionFlags.DEFAULT), "dat_ep_post_send on connection " + i);
        }
        for (int i = 0; i < n; i++) {
            Side side = links.get(i).side();
            assertEquals(i, f.completion(side.requestEvd(), DatDtoStatus.SUCCESS).userCookie(), "send " + i);
            DatEvent echoed = f.completion(side.recvEvd(), DatDtoStatus.SUCCESS);
            assertEquals(i, echoed.userCookie(), "echo on connection " + i);
            assertEquals(64, echoed.transferredLength(), "echo length on connection " + i);
            assertSameBytes(src.memory().asSlice(64L * i, 64), dst.memory().asSlice(64L * i, 64),
                    "echo on connection " + i);
        }
        for (Link link : links) {
            hangUp(link);
        }
    }

    /**
     * dat_ep_post_send DESCRIPTION: "requests a transfer of all the data from the local_iov over the connection of
     * the ep_handle Endpoint to the remote side. ... The local_iov segments are traversed in the I/O Vector order
     * until all the data is transferred." Messages of 1 B, 64 B, 4 KiB and one of several segments go to the peer
     * and come back in order; the last lands in a receive of several segments. When completion_flags_supported
     * has SUPPRESS, the first three sends carry it and only the fourth completes.
     * If this fails, check the gather and scatter of multi-segment DTOs, per-connection order, and (with SUPPRESS)
     * that a suppressed successful send leaves no completion.
     */
    @Test
    @DatRule(call = "dat_ep_post_send", section = "DESCRIPTION",
            rule = "across nodes: messages echoed whole, in order, flags honoured")
    void required_ep_post_send_crossNodeEchoInOrderWithFlags() {
        int segments = Math.min(3, f.limits.maxIovSegmentsPerDto());
        applicableIf(segments >= 2, "max_iov_segments_per_dto = 1: no multi-segment message");
        Side side = f.side(f.epAttr(), null);
        Link link = open(side, PeerProtocol.ECHO, MULTI_SIZE, 0);
        assertTrue(link.accept().value2() >= 4, "the peer keeps at least 4 receives posted, says "
                + link.accept().value2());
        Region dst = f.region(4 * ECHO_BUFFER, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
        for (int i = 0; i < ECHO_SIZES.length; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, postRecv(side, dst, i * ECHO_BUFFER, ECHO_BUFFER, 100 + i),
                    "dat_ep_post_recv " + i);
        }
        // The multi-segment message is scattered over a receive of as many segments: 50 B, 2000 B, the rest.
        long base = 3 * ECHO_BUFFER;
        Iov scatter = f.iov(segments).set(0, dst.lmr(), base, 50);
        if (segments == 3) {
            scatter.set(1, dst.lmr(), base + 1000, 2000).set(2, dst.lmr(), base + 4000, 4000);
        } else {
            scatter.set(1, dst.lmr(), base + 1000, 6000);
        }
        assertStatus(DatReturn.DAT_SUCCESS, side.ep().postRecv(segments, scatter, 103, DatCompletionFlags.DEFAULT),
                "dat_ep_post_recv of " + segments + " segments");
        EchoPlan plan = sendEchoMessages(link, segments);
        for (int i = 0; i < 4; i++) {
            DatEvent echoed = f.completion(side.recvEvd(), DatDtoStatus.SUCCESS);
            assertEquals(100 + i, echoed.userCookie(), "echo " + i + " completes receive " + i + " (order)");
            assertEquals(plan.expected().get(i).byteSize(), echoed.transferredLength(), "length of echo " + i);
        }
        for (int i = 0; i < ECHO_SIZES.length; i++) {
            assertSameBytes(plan.expected().get(i), dst.memory().asSlice(i * ECHO_BUFFER, ECHO_SIZES[i]), "echo " + i);
        }
        MemorySegment multi = plan.expected().get(3);
        assertSameBytes(multi.asSlice(0, 50), dst.memory().asSlice(base, 50), "echo 3, receive segment 0");
        if (segments == 3) {
            assertSameBytes(multi.asSlice(50, 2000), dst.memory().asSlice(base + 1000, 2000),
                    "echo 3, receive segment 1");
            assertSameBytes(multi.asSlice(2050, MULTI_SIZE - 2050), dst.memory().asSlice(base + 4000,
                    MULTI_SIZE - 2050), "echo 3, receive segment 2");
        } else {
            assertSameBytes(multi.asSlice(50, MULTI_SIZE - 50), dst.memory().asSlice(base + 1000, MULTI_SIZE - 50),
                    "echo 3, receive segment 1");
        }
        reapSends(link, plan);
        hangUp(link);
    }

    /**
     * dat_srq_post_recv DESCRIPTION: "The posted Recv DTOs will complete in the order of Send postings to the
     * other endpoint of each connection whose local EP uses SRQ." The same four messages come back from the peer
     * into an EP that takes its receives from an SRQ.
     * If this fails, check that messages from a remote node are delivered into SRQ buffers whole and in order.
     */
    @Test
    @DatRule(call = "dat_srq_post_recv", section = "DESCRIPTION", rule = "across nodes: echo into an SRQ, in order")
    void required_srq_post_recv_crossNodeEchoIntoSrq() {
        requiredFeature(f.provider.srqSupported(), "srq_supported = false");
        int segments = Math.min(3, f.limits.maxIovSegmentsPerDto());
        applicableIf(segments >= 2, "max_iov_segments_per_dto = 1: no multi-segment message");
        DatSrq srq = f.ia.createSrq(f.pz, DatSrqAttr.of(8, 1));
        Side side = f.side(f.epAttr(), srq);
        Link link = open(side, PeerProtocol.ECHO, MULTI_SIZE, 0);
        Region dst = f.region(4 * ECHO_BUFFER, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
        Iov iov = f.iov(1);
        for (int i = 0; i < 4; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, dst.lmr(), i * ECHO_BUFFER, ECHO_BUFFER),
                    200 + i), "dat_srq_post_recv " + i);
        }
        EchoPlan plan = sendEchoMessages(link, segments);
        for (int i = 0; i < 4; i++) {
            DatEvent echoed = f.completion(side.recvEvd(), DatDtoStatus.SUCCESS);
            long slot = echoed.userCookie() - 200;
            assertTrue(slot >= 0 && slot < 4, "cookie " + echoed.userCookie() + " of echo " + i + " was never posted");
            MemorySegment expected = plan.expected().get(i);
            assertEquals(expected.byteSize(), echoed.transferredLength(), "length of echo " + i + " (order)");
            assertSameBytes(expected, dst.memory().asSlice(slot * ECHO_BUFFER, expected.byteSize()), "echo " + i);
        }
        reapSends(link, plan);
        hangUp(link);
    }

    /** What the echo rules sent: each message's bytes, and whether the sends were suppressed. */
    private record EchoPlan(List<MemorySegment> expected, boolean suppressed) {
    }

    /** Sends 1 B, 64 B, 4 KiB and a {@code segments}-segment message of {@value #MULTI_SIZE} B, cookies 0..3. */
    private EchoPlan sendEchoMessages(Link link, int segments) {
        Region src = f.region(16384, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
        pattern(src.memory(), 41);
        boolean suppress = (f.provider.completionFlagsSupported() & DatCompletionFlags.SUPPRESS) != 0;
        List<MemorySegment> expected = new ArrayList<>();
        long[] offsets = {0, 100, 1000};
        for (int i = 0; i < ECHO_SIZES.length; i++) {
            expected.add(src.memory().asSlice(offsets[i], ECHO_SIZES[i]));
            assertStatus(DatReturn.DAT_SUCCESS, link.ep().postSend(1, f.iov(1).set(0, src.lmr(), offsets[i],
                    ECHO_SIZES[i]), i, suppress ? DatCompletionFlags.SUPPRESS : DatCompletionFlags.DEFAULT),
                    "dat_ep_post_send of " + ECHO_SIZES[i] + " bytes");
        }
        Iov gather = f.iov(segments);
        MemorySegment multi = f.arena.allocate(MULTI_SIZE);
        if (segments == 3) {
            gather.set(0, src.lmr(), 6000, 100).set(1, src.lmr(), 7000, 1000).set(2, src.lmr(), 9000, 3000);
            MemorySegment.copy(src.memory(), 6000, multi, 0, 100);
            MemorySegment.copy(src.memory(), 7000, multi, 100, 1000);
            MemorySegment.copy(src.memory(), 9000, multi, 1100, 3000);
        } else {
            gather.set(0, src.lmr(), 6000, 1100).set(1, src.lmr(), 9000, 3000);
            MemorySegment.copy(src.memory(), 6000, multi, 0, 1100);
            MemorySegment.copy(src.memory(), 9000, multi, 1100, 3000);
        }
        expected.add(multi);
        assertStatus(DatReturn.DAT_SUCCESS, link.ep().postSend(segments, gather, 3, DatCompletionFlags.DEFAULT),
                "dat_ep_post_send of " + segments + " segments");
        return new EchoPlan(expected, suppress);
    }

    /** Reaps the sends' completions: all four in order, or with SUPPRESS only the fourth. */
    private void reapSends(Link link, EchoPlan plan) {
        DatEvd requests = link.side().requestEvd();
        for (int i = plan.suppressed() ? 3 : 0; i < 4; i++) {
            assertEquals(i, f.completion(requests, DatDtoStatus.SUCCESS).userCookie(), "send completion "
                    + (plan.suppressed() ? "(the first three were SUPPRESSed)" : "order"));
        }
        if (plan.suppressed()) {
            f.quiet(requests, "a successful send posted with DAT_COMPLETION_SUPPRESS_FLAG completed");
        }
    }

    /**
     * dat_ep_post_rdma_write DESCRIPTION: "requests the transfer of all the data specified by the local_iov over
     * the connection of the ep_handle Endpoint into the remote_buffer." This side writes into the region the peer
     * exposed (its rmr_context, address and length came in the accept's private data), then asks the peer to send
     * the whole region back: the written bytes sit at the offset written, the peer's pattern around them.
     * If this fails, check the remote address and rmr_context translation of RDMA writes, and that a write is
     * placed before a send posted after it is delivered.
     */
    @Test
    @DatRule(call = "dat_ep_post_rdma_write", section = "DESCRIPTION",
            rule = "across nodes: a write lands in the peer's region")
    void required_ep_post_rdma_write_crossNodeWriteLandsInPeerRegion() {
        int seed = 23;
        Side side = f.side(f.epAttr(), null);
        Link link = open(side, PeerProtocol.EXPOSE, REGION, seed);
        Accept region = link.accept();
        assertEquals(REGION, region.value2(), "length of the exposed region");
        Region src = f.region();
        pattern(src.memory(), 77);
        int segments = Math.min(2, f.limits.maxIovSegmentsPerRdmaWrite());
        Iov gather = segments == 2 ? f.iov(2).set(0, src.lmr(), 0, 300).set(1, src.lmr(), 1000, 700)
                : f.iov(1).set(0, src.lmr(), 0, 1000);
        assertStatus(DatReturn.DAT_SUCCESS, side.ep().postRdmaWrite(segments, gather, 7, region.rmrContext(),
                region.value1() + 512, 1000, DatCompletionFlags.DEFAULT), "dat_ep_post_rdma_write");
        assertEquals(7, f.completion(side.requestEvd(), DatDtoStatus.SUCCESS).userCookie(), "write completion");
        Region back = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, postRecv(side, back, 0, REGION, 8), "dat_ep_post_recv");
        sendCommand(side, PeerProtocol.SEND_BACK, 0, REGION);
        DatEvent returned = f.completion(side.recvEvd(), DatDtoStatus.SUCCESS);
        assertEquals(REGION, returned.transferredLength(), "bytes the peer sent back");
        MemorySegment got = back.memory();
        assertPattern(got.asSlice(0, 512), seed, 0, "the peer's region before the write");
        if (segments == 2) {
            assertSameBytes(src.memory().asSlice(0, 300), got.asSlice(512, 300), "written segment 0");
            assertSameBytes(src.memory().asSlice(1000, 700), got.asSlice(812, 700), "written segment 1");
        } else {
            assertSameBytes(src.memory().asSlice(0, 1000), got.asSlice(512, 1000), "written bytes");
        }
        assertPattern(got.asSlice(1512, REGION - 1512), seed, 1512, "the peer's region after the write");
        hangUp(link);
    }

    /**
     * dat_ep_post_rdma_read DESCRIPTION: "requests the transfer of all the data specified by the remote_buffer over
     * the connection of the ep_handle Endpoint into the local_iov. ... The local_iov segments are filled in the I/O
     * Vector order until the whole message is received." This side reads part of the region the peer exposed,
     * filled with a pattern both sides know, into two local segments.
     * If this fails, check the remote address and rmr_context of RDMA reads, the responder resources of the peer's
     * EP (max_rdma_read_in), and the scatter into the local IOV.
     */
    @Test
    @DatRule(call = "dat_ep_post_rdma_read", section = "DESCRIPTION", rule = "across nodes: reads the peer's pattern")
    void required_ep_post_rdma_read_crossNodeReadsPeerPattern() {
        int seed = 57;
        Side side = f.side(f.epAttr(), null);
        Link link = open(side, PeerProtocol.EXPOSE, REGION, seed);
        Accept region = link.accept();
        assertEquals(seed, region.value3(), "pattern seed of the exposed region");
        Region local = f.region();
        int segments = Math.min(2, f.limits.maxIovSegmentsPerRdmaRead());
        Iov scatter = segments == 2 ? f.iov(2).set(0, local.lmr(), 2000, 300).set(1, local.lmr(), 0, 700)
                : f.iov(1).set(0, local.lmr(), 2000, 1000);
        assertStatus(DatReturn.DAT_SUCCESS, side.ep().postRdmaRead(segments, scatter, 9, region.rmrContext(),
                region.value1() + 100, 1000, DatCompletionFlags.DEFAULT), "dat_ep_post_rdma_read");
        assertEquals(9, f.completion(side.requestEvd(), DatDtoStatus.SUCCESS).userCookie(), "read completion");
        if (segments == 2) {
            assertPattern(local.memory().asSlice(2000, 300), seed, 100, "read segment 0");
            assertPattern(local.memory().asSlice(0, 700), seed, 400, "read segment 1");
        } else {
            assertPattern(local.memory().asSlice(2000, 1000), seed, 100, "read bytes");
        }
        hangUp(link);
    }

    /**
     * dat_rmr_bind DESCRIPTION: the peer binds an RMR onto 512 bytes in the middle of the region it exposed, over
     * this connection, and answers with the window's rmr_context and address; this side reads the window through
     * that context (the peer's pattern), writes new bytes into it, and has the peer send back the window with 8
     * bytes either side: the written bytes inside, the pattern around them.
     * If this fails, check dat_rmr_bind on the peer's provider (the window's address, context and privileges) and
     * RDMA through an RMR's context on this side.
     */
    @Test
    @DatRule(call = "dat_rmr_bind", section = "DESCRIPTION", rule = "across nodes: read and write through a window")
    void optional_rmr_bind_crossNodeReadAndWriteThroughAWindow() {
        optionalFeature(f.limits.maxRmrs() > 0, "max_rmrs = 0");
        int seed = 61;
        Side side = f.side(f.epAttr(), null);
        Link link = open(side, PeerProtocol.EXPOSE, REGION, seed);
        long base = link.accept().value1();
        Region answer = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, postRecv(side, answer, 0, PeerProtocol.COMMAND_SIZE, 5),
                "dat_ep_post_recv for the window's answer");
        sendCommand(side, PeerProtocol.BIND_WINDOW, 1024, 512);
        f.completion(side.recvEvd(), DatDtoStatus.SUCCESS);
        PeerProtocol.Command bound = PeerProtocol.parseCommand(answer.memory().asSlice(0, PeerProtocol.COMMAND_SIZE)
                .asByteBuffer());
        applicableIf(bound.op() != PeerProtocol.NO_WINDOW, "the peer's IA has no RMRs (max_rmrs = 0)");
        assertEquals(PeerProtocol.WINDOW_BOUND, bound.op(), "the peer's answer to BIND_WINDOW");
        int context = (int) bound.offset();
        assertEquals(base + 1024, bound.length(), "the window's address: 1024 bytes into the exposed region");
        Region local = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, side.ep().postRdmaRead(1, f.iov(1).set(0, local.lmr(), 0, 512), 11,
                context, base + 1024, 512, DatCompletionFlags.DEFAULT), "dat_ep_post_rdma_read through the window");
        assertEquals(11, f.completion(side.requestEvd(), DatDtoStatus.SUCCESS).userCookie(), "read completion");
        assertPattern(local.memory().asSlice(0, 512), seed, 1024, "bytes read through the window");
        Region src = f.region();
        pattern(src.memory(), 62);
        assertStatus(DatReturn.DAT_SUCCESS, side.ep().postRdmaWrite(1, f.iov(1).set(0, src.lmr(), 0, 512), 12,
                context, base + 1024, 512, DatCompletionFlags.DEFAULT), "dat_ep_post_rdma_write through the window");
        assertEquals(12, f.completion(side.requestEvd(), DatDtoStatus.SUCCESS).userCookie(), "write completion");
        Region back = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, postRecv(side, back, 0, 528, 13), "dat_ep_post_recv");
        sendCommand(side, PeerProtocol.SEND_BACK, 1016, 528);
        assertEquals(528, f.completion(side.recvEvd(), DatDtoStatus.SUCCESS).transferredLength(), "sent back");
        assertPattern(back.memory().asSlice(0, 8), seed, 1016, "the 8 bytes before the window");
        assertSameBytes(src.memory().asSlice(0, 512), back.memory().asSlice(8, 512), "the window after the write");
        assertPattern(back.memory().asSlice(520, 8), seed, 1536, "the 8 bytes after the window");
        hangUp(link);
    }

    /**
     * dat_ep_disconnect DESCRIPTION: "The successful completion of the disconnect is reported to the Consumer
     * through a DAT_CONNECTION_EVENT_DISCONNECTED event on connect_evd_handle of the Endpoint" and "Upon
     * disconnect, all outstanding and in-progress DTOs and RMR Binds must be completed." The peer disconnects from
     * its side; this side gets DAT_CONNECTION_EVENT_DISCONNECTED and its posted receives complete with
     * DAT_DTO_ERR_FLUSHED, in posting order.
     * If this fails, check the handling of a disconnect request from the remote CM: the connection event, the EP
     * state, and the flush of the receive queue.
     */
    @Test
    @DatRule(call = "dat_ep_disconnect", section = "DESCRIPTION",
            rule = "across nodes: the peer's disconnect is DISCONNECTED and flushes receives")
    void required_ep_disconnect_crossNodePeerDisconnectFlushesReceives() {
        Side side = f.side(f.epAttr(), null);
        Link link = open(side, PeerProtocol.DISCONNECT, 0, 0);
        Region dst = f.region();
        for (int i = 0; i < 3; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, postRecv(side, dst, 64L * i, 64, 300 + i), "dat_ep_post_recv " + i);
        }
        Region trigger = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, link.ep().postSend(1, f.iov(1).set(0, trigger.lmr(), 0, 8), 1,
                DatCompletionFlags.DEFAULT), "dat_ep_post_send of the message that makes the peer disconnect");
        f.completion(side.requestEvd(), DatDtoStatus.SUCCESS);
        assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, f.next(side.connectEvd()).type(),
                "connection event after the peer's dat_ep_disconnect");
        assertSame(DatEpState.DISCONNECTED, side.ep().state(), "state after the peer's disconnect");
        for (int i = 0; i < 3; i++) {
            assertEquals(300 + i, f.completion(side.recvEvd(), DatDtoStatus.FLUSHED).userCookie(),
                    "flushed receive " + i);
        }
    }

    /**
     * dat_ep_disconnect DESCRIPTION: "The dat_ep_disconnect() function requests a termination of a connection".
     * After an echo proves the connection, this side disconnects; a second connection then asks the peer how
     * that session ended: the peer must have seen DAT_CONNECTION_EVENT_DISCONNECTED itself.
     * If this fails, check that a local disconnect reaches the remote CM (a disconnect request, not just local
     * teardown).
     */
    @Test
    @DatRule(call = "dat_ep_disconnect", section = "DESCRIPTION",
            rule = "across nodes: the peer sees a local disconnect")
    void required_ep_disconnect_crossNodeLocalDisconnectSeenByPeer() {
        Side side = f.side(f.epAttr(), null);
        Link link = open(side, PeerProtocol.ECHO, 8, 0);
        Region buffer = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, postRecv(side, buffer, 64, 8, 1), "dat_ep_post_recv");
        assertStatus(DatReturn.DAT_SUCCESS, link.ep().postSend(1, f.iov(1).set(0, buffer.lmr(), 0, 8), 2,
                DatCompletionFlags.DEFAULT), "dat_ep_post_send");
        f.completion(side.requestEvd(), DatDtoStatus.SUCCESS);
        f.completion(side.recvEvd(), DatDtoStatus.SUCCESS);
        hangUp(link);
        int wait = (int) Math.min(PeerProtocol.STATUS_MAX_WAIT_MILLIS, f.eventTimeoutMillis() / 2);
        Link status = open(PeerProtocol.STATUS, link.token(), wait);
        int outcome = status.accept().value3();
        assertEquals(PeerProtocol.outcomeName(PeerProtocol.OUTCOME_REMOTE_DISCONNECT),
                PeerProtocol.outcomeName(outcome), "how the peer says the disconnected session ended");
        assertEquals(1, status.accept().value1(), "messages the peer echoed in that session");
        hangUp(status);
    }

    private void sendCommand(Side side, int op, long offset, long length) {
        Region command = f.region(PeerProtocol.COMMAND_SIZE, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
        ByteBuffer bytes = command.memory().asByteBuffer();
        PeerProtocol.command(bytes, op, offset, length);
        assertStatus(DatReturn.DAT_SUCCESS, side.ep().postSend(1, f.iov(1).set(0, command.lmr(), 0,
                PeerProtocol.COMMAND_SIZE), 50, DatCompletionFlags.DEFAULT), "dat_ep_post_send of a command message");
        assertEquals(50, f.completion(side.requestEvd(), DatDtoStatus.SUCCESS).userCookie(), "command sent");
    }

    /** Asserts that {@code memory} holds the peer's pattern of {@code seed} from region offset {@code from}. */
    private static void assertPattern(MemorySegment memory, int seed, long from, String what) {
        for (long i = 0; i < memory.byteSize(); i++) {
            byte expected = TckFixture.patternByte(seed, from + i);
            byte actual = memory.get(ValueLayout.JAVA_BYTE, i);
            if (actual != expected) {
                fail(what + ": byte at region offset " + (from + i) + " is " + actual + ", the pattern has "
                        + expected);
            }
        }
    }
}
