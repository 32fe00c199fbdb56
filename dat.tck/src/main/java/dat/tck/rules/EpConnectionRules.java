// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatCr;
import dat.api.DatCrParam;
import dat.api.DatDtoStatus;
import dat.api.DatEpParam;
import dat.api.DatEpState;
import dat.api.DatEpStatus;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatMemPriv;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatRsp;
import dat.tck.DatRule;
import dat.tck.TckEnvironment;
import dat.tck.rules.TckFixture.Connection;
import dat.tck.rules.TckFixture.Region;
import dat.tck.rules.TckFixture.Side;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Connection life cycle and EP states: {@code dat_ep_create}, {@code dat_psp_create(_any)}, {@code dat_rsp_create},
 * {@code dat_ep_connect}, {@code dat_cr_query}, {@code dat_cr_accept}, {@code dat_cr_reject}, {@code dat_cr_handoff},
 * {@code dat_ep_disconnect}, {@code dat_ep_reset}, {@code dat_ep_free}, {@code dat_ep_get_status},
 * {@code dat_ep_query}, and the flush rules of {@code dat_ep_post_recv}.
 */
public abstract class EpConnectionRules extends RuleSupport {

    /**
     * @param env the provider under test
     */
    protected EpConnectionRules(TckEnvironment env) {
        super(env);
    }

    private int postRecv(Side side, Region into, long offset, long length, long cookie) {
        return side.ep().postRecv(1, f.iov(1).set(0, into.lmr(), offset, length), cookie, DatCompletionFlags.DEFAULT);
    }

    /**
     * dat_ep_create: a new EP is UNCONNECTED, and dat_ep_query reports its handles and at least the attributes
     * asked.
     * If this fails, check the initial state and dat_ep_query.
     */
    @Test
    @DatRule(call = "dat_ep_create", section = "DESCRIPTION",
            rule = "a new EP is UNCONNECTED with the attributes asked")
    void required_ep_create_startsUnconnectedWithAttributes() {
        Side side = f.side(f.epAttr(), null);
        assertSame(DatEpState.UNCONNECTED, side.ep().state());
        DatEpParam p = side.ep().query();
        assertSame(DatEpState.UNCONNECTED, p.epState());
        assertSame(f.pz, p.pz());
        assertSame(side.recvEvd(), p.recvEvd());
        assertSame(side.requestEvd(), p.requestEvd());
        assertSame(side.connectEvd(), p.connectEvd());
        assertTrue(p.epAttr().maxRecvDtos() >= f.epAttr().maxRecvDtos(), "max_recv_dtos");
        assertTrue(p.epAttr().maxRequestDtos() >= f.epAttr().maxRequestDtos(), "max_request_dtos");
        DatEpStatus status = side.ep().getStatus();
        assertTrue(status.recvIdle() && status.requestIdle(), "a new EP is idle");
    }

    /**
     * dat_ep_create: "DAT_INVALID_PARAMETER" for attributes beyond the IA's limits.
     * If this fails, an EP was created with more than max_dto_per_ep or max_iov_segments_per_dto.
     */
    @Test
    @DatRule(call = "dat_ep_create", section = "RETURN VALUES", rule = "attributes beyond the IA limits are refused",
            returns = DatReturn.INVALID_PARAMETER)
    void required_ep_create_invalidParameterBeyondIaLimits() {
        if (f.limits.maxDtoPerEp() < Integer.MAX_VALUE) {
            assertThrowsDat(DatReturn.INVALID_PARAMETER, () -> f.side(f.epAttr().toBuilder()
                    .maxRecvDtos(f.limits.maxDtoPerEp() + 1).build(), null), "max_recv_dtos above max_dto_per_ep");
        }
        if (f.limits.maxIovSegmentsPerDto() < Integer.MAX_VALUE) {
            assertThrowsDat(DatReturn.INVALID_PARAMETER, () -> f.side(f.epAttr().toBuilder()
                    .maxRequestIov(f.limits.maxIovSegmentsPerDto() + 1).build(), null),
                    "max_request_iov above max_iov_segments_per_dto");
        }
        assertThrowsDat(DatReturn.INVALID_PARAMETER, () -> f.side(f.epAttr().toBuilder().maxRecvDtos(-1).build(), null),
                "max_recv_dtos -1");
    }

