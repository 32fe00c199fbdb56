package dat.tck.rules;

import static dat.tck.rules.TckFixture.assertFilled;
import static dat.tck.rules.TckFixture.assertSameBytes;
import static dat.tck.rules.TckFixture.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatMemPriv;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.Iov;
import dat.tck.DatRule;
import dat.tck.TckEnvironment;
import dat.tck.rules.TckFixture.Connection;
import dat.tck.rules.TckFixture.Region;
import dat.tck.rules.TckFixture.Side;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Rules of {@code dat_srq_post_recv(3DAT)}.
 */
public abstract class SrqPostRecvRules extends RuleSupport {

    private static final String CALL = "dat_srq_post_recv";
    private static final long TIMEOUT_200MS = 200_000;

    /**
     * @param env the provider under test
     */
    protected SrqPostRecvRules(TckEnvironment env) {
        super(env);
    }

    private DatSrq srq(int maxRecvDtos) {
        requiredFeature(f.provider.srqSupported(), "srq_supported = false");
        return f.ia.createSrq(f.pz, DatSrqAttr.of(maxRecvDtos, Math.min(4, f.limits.maxIovSegmentsPerDto())));
    }

    /** A connection whose passive side takes its receives from {@code srq}. */
    private Connection srqConnection(DatSrq srq, int passiveRecvFlags) {
        return f.connect(f.side(f.epAttr(), null), f.side(f.epAttr(passiveRecvFlags, 0), srq));
    }

    private int send(Side side, Region from, long offset, long length, long cookie, int flags) {
        Iov iov = f.iov(1).set(0, from.lmr(), offset, length);
        return side.ep().postSend(length == 0 ? 0 : 1, length == 0 ? null : iov, cookie, flags);
    }

    /**
     * RETURN VALUES: "DAT_SUCCESS The operation was successful."
     * If this fails, check that a valid one-segment buffer of the SRQ's PZ with local write is accepted.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "a valid buffer is accepted", returns = DatReturn.SUCCESS)
    void required_srq_post_recv_successForValidBuffer() {
        DatSrq srq = srq(4);
        Region r = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, f.iov(1).set(0, r.lmr(), 0, 4096), 1), CALL);
    }

    /**
     * RETURN VALUES: "DAT_INVALID_HANDLE The srq_handle argument is an invalid DAT handle."
     * If this fails, check that a freed SRQ answers DAT_INVALID_HANDLE instead of accepting or crashing.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "a freed SRQ is an invalid handle",
            returns = DatReturn.INVALID_HANDLE)
    void required_srq_post_recv_invalidHandleAfterFree() {
        DatSrq srq = srq(4);
        Region r = f.region();
        srq.close();
        assertStatus(DatReturn.DAT_INVALID_HANDLE, srq.postRecv(1, f.iov(1).set(0, r.lmr(), 0, 64), 1),
                CALL + " on a freed SRQ");
    }

    /**
     * RETURN VALUES: "DAT_INSUFFICIENT_RESOURCES The operation failed due to resource limitations."
     * If this fails, check that posting beyond the SRQ's actual max_recv_dtos (dat_srq_query) is refused.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "a full SRQ refuses another buffer",
            returns = DatReturn.INSUFFICIENT_RESOURCES)
    void required_srq_post_recv_insufficientResourcesWhenFull() {
        DatSrq srq = srq(4);
        int capacity = srq.query().maxRecvDtos();
        applicableIf(capacity <= 1 << 16, "SRQ of " + capacity + " entries is too large to fill");
        Region r = f.region(64L * (capacity + 1), DatMemPriv.LOCAL_WRITE | DatMemPriv.LOCAL_READ);
        Iov iov = f.iov(1);
        for (int i = 0; i < capacity; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, r.lmr(), 64L * i, 64), i),
                    CALL + " buffer " + i + " of " + capacity);
        }
        assertStatus(DatReturn.DAT_INSUFFICIENT_RESOURCES,
                srq.postRecv(1, iov.set(0, r.lmr(), 64L * capacity, 64), capacity), CALL + " on a full SRQ");
    }

    /**
     * RETURN VALUES: "DAT_INVALID_PARAMETER Invalid parameter. For example, one of the IOV segments pointed to a
     * memory outside its LMR."
     * If this fails, check the bounds check of every triplet against its LMR, at both ends.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "a segment outside its LMR is refused",
            returns = DatReturn.INVALID_PARAMETER)
    void required_srq_post_recv_invalidParameterForSegmentOutsideLmr() {
        DatSrq srq = srq(4);
        Region r = f.region();
        Iov iov = f.iov(2).set(0, r.lmr(), 0, 64);
        iov.set(1, r.lmr(), 4096 - 32, 64);
        assertStatus(DatReturn.DAT_INVALID_PARAMETER, srq.postRecv(2, iov, 1), CALL + " past the LMR's end");
        iov.set(1, r.lmr().lmrContext(), r.address() - 8, 16);
        assertStatus(DatReturn.DAT_INVALID_PARAMETER, srq.postRecv(2, iov, 1), CALL + " before the LMR's start");
        assertStatus(DatReturn.DAT_INVALID_PARAMETER, srq.postRecv(-1, iov, 1), CALL + " with num_segments -1");
    }

    /**
     * RETURN VALUES: "DAT_PROTECTION_VIOLATION ... Protection Zone mismatch between an LMR of one of the
     * local_iov segments and the SRQ."
     * If this fails, check that the PZ of each LMR is compared with the SRQ's PZ.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "an LMR of another PZ is refused",
            returns = DatReturn.PROTECTION_VIOLATION)
    void required_srq_post_recv_protectionViolationForLmrOfAnotherPz() {
        DatSrq srq = srq(4);
        DatPz other = f.ia.createPz();
        Region foreign = f.region(other, 4096, DatMemPriv.ALL);
        assertStatus(DatReturn.DAT_PROTECTION_VIOLATION,
                srq.postRecv(1, f.iov(1).set(0, foreign.lmr(), 0, 64), 1), CALL + " with an LMR of another PZ");
    }

    /**
     * RETURN VALUES: "DAT_PRIVILEGES_VIOLATION ... One of the LMRs used in local_iov was either invalid or did not
     * have the local write privileges."
     * If this fails, check the LOCAL_WRITE check and the lookup of the lmr_context.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "an LMR without local write, or an invalid one, is refused",
            returns = DatReturn.PRIVILEGES_VIOLATION)
    void required_srq_post_recv_privilegesViolationWithoutLocalWriteOrInvalidLmr() {
        DatSrq srq = srq(4);
        Region readOnly = f.region(4096, DatMemPriv.LOCAL_READ);
        assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION,
                srq.postRecv(1, f.iov(1).set(0, readOnly.lmr(), 0, 64), 1), CALL + " without LOCAL_WRITE");
        Region freed = f.region();
        Iov stale = f.iov(1).set(0, freed.lmr(), 0, 64);
        freed.lmr().close();
        assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION, srq.postRecv(1, stale, 1), CALL + " with a freed LMR");
    }

    /**
     * PARAMETERS: "num_segments ... Can be 0 for receiving a zero-size message. local_iov ... Can be NULL for
     * receiving a zero-size message."
     * If this fails, check that (0, NULL) is a valid buffer and that a zero-byte send completes into it with
     * transfered_length 0.
     */
    @Test
    @DatRule(call = CALL, section = "PARAMETERS", rule = "a zero-segment buffer receives a zero-size message")
    void required_srq_post_recv_zeroSegmentsReceiveZeroSizeMessage() {
        DatSrq srq = srq(4);
        Connection c = srqConnection(srq, DatCompletionFlags.DEFAULT);
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(0, null, 77), CALL + " (0, NULL)");
        Region src = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, send(c.active(), src, 0, 0, 5, 0), "dat_ep_post_send of 0 bytes");
        DatEvent recv = f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS);
        assertEquals(77, recv.userCookie());
        assertEquals(0, recv.transferredLength());
        f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS);
    }

    /**
     * DESCRIPTION: "The local_iov segments are filled in the I/O Vector order until the whole message is
     * received. This ensures that all the front segments of the local_iov I/O Vector are completely filled, only
     * one segment is partially filled, if needed, and all segments that follow it are not filled at all."
     * If this fails, check the scatter loop: segment order, the partial segment's length, untouched tail.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "segments filled in IOV order, at most one partially")
    void required_srq_post_recv_segmentsFilledInIovOrder() {
        applicableIf(f.limits.maxIovSegmentsPerDto() >= 3, "needs 3 IOV segments");
        DatSrq srq = srq(4);
        Connection c = srqConnection(srq, DatCompletionFlags.DEFAULT);
        Region dst = f.region(4096, DatMemPriv.LOCAL_WRITE | DatMemPriv.LOCAL_READ);
        dst.memory().fill((byte) 0x5A);
        // Three 100-byte segments, out of address order, so IOV order and address order differ.
        Iov iov = f.iov(3).set(0, dst.lmr(), 1000, 100).set(1, dst.lmr(), 0, 100).set(2, dst.lmr(), 2000, 100);
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(3, iov, 9), CALL);
        Region src = f.region();
        pattern(src.memory(), 3);
        assertStatus(DatReturn.DAT_SUCCESS, send(c.active(), src, 0, 250, 1, 0), "dat_ep_post_send of 250 bytes");
        DatEvent recv = f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS);
        assertEquals(250, recv.transferredLength(), "transfered_length");
        assertSameBytes(src.memory().asSlice(0, 100), dst.memory().asSlice(1000, 100), "segment 0 (full)");
        assertSameBytes(src.memory().asSlice(100, 100), dst.memory().asSlice(0, 100), "segment 1 (full)");
        assertSameBytes(src.memory().asSlice(200, 50), dst.memory().asSlice(2000, 50), "segment 2 (partial)");
        assertFilled(dst.memory().asSlice(2050, 50), (byte) 0x5A, "rest of segment 2 (not filled)");
        assertFilled(dst.memory().asSlice(100, 900), (byte) 0x5A, "memory between segments");
    }

    /**
     * DESCRIPTION: "There is no requirement on the Consumer that the value user_cookie should be unique for each
     * DTO. The user_cookie is returned to the Consumer in the Completion event for the posted Receive."
     * If this fails, check that the cookie travels with the buffer, not with the message or the EP.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "user_cookie returned, need not be unique")
    void required_srq_post_recv_cookieReturnedEvenWhenNotUnique() {
        DatSrq srq = srq(4);
        Connection c = srqConnection(srq, DatCompletionFlags.DEFAULT);
        Region dst = f.region();
        Iov iov = f.iov(1);
        long cookie = 0x1234_5678_9ABC_DEF0L;
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, dst.lmr(), 0, 64), cookie), CALL);
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, dst.lmr(), 64, 64), cookie), CALL);
        Region src = f.region();
        for (int i = 0; i < 2; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, send(c.active(), src, 0, 8, i, 0), "dat_ep_post_send");
            assertEquals(cookie, f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS).userCookie());
        }
    }

    /**
     * DESCRIPTION: "If EP Recv Completion Flag is DAT_COMPLETION_UNSIGNALLED_FLAG, which is the default value for
     * SRQ EP, then all posted Recvs will generate completions with Signal Notifications."
     * If this fails, check that an SRQ EP created with UNSIGNALLED recv flags still wakes dat_evd_wait.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "UNSIGNALLED EP recv flag still completes with signal")
    void required_srq_post_recv_unsignalledEpRecvFlagStillSignals() {
        DatSrq srq = srq(4);
        Connection c = srqConnection(srq, DatCompletionFlags.UNSIGNALLED);
        Region dst = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, f.iov(1).set(0, dst.lmr(), 0, 64), 3), CALL);
        assertStatus(DatReturn.DAT_SUCCESS, send(c.active(), f.region(), 0, 16, 1, 0), "dat_ep_post_send");
        DatEvent event = new DatEvent();
        assertStatus(DatReturn.DAT_SUCCESS,
                c.passive().recvEvd().await(f.eventTimeoutMicros(), 1, event),
                "dat_evd_wait for the receive of an UNSIGNALLED SRQ EP");
        assertSame(DatEventType.DTO_COMPLETION, event.type());
        assertEquals(3, event.userCookie());
    }

    /**
     * DESCRIPTION: "Providers that allow Consumers to get ownership of the local_iov but not the memory it
     * specified back after the dat_srq_post_recv() returns should document this behavior and also specify its
     * support in Provider attributes."
     * If this fails, the provider claims iov_ownership_on_return = CONSUMER but still reads the IOV after the
     * post returned: copy the triplets at post time, or report PROVIDER_NOMOD.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "IOV reusable at return when iov_ownership_on_return = CONSUMER")
    void optional_srq_post_recv_iovReusableOnReturnWhenConsumerOwned() {
        optionalFeature(f.provider.iovOwnershipOnReturn() == dat.api.DatIovOwnership.CONSUMER,
                "iov_ownership_on_return = " + f.provider.iovOwnershipOnReturn());
        DatSrq srq = srq(4);
        Connection c = srqConnection(srq, DatCompletionFlags.DEFAULT);
        Region dst = f.region();
        Region decoy = f.region();
        Iov iov = f.iov(1).set(0, dst.lmr(), 0, 128);
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov, 1), CALL);
        iov.set(0, decoy.lmr(), 0, 128);
        Region src = f.region();
        pattern(src.memory(), 11);
        assertStatus(DatReturn.DAT_SUCCESS, send(c.active(), src, 0, 128, 1, 0), "dat_ep_post_send");
        f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS);
        assertSameBytes(src.memory().asSlice(0, 128), dst.memory().asSlice(0, 128), "buffer named at post time");
        assertFilled(decoy.memory(), (byte) 0, "buffer the IOV named after the post");
    }

    /**
     * DESCRIPTION: "The completion of the Receive posted to the SRQ is equivalent to what happened to the Receive
     * posted to the Endpoint for the Endpoint that dequeued the Receive buffer from the Shared Receive queue."
     * If this fails, check that the completion goes to the recv EVD of the EP that took the buffer and names it.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "completion reported by the EP that dequeued the buffer")
    void required_srq_post_recv_completionReportedByTheDequeuingEp() {
        DatSrq srq = srq(8);
        Connection one = srqConnection(srq, DatCompletionFlags.DEFAULT);
        Connection two = srqConnection(srq, DatCompletionFlags.DEFAULT);
        Region dst = f.region();
        Iov iov = f.iov(1);
        for (int i = 0; i < 2; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, dst.lmr(), 512L * i, 512), i), CALL);
        }
        Region src = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, send(two.active(), src, 0, 40, 1, 0), "send on connection two");
        DatEvent recv = f.completion(two.passive().recvEvd(), DatDtoStatus.SUCCESS);
        assertSame(two.passive().ep(), recv.ep(), "ep_handle of the completion");
        assertEquals(40, recv.transferredLength());
        f.quiet(one.passive().recvEvd(), "the other EP on the SRQ received nothing");
    }

    /**
     * DESCRIPTION: "The posted Recv DTOs will complete in the order of Send postings to the other endpoint of each
     * connection whose local EP uses SRQ."
     * If this fails, check that each connection's messages are matched to SRQ buffers in send order.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "per-connection completion order is the peer's send order")
    void required_srq_post_recv_perConnectionCompletionOrderIsSendOrder() {
        checkPerConnectionOrder(f, srq(32));
    }

    /**
     * Two connections on one SRQ, sends interleaved: each connection's receives must complete in its own send
     * order (the rule appears on both dat_srq_post_recv and dat_srq_create).
     */
    static void checkPerConnectionOrder(TckFixture f, DatSrq srq) {
        Connection one = f.connect(f.side(f.epAttr(), null), f.side(f.epAttr(), srq));
        Connection two = f.connect(f.side(f.epAttr(), null), f.side(f.epAttr(), srq));
        int perConnection = 8;
        Region dst = f.region(64L * 2 * perConnection, DatMemPriv.LOCAL_WRITE | DatMemPriv.LOCAL_READ);
        Iov iov = f.iov(1);
        for (int i = 0; i < 2 * perConnection; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, dst.lmr(), 64L * i, 64), i), CALL);
        }
        Region src = f.region(8L * 2 * perConnection, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
        for (int i = 0; i < perConnection; i++) {
            for (Connection c : new Connection[] {one, two}) {
                long seq = c == one ? i : 1000 + i;
                src.memory().set(ValueLayout.JAVA_LONG_UNALIGNED, 8 * (c == one ? i : perConnection + i), seq);
                long offset = 8L * (c == one ? i : perConnection + i);
                assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(1, f.iov(1).set(0, src.lmr(), offset, 8), seq, 0), "dat_ep_post_send");
            }
        }
        for (Connection c : new Connection[] {one, two}) {
            long base = c == one ? 0 : 1000;
            for (int i = 0; i < perConnection; i++) {
                DatEvent recv = f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS);
                long landed = recv.userCookie();
                long seq = dst.memory().get(ValueLayout.JAVA_LONG_UNALIGNED, 64 * landed);
                assertEquals(base + i, seq, "message " + i + " of its connection, in buffer " + landed);
            }
        }
    }

    /**
     * DESCRIPTION: "The operation is valid for all states of the Shared Receive Queue."
     * If this fails, check that buffers can be posted before any EP is attached and after all EPs left.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "valid in every SRQ state, with or without EPs")
    void required_srq_post_recv_validWithoutAttachedEps() {
        DatSrq srq = srq(4);
        Region dst = f.region();
        Iov iov = f.iov(1);
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, dst.lmr(), 0, 64), 1), CALL + " with no EP");
        Connection c = srqConnection(srq, DatCompletionFlags.DEFAULT);
        c.active().ep().disconnect(DatCloseFlags.ABRUPT);
        c.passive().ep().close();
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, dst.lmr(), 64, 64), 2),
                CALL + " after its only EP was freed");
    }

    /**
     * DESCRIPTION: "If the reported status of the Completion DTO event ... is not DAT_DTO_SUCCESS, the content of
     * the local_iov is not defined and the transfered_length in the DTO Completion event is not defined."
     * Nothing is required, so nothing can be verified.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "content undefined after an unsuccessful completion")
    void untested_srq_post_recv_contentUndefinedAfterError() {
        Assumptions.abort("not verified by this TCK: the rule leaves the content undefined");
    }

    /**
     * USAGE: "For the best Recv operation performance, the Consumer should align each buffer segment of local_iov
     * to the Optimal Buffer Alignment attribute of the Provider. For portable applications, the Consumer should
     * align each buffer segment of local_iov to the DAT_OPTIMAL_ALIGNMENT."
     * If this fails, optimal_buffer_alignment is not a power of two, or buffers at that alignment and at
     * DAT_OPTIMAL_ALIGNMENT do not receive correctly.
     */
    @Test
    @DatRule(call = CALL, section = "USAGE", rule = "buffers aligned to optimal_buffer_alignment receive correctly")
    void required_srq_post_recv_alignedBuffersReceive() {
        int alignment = f.provider.optimalBufferAlignment();
        assertTrue(alignment > 0 && Integer.bitCount(alignment) == 1,
                "optimal_buffer_alignment " + alignment + " must be a power of two");
        DatSrq srq = srq(4);
        Connection c = srqConnection(srq, DatCompletionFlags.DEFAULT);
        Region dst = f.region(4L * Dat.DAT_OPTIMAL_ALIGNMENT + alignment, DatMemPriv.LOCAL_WRITE);
        assertEquals(0, dst.address() % alignment, "the kit registers memory at that alignment");
        assertStatus(DatReturn.DAT_SUCCESS,
                srq.postRecv(1, f.iov(1).set(0, dst.lmr(), Dat.DAT_OPTIMAL_ALIGNMENT, 96), 1), CALL);
        Region src = f.region();
        pattern(src.memory(), 5);
        assertStatus(DatReturn.DAT_SUCCESS, send(c.active(), src, 0, 96, 1, 0), "dat_ep_post_send");
        f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS);
        assertSameBytes(src.memory().asSlice(0, 96), dst.memory().asSlice(Dat.DAT_OPTIMAL_ALIGNMENT, 96),
                "buffer at DAT_OPTIMAL_ALIGNMENT");
    }

    /**
     * USAGE: "Only the Endpoint that is in Connected or Disconnect Pending states can dequeue buffers from SRQ."
     * If this fails, an unconnected EP on the SRQ took the only buffer, so the connected EP found none.
     */
    @Test
    @DatRule(call = CALL, section = "USAGE", rule = "only connected EPs dequeue SRQ buffers")
    void required_srq_post_recv_onlyConnectedEpsDequeue() {
        DatSrq srq = srq(4);
        Side idle = f.side(f.epAttr(), srq);
        Region dst = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, f.iov(1).set(0, dst.lmr(), 0, 64), 42), CALL);
        Connection c = srqConnection(srq, DatCompletionFlags.DEFAULT);
        assertStatus(DatReturn.DAT_SUCCESS, send(c.active(), f.region(), 0, 32, 1, 0), "dat_ep_post_send");
        assertEquals(42, f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS).userCookie());
        f.quiet(idle.recvEvd(), "the unconnected EP on the SRQ");
    }

    /**
     * USAGE: "When an Endpoint is transitioned into Disconnected state, all the buffers that it dequeued from SRQ
     * are queued on the Endpoint recv_evd. All the buffers that the Endpoint has not completed by the time of
     * transition into Disconnected state and that have not completed message reception will be flushed."
     * If this fails, a disconnect lost a completed receive, flushed a buffer the EP never took, or took the SRQ's
     * remaining buffers with it.
     */
    @Test
    @DatRule(call = CALL, section = "USAGE", rule = "disconnect keeps completions and leaves untaken buffers on the SRQ")
    void required_srq_post_recv_disconnectKeepsCompletionsAndLeavesSrqBuffers() {
        DatSrq srq = srq(8);
        Connection one = srqConnection(srq, DatCompletionFlags.DEFAULT);
        Region dst = f.region();
        Iov iov = f.iov(1);
        for (int i = 0; i < 3; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, dst.lmr(), 256L * i, 256), i), CALL);
        }
        Region src = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, send(one.active(), src, 0, 16, 1, 0), "send before disconnect");
        f.completion(one.active().requestEvd(), DatDtoStatus.SUCCESS);
        one.passive().ep().disconnect(DatCloseFlags.ABRUPT);
        DatEvent kept = f.completion(one.passive().recvEvd(), DatDtoStatus.SUCCESS);
        assertEquals(16, kept.transferredLength(), "the receive completed before the disconnect");
        f.quiet(one.passive().recvEvd(), "no flush for SRQ buffers the EP never took");
        Connection two = srqConnection(srq, DatCompletionFlags.DEFAULT);
        for (int i = 0; i < 2; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, send(two.active(), src, 0, 16, i, 0), "send on a new connection");
            f.completion(two.passive().recvEvd(), DatDtoStatus.SUCCESS);
        }
    }

    /**
     * USAGE: "If the Endpoint Recv Completion flag is DAT_COMPLETION_SOLICITED_WAIT_FLAG then matching Send DTO
     * completion flag value for Solicited Wait determines if the completion will be Signalled or not."
     * If this fails, dat_evd_wait woke for an unsolicited receive, or did not wake for a solicited one.
     */
    @Test
    @DatRule(call = CALL, section = "USAGE", rule = "SOLICITED_WAIT EP: only solicited sends signal the receive")
    void optional_srq_post_recv_solicitedWaitEpSignalsOnlySolicitedSends() {
        optionalFeature((f.provider.completionFlagsSupported() & DatCompletionFlags.SOLICITED_WAIT) != 0,
                "completion_flags_supported lacks SOLICITED_WAIT");
        DatSrq srq = srq(4);
        Connection c = srqConnection(srq, DatCompletionFlags.SOLICITED_WAIT);
        Region dst = f.region();
        Iov iov = f.iov(1);
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, dst.lmr(), 0, 64), 1), CALL);
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, dst.lmr(), 64, 64), 2), CALL);
        Region src = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, send(c.active(), src, 0, 8, 1, 0), "unsolicited send");
        f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS);
        DatEvent event = new DatEvent();
        assertStatus(DatReturn.DAT_TIMEOUT_EXPIRED, c.passive().recvEvd().await(TIMEOUT_200MS, 1, event),
                "dat_evd_wait must not wake for an unsolicited receive");
        assertStatus(DatReturn.DAT_SUCCESS,
                send(c.active(), src, 0, 8, 2, DatCompletionFlags.SOLICITED_WAIT), "solicited send");
        assertStatus(DatReturn.DAT_SUCCESS,
                c.passive().recvEvd().await(f.eventTimeoutMicros(), 1, event),
                "dat_evd_wait wakes for the solicited receive");
        assertEquals(1, event.userCookie(), "the unsolicited completion is still queued first");
        assertEquals(2, f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS).userCookie());
    }

    /**
     * USAGE: "If the Endpoint Recv Completion flag is DAT_COMPLETION_EVD_THRESHOLD_FLAG, the posted Recv completion
     * will be generated with Signal and dat_evd_wait threshold value controls if the waiter will be unblocked or
     * not."
     * If this fails, dat_evd_wait with threshold 2 returned after one receive, or not after two.
     */
    @Test
    @DatRule(call = CALL, section = "USAGE", rule = "EVD_THRESHOLD EP: the wait threshold decides when the waiter wakes")
    void optional_srq_post_recv_evdThresholdEpWakesAtThreshold() {
        optionalFeature((f.provider.completionFlagsSupported() & DatCompletionFlags.EVD_THRESHOLD) != 0,
                "completion_flags_supported lacks EVD_THRESHOLD");
        DatSrq srq = srq(4);
        Connection c = srqConnection(srq, DatCompletionFlags.EVD_THRESHOLD);
        Region dst = f.region();
        Iov iov = f.iov(1);
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, dst.lmr(), 0, 64), 1), CALL);
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, dst.lmr(), 64, 64), 2), CALL);
        Region src = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, send(c.active(), src, 0, 8, 1, 0), "first send");
        f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS);
        DatEvent event = new DatEvent();
        assertStatus(DatReturn.DAT_TIMEOUT_EXPIRED, c.passive().recvEvd().await(TIMEOUT_200MS, 2, event),
                "dat_evd_wait(threshold 2) with one completion queued");
        assertStatus(DatReturn.DAT_SUCCESS, send(c.active(), src, 0, 8, 2, 0), "second send");
        assertStatus(DatReturn.DAT_SUCCESS,
                c.passive().recvEvd().await(f.eventTimeoutMicros(), 2, event),
                "dat_evd_wait(threshold 2) with two completions queued");
        assertEquals(1, event.userCookie());
        assertEquals(1, event.nmore(), "nmore after taking the first of two");
    }

    /**
     * DESCRIPTION: "Providers shall avoid resource allocation as part of dat_srq_post_recv() to ensure that this
     * operation is nonblocking." Allocation is measured by the JMH suite's {@code -prof gc} (0 B/op), not by this
     * kit.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "no resource allocation on the post")
    void untested_srq_post_recv_noResourceAllocation() {
        org.junit.jupiter.api.Assumptions.abort("not verified by this TCK: measured by dat.bench with -prof gc");
    }

    /**
     * DESCRIPTION: "The dat_srq_post_recv() function is asynchronous, nonblocking, and its thread safety is
     * Provider-dependent." A provider that reports is_thread_safe must take posts from several threads at once
     * without losing or duplicating a buffer.
     * If this fails, concurrent posts lost buffers, double-counted them, or corrupted the SRQ.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "concurrent posts are safe when is_thread_safe")
    void optional_srq_post_recv_concurrentPostsWhenThreadSafe() throws InterruptedException {
        optionalFeature(f.provider.isThreadSafe(), "is_thread_safe = false");
        int threads = 4;
        int perThread = 64;
        DatSrq srq = srq(threads * perThread);
        Region dst = f.region(64L * threads * perThread, DatMemPriv.LOCAL_WRITE | DatMemPriv.LOCAL_READ);
        java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger();
        Thread[] posters = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int base = t * perThread;
            Iov iov = f.iov(1);
            posters[t] = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < perThread; i++) {
                    int n = base + i;
                    if (srq.postRecv(1, iov.set(0, dst.lmr(), 64L * n, 64), n) != DatReturn.DAT_SUCCESS) {
                        failures.incrementAndGet();
                    }
                }
            });
        }
        for (Thread t : posters) {
            t.join();
        }
        assertEquals(0, failures.get(), "failed concurrent posts");
        Connection c = srqConnection(srq, DatCompletionFlags.DEFAULT);
        f.sendAndReap(c, threads * perThread);
        java.util.Set<Long> cookies = new java.util.HashSet<>();
        for (int i = 0; i < threads * perThread; i++) {
            cookies.add(f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS).userCookie());
        }
        assertEquals(threads * perThread, cookies.size(), "every buffer received exactly once");
    }
}