    /**
     * dat_ep_connect / dat_cr_accept: the passive side gets a connection request carrying the active side's
     * private data; both sides end CONNECTED with CONNECTION_EVENT_ESTABLISHED, the active side's event carrying
     * the accept's private data.
     * If this fails, check the CR event, private data in both directions and the final states.
     */
    @Test
    @DatRule(call = "dat_cr_accept", section = "DESCRIPTION", rule = "accept connects both sides with private data")
    void required_cr_accept_connectsBothSidesWithPrivateData() {
        Side active = f.side(f.epAttr(), null);
        Side passive = f.side(f.epAttr(), null);
        DatEvd crEvd = f.evd(DatEvdFlags.CR);
        DatPsp psp = f.ia.createPspAny(crEvd, DatPspFlags.CONSUMER);
        byte[] hello = {1, 2, 3, 4, 5};
        byte[] welcome = {9, 8, 7};
        active.ep().connect(f.ia.address(), psp.connQual(), f.eventTimeoutMicros(), hello, DatQos.BEST_EFFORT, 0);
        assertSame(DatEpState.ACTIVE_CONNECTION_PENDING, active.ep().state(), "state after dat_ep_connect");
        DatEvent request = f.next(crEvd);
        assertSame(DatEventType.CONNECTION_REQUEST_EVENT, request.type());
        assertSame(psp, request.sp(), "sp_handle");
        assertEquals(psp.connQual(), request.connQual(), "conn_qual");
        DatCrParam cr = request.cr().query();
        assertArrayEquals(hello, cr.privateData(), "private data of the request");
        assertEquals(f.ia.address(), cr.remoteIaAddress(), "remote_ia_address_ptr");
        request.cr().accept(passive.ep(), welcome);
        DatEvent activeEvent = f.next(active.connectEvd());
        assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, activeEvent.type());
        assertSame(active.ep(), activeEvent.ep());
        assertArrayEquals(welcome, activeEvent.privateData(), "private data of the accept");
        assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, f.next(passive.connectEvd()).type());
        assertSame(DatEpState.CONNECTED, active.ep().state());
        assertSame(DatEpState.CONNECTED, passive.ep().state());
        assertEquals(psp.connQual(), active.ep().query().remotePortQual(), "remote_port_qual");
    }

    /**
     * dat_ep_connect: private data larger than max_private_data_size is "DAT_INVALID_PARAMETER"; an EP that is not
     * UNCONNECTED is "DAT_INVALID_STATE".
     * If this fails, check the private-data limit and the state test of dat_ep_connect.
     */
    @Test
    @DatRule(call = "dat_ep_connect", section = "RETURN VALUES",
            rule = "too much private data, or a busy EP, is refused",
            returns = {DatReturn.INVALID_PARAMETER, DatReturn.INVALID_STATE})
    void required_ep_connect_refusesOversizedPrivateDataAndBusyEp() {
        Side side = f.side(f.epAttr(), null);
        byte[] tooMuch = new byte[f.provider.maxPrivateDataSize() + 1];
        assertThrowsDat(DatReturn.INVALID_PARAMETER,
                () -> side.ep().connect(f.ia.address(), 1, f.eventTimeoutMicros(), tooMuch, DatQos.BEST_EFFORT, 0),
                "dat_ep_connect with max_private_data_size + 1 bytes");
        Connection c = f.connect();
        assertThrowsDat(DatReturn.INVALID_STATE,
                () -> c.active().ep().connect(f.ia.address(), 1, f.eventTimeoutMicros(), null, DatQos.BEST_EFFORT, 0),
                "dat_ep_connect on a CONNECTED EP");
    }

    /**
     * dat_ep_connect: with nobody listening on the qualifier the connection fails with
     * DAT_CONNECTION_EVENT_NON_PEER_REJECTED (or UNREACHABLE / TIMED_OUT) and the EP ends DISCONNECTED.
     * If this fails, a connect to nobody hung, succeeded, or left the EP in a pending state.
     */
    @Test
    @DatRule(call = "dat_ep_connect", section = "DESCRIPTION", rule = "no listener: a failure event, EP DISCONNECTED")
    void required_ep_connect_noListenerFailsWithEvent() {
        Side side = f.side(f.epAttr(), null);
        DatEvd crEvd = f.evd(DatEvdFlags.CR);
        DatPsp psp = f.ia.createPspAny(crEvd, DatPspFlags.CONSUMER);
        long unused = psp.connQual();
        psp.close();
        side.ep().connect(f.ia.address(), unused, TimeUnit.SECONDS.toMicros(2), null, DatQos.BEST_EFFORT, 0);
        DatEventType type = f.next(side.connectEvd()).type();
        assertTrue(type == DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED
                || type == DatEventType.CONNECTION_EVENT_UNREACHABLE
                || type == DatEventType.CONNECTION_EVENT_TIMED_OUT, "connection event " + type);
        assertSame(DatEpState.DISCONNECTED, side.ep().state());
    }

    /**
     * dat_cr_reject: the active side gets DAT_CONNECTION_EVENT_PEER_REJECTED and ends DISCONNECTED.
     * If this fails, check the reject path.
     */
    @Test
    @DatRule(call = "dat_cr_reject", section = "DESCRIPTION", rule = "the requester sees PEER_REJECTED")
    void required_cr_reject_requesterSeesPeerRejected() {
        Side active = f.side(f.epAttr(), null);
        DatEvd crEvd = f.evd(DatEvdFlags.CR);
        DatPsp psp = f.ia.createPspAny(crEvd, DatPspFlags.CONSUMER);
        active.ep().connect(f.ia.address(), psp.connQual(), f.eventTimeoutMicros(), null, DatQos.BEST_EFFORT, 0);
        DatCr cr = f.next(crEvd).cr();
        cr.reject();
        assertSame(DatEventType.CONNECTION_EVENT_PEER_REJECTED, f.next(active.connectEvd()).type());
        assertSame(DatEpState.DISCONNECTED, active.ep().state());
        assertThrowsDat(DatReturn.INVALID_HANDLE, cr::query, "dat_cr_query after reject");
    }

    /**
     * dat_cr_handoff: the request reappears on the PSP of the hand-off qualifier and can be accepted there.
     * If this fails, check that handoff re-delivers the same request to the other PSP.
     */
    @Test
    @DatRule(call = "dat_cr_handoff", section = "DESCRIPTION", rule = "the request moves to the other PSP")
    void required_cr_handoff_movesRequestToOtherPsp() {
        Side active = f.side(f.epAttr(), null);
        Side passive = f.side(f.epAttr(), null);
        DatEvd firstEvd = f.evd(DatEvdFlags.CR);
        DatEvd secondEvd = f.evd(DatEvdFlags.CR);
        DatPsp first = f.ia.createPspAny(firstEvd, DatPspFlags.CONSUMER);
        DatPsp second = f.ia.createPspAny(secondEvd, DatPspFlags.CONSUMER);
        active.ep().connect(f.ia.address(), first.connQual(), f.eventTimeoutMicros(), new byte[] {42},
                DatQos.BEST_EFFORT, 0);
        f.next(firstEvd).cr().handoff(second.connQual());
        DatEvent moved = f.next(secondEvd);
        assertSame(second, moved.sp());
        assertArrayEquals(new byte[] {42}, moved.cr().query().privateData(), "private data survives the hand-off");
        moved.cr().accept(passive.ep(), null);
        assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, f.next(active.connectEvd()).type());
    }

    /**
     * dat_psp_free: "This operation shall have no effect on previously generated Connection Requested Events. This
     * includes Connection Request instances": a request delivered before the free can still be queried and accepted,
     * and the connection it makes carries data; a new request to the freed qualifier finds nobody listening.
     * If this fails, freeing the PSP closed or answered the requests it had delivered (a server that stops listening
     * once its one client asked, as {@code dat perf serve} does, could never accept that client).
     */
    @Test
    @DatRule(call = "dat_psp_free", section = "DESCRIPTION",
            rule = "requests delivered before the free stay valid: they can be accepted")
    void required_psp_free_leavesDeliveredRequestsAcceptable() {
        Side active = f.side(f.epAttr(), null);
        Side passive = f.side(f.epAttr(), null);
        DatEvd crEvd = f.evd(DatEvdFlags.CR);
        DatPsp psp = f.ia.createPspAny(crEvd, DatPspFlags.CONSUMER);
        long connQual = psp.connQual();
        byte[] hello = {7, 1};
        active.ep().connect(f.ia.address(), connQual, f.eventTimeoutMicros(), hello, DatQos.BEST_EFFORT, 0);
        DatCr cr = f.next(crEvd).cr();
        psp.close();
        assertArrayEquals(hello, cr.query().privateData(), "dat_cr_query after dat_psp_free");
        cr.accept(passive.ep(), null);
        assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, f.next(active.connectEvd()).type(),
                "the requester's event after an accept that followed dat_psp_free");
        assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, f.next(passive.connectEvd()).type());
        Region src = f.region();
        Region dst = f.region();
        TckFixture.pattern(src.memory(), 3);
        assertStatus(DatReturn.DAT_SUCCESS, passive.ep().postRecv(1, f.iov(1).set(0, dst.lmr(), 0, 64), 5, 0),
                "dat_ep_post_recv");
        assertStatus(DatReturn.DAT_SUCCESS, active.ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, 64), 6, 0),
                "dat_ep_post_send");
        f.completion(active.requestEvd(), DatDtoStatus.SUCCESS);
        f.completion(passive.recvEvd(), DatDtoStatus.SUCCESS);
        TckFixture.assertSameBytes(src.memory().asSlice(0, 64), dst.memory().asSlice(0, 64),
                "the message over the connection accepted after dat_psp_free");

        Side late = f.side(f.epAttr(), null);
        late.ep().connect(f.ia.address(), connQual, TimeUnit.SECONDS.toMicros(2), null, DatQos.BEST_EFFORT, 0);
        DatEventType type = f.next(late.connectEvd()).type();
        assertTrue(type == DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED
                || type == DatEventType.CONNECTION_EVENT_UNREACHABLE
                || type == DatEventType.CONNECTION_EVENT_TIMED_OUT, "a request to the freed qualifier: " + type);
    }

    /**
     * dat_psp_create: "DAT_CONN_QUAL_IN_USE" for a qualifier already listened on; dat_psp_create_any picks free,
     * distinct qualifiers.
     * If this fails, two PSPs share a qualifier.
     */
    @Test
    @DatRule(call = "dat_psp_create", section = "RETURN VALUES", rule = "a qualifier in use is refused",
            returns = DatReturn.CONN_QUAL_IN_USE)
    void required_psp_create_connQualInUseIsRefused() {
        DatEvd crEvd = f.evd(DatEvdFlags.CR);
        DatPsp a = f.ia.createPspAny(crEvd, DatPspFlags.CONSUMER);
        DatPsp b = f.ia.createPspAny(crEvd, DatPspFlags.CONSUMER);
        assertNotEquals(a.connQual(), b.connQual(), "dat_psp_create_any qualifiers are distinct");
        assertThrowsDat(DatReturn.CONN_QUAL_IN_USE, () -> f.ia.createPsp(a.connQual(), crEvd, DatPspFlags.CONSUMER),
                "dat_psp_create on a taken qualifier");
        assertEquals(a.connQual(), a.query().connQual());
        a.close();
        f.ia.createPsp(a.connQual(), crEvd, DatPspFlags.CONSUMER).close();
    }

    /**
     * dat_rsp_create: the reserved EP moves to RESERVED; the one request it gets connects that EP.
     * If this fails, check the RSP path: reserved state, CR naming the RSP, accept of the reserved EP.
     */
    @Test
    @DatRule(call = "dat_rsp_create", section = "DESCRIPTION", rule = "an RSP connects its reserved EP")
    void required_rsp_create_connectsReservedEp() {
        Side active = f.side(f.epAttr(), null);
        Side reserved = f.side(f.epAttr(), null);
        DatEvd crEvd = f.evd(DatEvdFlags.CR);
        DatPsp probe = f.ia.createPspAny(crEvd, DatPspFlags.CONSUMER);
        long qual = probe.connQual();
        probe.close();
        DatRsp rsp = f.ia.createRsp(qual, reserved.ep(), crEvd);
        assertSame(DatEpState.RESERVED, reserved.ep().state());
        assertSame(reserved.ep(), rsp.query().ep());
        active.ep().connect(f.ia.address(), qual, f.eventTimeoutMicros(), null, DatQos.BEST_EFFORT, 0);
        DatEvent request = f.next(crEvd);
        assertSame(rsp, request.sp());
        assertSame(reserved.ep(), request.cr().query().localEp(), "local_ep_handle of an RSP request");
        request.cr().accept(reserved.ep(), null);
        assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, f.next(active.connectEvd()).type());
        assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, f.next(reserved.connectEvd()).type());
    }

    /**
     * dat_ep_disconnect (graceful): both sides get DAT_CONNECTION_EVENT_DISCONNECTED and end DISCONNECTED;
     * dat_ep_reset then returns an EP to UNCONNECTED, ready to connect again.
     * If this fails, check the disconnect events, the final states and reset.
     */
    @Test
    @DatRule(call = "dat_ep_disconnect", section = "DESCRIPTION", rule = "graceful: both sides DISCONNECTED")
    void required_ep_disconnect_gracefulDisconnectsBothSides() {
        Connection c = f.connect();
        c.active().ep().disconnect(DatCloseFlags.GRACEFUL);
        assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, f.next(c.active().connectEvd()).type());
        assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, f.next(c.passive().connectEvd()).type());
        assertSame(DatEpState.DISCONNECTED, c.active().ep().state());
        assertSame(DatEpState.DISCONNECTED, c.passive().ep().state());
        c.active().ep().reset();
        assertSame(DatEpState.UNCONNECTED, c.active().ep().state());
        f.connect(c.active(), f.side(f.epAttr(), null));
    }

    /**
     * dat_ep_get_status: the receive queue is not idle while a posted receive waits, the request queue not while a
     * send waits for the peer's receive; both are idle again once their completions are reaped.
     * If this fails, check what in_dto_idle and out_dto_idle are computed from.
     */
    @Test
    @DatRule(call = "dat_ep_get_status", section = "DESCRIPTION",
            rule = "queues are idle only with nothing outstanding")
    void required_ep_get_status_reportsOutstandingWork() {
        Connection c = f.connect();
        assertIdle(c.active().ep().getStatus(), true, true, "a new connection");
        Region dst = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, postRecv(c.active(), dst, 0, 64, 1), "dat_ep_post_recv");
        assertIdle(c.active().ep().getStatus(), false, true, "with a receive posted");
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(1, f.iov(1).set(0, f.region().lmr(), 0, 8), 2, 0),
                "dat_ep_post_send with no receive posted on the peer");
        assertIdle(c.active().ep().getStatus(), false, false, "with a receive posted and a send waiting");
        assertStatus(DatReturn.DAT_SUCCESS, postRecv(c.passive(), dst, 64, 64, 3), "dat_ep_post_recv on the peer");
        assertEquals(2, f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS).userCookie());
        f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS);
        assertIdle(c.active().ep().getStatus(), false, true, "after the send completed and was reaped");
        assertStatus(DatReturn.DAT_SUCCESS, c.passive().ep().postSend(1, f.iov(1).set(0, f.region().lmr(), 0, 8), 4,
                0), "dat_ep_post_send from the peer");
        assertEquals(1, f.completion(c.active().recvEvd(), DatDtoStatus.SUCCESS).userCookie());
        f.completion(c.passive().requestEvd(), DatDtoStatus.SUCCESS);
        assertIdle(c.active().ep().getStatus(), true, true, "after the receive completed and was reaped");
    }

    private static void assertIdle(DatEpStatus status, boolean recv, boolean request, String when) {
        assertEquals(recv, status.recvIdle(), "in_dto_idle (receive queue) " + when);
        assertEquals(request, status.requestIdle(), "out_dto_idle (request queue) " + when);
    }

    /**
     * dat_ep_reset: "DAT_INVALID_STATE Parameter in an invalid state": only a DISCONNECTED EP is reset (an
     * UNCONNECTED one is already there). A CONNECTED or connecting EP is refused and keeps its state and its
     * connection.
     * If this fails, check the state test of dat_ep_reset.
     */
    @Test
    @DatRule(call = "dat_ep_reset", section = "RETURN VALUES", rule = "only a DISCONNECTED EP is reset",
            returns = DatReturn.INVALID_STATE)
    void required_ep_reset_refusedUnlessDisconnected() {
        Connection c = f.connect();
        assertThrowsDat(DatReturn.INVALID_STATE, c.active().ep()::reset, "dat_ep_reset of a CONNECTED EP");
        assertSame(DatEpState.CONNECTED, c.active().ep().state(), "state after the refused reset");
        Side pending = f.pendingSide();
        assertThrowsDat(DatReturn.INVALID_STATE, pending.ep()::reset,
                "dat_ep_reset of an ACTIVE_CONNECTION_PENDING EP");
        assertSame(DatEpState.ACTIVE_CONNECTION_PENDING, pending.ep().state(), "state after the refused reset");
        Region dst = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, postRecv(c.passive(), dst, 0, 64, 1), "dat_ep_post_recv");
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(1, f.iov(1).set(0, f.region().lmr(), 0, 8), 2, 0),
                "dat_ep_post_send on the connection the refused reset left alone");
        assertEquals(1, f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS).userCookie());
        assertEquals(2, f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS).userCookie());
    }

    /**
     * dat_ep_disconnect (abrupt): every receive not yet completed is flushed, on both sides, with its cookie.
     * If this fails, outstanding receives were lost or completed with another status.
     */
    @Test
    @DatRule(call = "dat_ep_disconnect", section = "DESCRIPTION", rule = "abrupt: outstanding receives are flushed")
    void required_ep_disconnect_abruptFlushesOutstandingReceives() {
        Connection c = f.connect();
        Region dst = f.region();
        for (int i = 0; i < 3; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, postRecv(c.passive(), dst, 64L * i, 64, 100 + i), "dat_ep_post_recv");
            assertStatus(DatReturn.DAT_SUCCESS, postRecv(c.active(), dst, 1024 + 64L * i, 64, 200 + i),
                    "dat_ep_post_recv");
        }
        c.active().ep().disconnect(DatCloseFlags.ABRUPT);
        for (int i = 0; i < 3; i++) {
            assertEquals(200 + i, f.completion(c.active().recvEvd(), DatDtoStatus.FLUSHED).userCookie());
            assertEquals(100 + i, f.completion(c.passive().recvEvd(), DatDtoStatus.FLUSHED).userCookie());
        }
        assertSame(DatEpState.DISCONNECTED, c.passive().ep().state(), "the peer is disconnected too");
    }

    /**
     * dat_ep_reset: "The operation might cause the loss of any completions of previously posted DTOs and RMRs that
     * were not dequeued yet": lost, or delivered as they were, never handed to the DTOs posted after the reset. An
     * abrupt disconnect flushes a send and three receives of the active EP, which is reset at once, before anything
     * is dequeued, and connected again; then new receives and a send run. Every event on its request and receive
     * EVDs is an old DTO's FLUSHED completion with its own cookie, at most once, or a new DTO's completion with its
     * cookie, status and length, in posting order.
     * If this fails, completions of the connection before the reset were matched to the work posted after it.
     */
    @Test
    @DatRule(call = "dat_ep_reset", section = "DESCRIPTION",
            rule = "completions not dequeued may be lost, never given to later DTOs")
    void required_ep_reset_undequeuedCompletionsAreLostNeverMisreported() {
        Connection c = f.connect();
        Region dst = f.region();
        Region src = f.region();
        Side active = c.active();
        assertStatus(DatReturn.DAT_SUCCESS, active.ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, 8), 21, 0),
                "dat_ep_post_send the peer has no receive for");
        for (int i = 0; i < 3; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, postRecv(active, dst, 64L * i, 64, 1 + i), "dat_ep_post_recv");
        }
        active.ep().disconnect(DatCloseFlags.ABRUPT);
        active.ep().reset();
        f.next(active.connectEvd());
        f.next(c.passive().connectEvd());
        c.passive().ep().reset();
        f.connect(active, c.passive());
        for (int i = 0; i < 3; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, postRecv(active, dst, 1024 + 64L * i, 64, 31 + i),
                    "dat_ep_post_recv after the reset");
            assertStatus(DatReturn.DAT_SUCCESS, c.passive().ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, 8 + i),
                    41 + i, 0), "dat_ep_post_send from the peer");
        }
        assertStatus(DatReturn.DAT_SUCCESS, postRecv(c.passive(), dst, 2048, 64, 61), "dat_ep_post_recv on the peer");
        assertStatus(DatReturn.DAT_SUCCESS, active.ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, 16), 51, 0),
                "dat_ep_post_send after the reset");
        expectAfterReset(active.recvEvd(), new long[] {1, 2, 3}, new long[] {31, 32, 33}, new long[] {8, 9, 10});
        expectAfterReset(active.requestEvd(), new long[] {21}, new long[] {51}, new long[] {16});
    }

    /** Events until every new cookie completed SUCCESS in order; old cookies may show up FLUSHED, once each. */
    private void expectAfterReset(DatEvd evd, long[] old, long[] fresh, long[] lengths) {
        Set<Long> oldLeft = new HashSet<>();
        for (long o : old) {
            oldLeft.add(o);
        }
        for (int next = 0; next < fresh.length; ) {
            DatEvent e = f.next(evd);
            if (oldLeft.remove(e.userCookie())) {
                assertSame(DatDtoStatus.FLUSHED, e.dtoStatus(), "completion of cookie " + e.userCookie()
                        + ", posted before the reset");
                continue;
            }
            assertEquals(fresh[next], e.userCookie(), "the next completion after the reset (an old cookie at most once,"
                    + " else the new DTOs in posting order)");
            assertSame(DatDtoStatus.SUCCESS, e.dtoStatus(), "status of cookie " + e.userCookie());
            assertEquals(lengths[next], e.transferredLength(), "transferred_length of cookie " + e.userCookie());
            next++;
        }
        f.quiet(evd, "no completion after the new DTOs'");
    }

    /**
     * dat_ep_post_recv, DESCRIPTION: "The operation is valid for all states of the Endpoint." A receive posted
     * UNCONNECTED, CONNECTED, right after a graceful dat_ep_disconnect (DISCONNECT_PENDING while a send is
     * outstanding, or already DISCONNECTED) and DISCONNECTED returns DAT_SUCCESS, and each completes once, in
     * posting order: the first with the message the peer sent, the others FLUSHED.
     * If this fails, check which EP state refused the receive, or lost it.
     */
    @Test
    @DatRule(call = "dat_ep_post_recv", section = "DESCRIPTION", rule = "valid for all states of the Endpoint")
    void required_ep_post_recv_validInEveryEndpointState() {
        Side active = f.side(f.epAttr(), null);
        Side passive = f.side(f.epAttr(), null);
        Region dst = f.region();
        Region src = f.region();
        assertSame(DatEpState.UNCONNECTED, active.ep().state());
        assertStatus(DatReturn.DAT_SUCCESS, postRecv(active, dst, 0, 64, 1), "dat_ep_post_recv in UNCONNECTED");
        f.connect(active, passive);
        assertStatus(DatReturn.DAT_SUCCESS, postRecv(active, dst, 64, 64, 2), "dat_ep_post_recv in CONNECTED");
        assertStatus(DatReturn.DAT_SUCCESS, passive.ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, 8), 11, 0),
                "dat_ep_post_send to the receive posted UNCONNECTED");
        assertEquals(1, f.completion(active.recvEvd(), DatDtoStatus.SUCCESS).userCookie());
        f.completion(passive.requestEvd(), DatDtoStatus.SUCCESS);
        // No receive waits for this send: a provider that finishes requests before a graceful disconnect stays
        // DISCONNECT_PENDING until the peer posts one below.
        assertStatus(DatReturn.DAT_SUCCESS, active.ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, 8), 10, 0),
                "dat_ep_post_send");
        active.ep().disconnect(DatCloseFlags.GRACEFUL);
        DatEpState pending = active.ep().state();
        assertStatus(DatReturn.DAT_SUCCESS, postRecv(active, dst, 128, 64, 3),
                "dat_ep_post_recv in " + pending + ", right after a graceful dat_ep_disconnect");
        assertStatus(DatReturn.DAT_SUCCESS, postRecv(passive, dst, 1024, 64, 20), "dat_ep_post_recv on the peer");
        assertTrue(f.next(active.connectEvd()).type() == DatEventType.CONNECTION_EVENT_DISCONNECTED,
                "the graceful disconnect ends with CONNECTION_EVENT_DISCONNECTED");
        assertSame(DatEpState.DISCONNECTED, active.ep().state());
        assertStatus(DatReturn.DAT_SUCCESS, postRecv(active, dst, 192, 64, 4), "dat_ep_post_recv in DISCONNECTED");
        for (long cookie = 2; cookie <= 4; cookie++) {
            assertEquals(cookie, f.completion(active.recvEvd(), DatDtoStatus.FLUSHED).userCookie(),
                    "the receives after the first complete FLUSHED, in posting order");
        }
        f.quiet(active.recvEvd(), "each receive completed once");
    }

    /**
     * dat_ep_post_recv in DISCONNECTED succeeds and the receive is flushed at once to recv_evd_handle (uDAPL's
     * rule for a post in that state, as the post_send page states it for sends), each with its cookie, however
     * many in a row.
     * If this fails, check that a receive posted after the connection ended completes FLUSHED without waiting for
     * anything else (soft-RoCE's user-space receive queue has no doorbell: a QP in ERROR drains it only when woken).
     */
    @Test
    @DatRule(call = "dat_ep_post_recv", section = "DESCRIPTION",
            rule = "in DISCONNECTED a receive succeeds and is flushed at once")
    void required_ep_post_recv_flushedAtOnceWhenDisconnected() {
        Connection c = f.connect();
        c.active().ep().disconnect(DatCloseFlags.ABRUPT);
        f.next(c.active().connectEvd());
        assertSame(DatEpState.DISCONNECTED, c.active().ep().state());
        Region dst = f.region();
        int depth = c.active().ep().query().epAttr().maxRecvDtos();
        int posts = Math.min(2 * depth + 1, 1 << 11);
        for (int i = 0; i < posts; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, postRecv(c.active(), dst, 0, 64, 400 + i),
                    "dat_ep_post_recv number " + (i + 1) + " in DISCONNECTED (max_recv_dtos " + depth + ")");
            DatEvent flushed = f.completion(c.active().recvEvd(), DatDtoStatus.FLUSHED);
            assertEquals(400 + i, flushed.userCookie(), "user_cookie of the flushed receive");
            assertSame(c.active().ep(), flushed.ep(), "ep_handle of the flushed receive");
        }
    }

    /**
     * A DTO that fails breaks the connection (uDAPL's error model: an unsuccessful DTO completion ends it): after a
     * message longer than its receive, both EPs end DISCONNECTED, each reports the end once on its connect EVD
     * (BROKEN or DISCONNECTED), and a receive posted on either side afterwards is flushed. Neither side's request
     * or receive EVD is read before its connection event is awaited: the end must be reported without the consumer
     * polling its completions.
     * If this fails, a provider learns of the failed DTO only from the completion it reaps, or does not tell the peer.
     */
    @Test
    @DatRule(call = "dat_ep_post_recv", section = "DESCRIPTION", rule = "a failed DTO breaks the connection, both ends")
    void required_ep_post_recv_failedDtoBreaksTheConnectionAtBothEnds() {
        Connection c = f.connect();
        Region dst = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, postRecv(c.passive(), dst, 0, 16, 5), "dat_ep_post_recv of 16 bytes");
        Region src = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, 64), 6, 0),
                "dat_ep_post_send of 64 bytes");
        for (Side side : new Side[] {c.passive(), c.active()}) {
            DatEventType type = f.next(side.connectEvd()).type();
            assertTrue(type == DatEventType.CONNECTION_EVENT_BROKEN
                    || type == DatEventType.CONNECTION_EVENT_DISCONNECTED, "connection event " + type);
            assertSame(DatEpState.DISCONNECTED, side.ep().state());
        }
        assertEquals(5, f.completion(c.passive().recvEvd(), DatDtoStatus.LOCAL_LENGTH_ERR).userCookie());
        assertNotEquals(DatDtoStatus.SUCCESS, f.next(c.active().requestEvd()).dtoStatus());
        for (Side side : new Side[] {c.passive(), c.active()}) {
            assertStatus(DatReturn.DAT_SUCCESS, postRecv(side, dst, 64, 64, 7), "dat_ep_post_recv after the break");
            assertEquals(7, f.completion(side.recvEvd(), DatDtoStatus.FLUSHED).userCookie());
            f.quiet(side.connectEvd(), "the connection's end was reported once");
        }
    }

    /**
     * dat_ep_post_recv: a message larger than the posted buffer completes the receive with
     * DAT_DTO_ERR_LOCAL_LENGTH, and the send does not complete successfully.
     * If this fails, an oversized message was truncated silently or overran the buffer.
     */
    @Test
    @DatRule(call = "dat_ep_post_recv", section = "DESCRIPTION",
            rule = "a message larger than the buffer is a length error")
    void required_ep_post_recv_oversizedMessageIsLocalLengthError() {
        Connection c = f.connect();
        Region dst = f.region();
        dst.memory().fill((byte) 0x33);
        assertStatus(DatReturn.DAT_SUCCESS, postRecv(c.passive(), dst, 0, 16, 5), "dat_ep_post_recv of 16 bytes");
        Region src = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, 64), 6, 0),
                "dat_ep_post_send of 64 bytes");
        assertEquals(5, f.completion(c.passive().recvEvd(), DatDtoStatus.LOCAL_LENGTH_ERR).userCookie());
        DatEvent sent = f.next(c.active().requestEvd());
        assertNotEquals(DatDtoStatus.SUCCESS, sent.dtoStatus(), "the oversized send must not succeed");
        TckFixture.assertFilled(dst.memory().asSlice(16), (byte) 0x33, "memory after the 16-byte buffer");
    }

    /**
     * dat_ep_free: freeing a connected EP disconnects it abruptly; the peer sees the connection end.
     * If this fails, a connected EP could not be freed, or its peer stayed CONNECTED.
     */
    @Test
    @DatRule(call = "dat_ep_free", section = "DESCRIPTION", rule = "freeing a connected EP disconnects it")
    void required_ep_free_disconnectsAConnectedEp() {
        Connection c = f.connect();
        c.active().ep().close();
        assertTrue(c.active().ep().isClosed());
        DatEventType type = f.next(c.passive().connectEvd()).type();
        assertTrue(type == DatEventType.CONNECTION_EVENT_DISCONNECTED || type == DatEventType.CONNECTION_EVENT_BROKEN,
                "peer connection event " + type);
        assertSame(DatEpState.DISCONNECTED, c.passive().ep().state());
        assertThrowsDat(DatReturn.INVALID_HANDLE, c.active().ep()::query, "dat_ep_query on a freed EP");
    }

    /**
     * dat_ep_post_rdma_read: the remote bytes land in the local IOV in order, and no further (a local IOV larger than
     * the remote buffer is filled in part); a remote region without REMOTE_READ is refused (at once or by an
     * unsuccessful completion) and nothing is read; a local IOV smaller than the remote buffer is DAT_LENGTH_ERROR.
     * If this fails, check the read path, its length check and its remote privilege check.
     */
    @Test
    @DatRule(call = "dat_ep_post_rdma_read", section = "DESCRIPTION", rule = "reads remote data; needs REMOTE_READ",
            returns = {DatReturn.SUCCESS, DatReturn.LENGTH_ERROR})
    void required_ep_post_rdma_read_readsRemoteDataAndChecksPrivilege() {
        Connection c = f.connect();
        Region remote = f.region(4096, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE
                | DatMemPriv.REMOTE_READ);
        TckFixture.pattern(remote.memory(), 31);
        Region local = f.region();
        local.memory().fill((byte) 0x77);
        // The local IOV holds 30 + 100 bytes for 100 remote ones: its second segment is filled in part only.
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postRdmaRead(2, f.iov(2).set(0, local.lmr(), 1000, 30)
                .set(1, local.lmr(), 0, 100), 9, remote.lmr().rmrContext(), remote.address() + 100, 100, 0),
                "dat_ep_post_rdma_read");
        DatEvent read = f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS);
        assertEquals(9, read.userCookie());
        assertEquals(100, read.transferredLength(), "transfered_length of the read");
        TckFixture.assertSameBytes(remote.memory().asSlice(100, 30), local.memory().asSlice(1000, 30), "segment 0");
        TckFixture.assertSameBytes(remote.memory().asSlice(130, 70), local.memory().asSlice(0, 70), "segment 1");
        TckFixture.assertFilled(local.memory().asSlice(70, 930), (byte) 0x77, "local memory past the 100 bytes read");
        TckFixture.assertFilled(local.memory().asSlice(1030), (byte) 0x77, "local memory after segment 0");
        assertStatus(DatReturn.DAT_LENGTH_ERROR, c.active().ep().postRdmaRead(1, f.iov(1).set(0, local.lmr(), 0, 99),
                10, remote.lmr().rmrContext(), remote.address(), 100, 0),
                "dat_ep_post_rdma_read of 100 remote bytes into 99 local ones");
        TckFixture.assertFilled(local.memory().asSlice(70, 930), (byte) 0x77, "local memory after the refused read");
        Region writeOnly = f.region(4096, DatMemPriv.LOCAL_READ | DatMemPriv.REMOTE_WRITE);
        Region untouched = f.region();
        Connection fresh = f.connect();
        int rc = fresh.active().ep().postRdmaRead(1, f.iov(1).set(0, untouched.lmr(), 0, 64), 1,
                writeOnly.lmr().rmrContext(), writeOnly.address(), 64, 0);
        if (rc == DatReturn.DAT_SUCCESS) {
            assertNotEquals(DatDtoStatus.SUCCESS, f.next(fresh.active().requestEvd()).dtoStatus(),
                    "a read of memory without REMOTE_READ must not succeed");
        } else {
            assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION, rc, "dat_ep_post_rdma_read without REMOTE_READ");
        }
        TckFixture.assertFilled(untouched.memory(), (byte) 0, "local buffer of the refused read");
    }
}
