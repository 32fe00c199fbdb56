// SPDX-License-Identifier: Apache-2.0
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
import dat.api.DatEpState;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIovOwnership;
import dat.api.DatMemPriv;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.Iov;
import dat.tck.DatRule;
import dat.tck.TckEnvironment;
import dat.tck.rules.TckFixture.Connection;
import dat.tck.rules.TckFixture.Region;
import dat.tck.rules.TckFixture.Side;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
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
     * The SRQ holds exactly its actual max_recv_dtos (dat_srq_query) outstanding buffers: refused posts take no room,
     * and under traffic each reaped completion makes room for exactly one more buffer.
     * If this fails, check the SRQ's count of outstanding buffers: a refused post counted, a reaped completion not
     * subtracted, or the full test off by one.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "a full SRQ refuses another buffer",
            returns = DatReturn.INSUFFICIENT_RESOURCES)
    void required_srq_post_recv_insufficientResourcesWhenFull() {
        DatSrq srq = srq(4);
        int capacity = srq.query().maxRecvDtos();
        applicableIf(capacity <= 1 << 12, "SRQ of " + capacity + " entries is too large to fill");
        Region r = f.region(64L * (capacity + 1), DatMemPriv.LOCAL_WRITE | DatMemPriv.LOCAL_READ);
        Region readOnly = f.region(64, DatMemPriv.LOCAL_READ);
        Iov iov = f.iov(1);
        for (int i = 0; i < 2 * capacity; i++) {
            assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION, srq.postRecv(1, iov.set(0, readOnly.lmr(), 0, 64), i),
                    CALL + " without LOCAL_WRITE");
            assertStatus(DatReturn.DAT_INVALID_PARAMETER, srq.postRecv(1, iov.set(0, r.lmr(), 64L * capacity, 128), i),
                    CALL + " past the LMR's end");
        }
        for (int i = 0; i < capacity; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, r.lmr(), 64L * i, 64), i),
                    CALL + " buffer " + i + " of " + capacity + ", after " + 4 * capacity + " refused posts");
        }
        assertStatus(DatReturn.DAT_INSUFFICIENT_RESOURCES,
                srq.postRecv(1, iov.set(0, r.lmr(), 64L * capacity, 64), capacity), CALL + " on a full SRQ");
        Connection c = srqConnection(srq, DatCompletionFlags.DEFAULT);
        Region src = f.region();
        for (int round = 0; round < 3 * capacity; round++) {
            assertStatus(DatReturn.DAT_SUCCESS, send(c.active(), src, 0, 8, round, 0), "dat_ep_post_send " + round);
            f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS);
            long freed = f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS).userCookie();
            assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, r.lmr(), 64L * freed, 64), freed),
                    CALL + " into the buffer message " + round + " reaped");
            assertStatus(DatReturn.DAT_INSUFFICIENT_RESOURCES,
                    srq.postRecv(1, iov.set(0, r.lmr(), 64L * capacity, 64), -1),
                    CALL + " on an SRQ full again after " + (round + 1) + " messages");
        }
    }

    /**
     * RETURN VALUES: "DAT_INVALID_PARAMETER Invalid parameter. For example, one of the IOV segments pointed to a
     * memory outside its LMR." Any segment: the last of several is checked as the first, to the byte at both ends
     * (a segment ending exactly at the LMR's end is valid); and num_segments outside 0..max_recv_iov is invalid.
     * If this fails, check the bounds check of every triplet against its LMR, at both ends, and the num_segments
     * range against the SRQ's max_recv_iov.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "a segment outside its LMR is refused",
            returns = DatReturn.INVALID_PARAMETER)
    void required_srq_post_recv_invalidParameterForSegmentOutsideLmr() {
        DatSrq srq = srq(4);
        int maxIov = srq.query().maxRecvIov();
        int n = TckFixture.triplets(maxIov);
        Region r = f.region();
        int context = r.lmr().lmrContext();
        assertStatus(DatReturn.DAT_INVALID_PARAMETER,
                srq.postRecv(n, f.iovEndingWith(n, r, context, r.address() + 4096 - 63, 64), 1),
                CALL + " with segment " + (n - 1) + " one byte past the LMR's end");
        assertStatus(DatReturn.DAT_INVALID_PARAMETER,
                srq.postRecv(n, f.iovEndingWith(n, r, context, r.address() - 1, 64), 1),
                CALL + " with segment " + (n - 1) + " one byte before the LMR's start");
        assertStatus(DatReturn.DAT_INVALID_PARAMETER, srq.postRecv(-1, f.iov(1).set(0, r.lmr(), 0, 64), 1),
                CALL + " with num_segments -1");
        if (maxIov < 64) {
            Iov wide = f.iov(maxIov + 1);
            for (int i = 0; i <= maxIov; i++) {
                wide.set(i, r.lmr(), 16L * i, 16);
            }
            assertStatus(DatReturn.DAT_INVALID_PARAMETER, srq.postRecv(maxIov + 1, wide, 1),
                    CALL + " with num_segments max_recv_iov + 1 = " + (maxIov + 1));
        }
        assertStatus(DatReturn.DAT_SUCCESS,
                srq.postRecv(n, f.iovEndingWith(n, r, context, r.address() + 4096 - 64, 64), 2),
                CALL + " with segment " + (n - 1) + " ending exactly at the LMR's end");
    }

    /**
     * RETURN VALUES: "DAT_PROTECTION_VIOLATION ... Protection Zone mismatch between an LMR of one of the
     * local_iov segments and the SRQ." One of the segments: the first, and the last of several.
     * If this fails, check that the PZ of every triplet's LMR is compared with the SRQ's PZ.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "an LMR of another PZ is refused",
            returns = DatReturn.PROTECTION_VIOLATION)
    void required_srq_post_recv_protectionViolationForLmrOfAnotherPz() {
        DatSrq srq = srq(4);
        int n = TckFixture.triplets(srq.query().maxRecvIov());
        DatPz other = f.ia.createPz();
        Region foreign = f.region(other, 4096, DatMemPriv.ALL);
        assertStatus(DatReturn.DAT_PROTECTION_VIOLATION,
                srq.postRecv(1, f.iov(1).set(0, foreign.lmr(), 0, 64), 1), CALL + " with an LMR of another PZ");
        assertStatus(DatReturn.DAT_PROTECTION_VIOLATION, srq.postRecv(n, f.iovEndingWith(n, f.region(),
                foreign.lmr().lmrContext(), foreign.address(), 64), 1),
                CALL + " with segment " + (n - 1) + " in an LMR of another PZ");
    }

    /**
     * RETURN VALUES: "DAT_PRIVILEGES_VIOLATION ... One of the LMRs used in local_iov was either invalid or did not
     * have the local write privileges." One of them: the first, and the last of several.
     * If this fails, check the LOCAL_WRITE check and the lookup of the lmr_context of every triplet.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "an LMR without local write, or an invalid one, is refused",
            returns = DatReturn.PRIVILEGES_VIOLATION)
    void required_srq_post_recv_privilegesViolationWithoutLocalWriteOrInvalidLmr() {
        DatSrq srq = srq(4);
        int n = TckFixture.triplets(srq.query().maxRecvIov());
        Region valid = f.region();
        Region readOnly = f.region(4096, DatMemPriv.LOCAL_READ);
        assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION,
                srq.postRecv(1, f.iov(1).set(0, readOnly.lmr(), 0, 64), 1), CALL + " without LOCAL_WRITE");
        assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION, srq.postRecv(n, f.iovEndingWith(n, valid,
                readOnly.lmr().lmrContext(), readOnly.address(), 64), 1),
                CALL + " with segment " + (n - 1) + " without LOCAL_WRITE");
        Region freed = f.region();
        Iov stale = f.iov(1).set(0, freed.lmr(), 0, 64);
        Iov staleLast = f.iovEndingWith(n, valid, freed.lmr().lmrContext(), freed.address(), 64);
        freed.lmr().close();
        assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION, srq.postRecv(1, stale, 1), CALL + " with a freed LMR");
        assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION, srq.postRecv(n, staleLast, 1),
                CALL + " with segment " + (n - 1) + " in a freed LMR");
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
     * Both sides have several segments whose boundaries do not line up (the message is gathered from 70, 130 and
     * 50 bytes into 100-byte segments), the segments lie out of address order, and a second message ends exactly
     * on a segment boundary. SRQ buffers may be taken in any order, so each buffer is found by its cookie.
     * If this fails, check the scatter loop: segment order, where a chunk resumes inside the receive segment, the
     * partial segment's length, untouched tail and gaps.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "segments filled in IOV order, at most one partially")
    void required_srq_post_recv_segmentsFilledInIovOrder() {
        applicableIf(f.limits.maxIovSegmentsPerDto() >= 3, "needs 3 IOV segments");
        DatSrq srq = srq(4);
        Connection c = srqConnection(srq, DatCompletionFlags.DEFAULT);
        Region dst = f.region(4096, DatMemPriv.LOCAL_WRITE | DatMemPriv.LOCAL_READ);
        dst.memory().fill((byte) 0x5A);
        long[][] layouts = {{1000, 0, 2000}, {3000, 2200, 3500}};
        for (int b = 0; b < 2; b++) {
            Iov iov = f.iov(3);
            for (int i = 0; i < 3; i++) {
                iov.set(i, dst.lmr(), layouts[b][i], 100);
            }
            assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(3, iov, b), CALL + " buffer " + b);
        }
        Region src = f.region();
        pattern(src.memory(), 3);
        MemorySegment sent = f.arena.allocate(250);
        MemorySegment.copy(src.memory(), 500, sent, 0, 70);
        MemorySegment.copy(src.memory(), 0, sent, 70, 130);
        MemorySegment.copy(src.memory(), 300, sent, 200, 50);
        Iov gather = f.iov(3).set(0, src.lmr(), 500, 70).set(1, src.lmr(), 0, 130).set(2, src.lmr(), 300, 50);
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(3, gather, 1, 0),
                "dat_ep_post_send of 250 bytes in 3 segments");
        assertStatus(DatReturn.DAT_SUCCESS, send(c.active(), src, 1000, 200, 2, 0), "dat_ep_post_send of 200 bytes");
        DatEvent first = f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS);
        assertEquals(250, first.transferredLength(), "transfered_length of the first message");
        long[] a = layouts[(int) first.userCookie()];
        assertSameBytes(sent.asSlice(0, 100), dst.memory().asSlice(a[0], 100), "message 1, segment 0 (full)");
        assertSameBytes(sent.asSlice(100, 100), dst.memory().asSlice(a[1], 100), "message 1, segment 1 (full)");
        assertSameBytes(sent.asSlice(200, 50), dst.memory().asSlice(a[2], 50), "message 1, segment 2 (partial)");
        assertFilled(dst.memory().asSlice(a[2] + 50, 50), (byte) 0x5A, "message 1, rest of segment 2 (not filled)");
        DatEvent second = f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS);
        assertEquals(200, second.transferredLength(), "transfered_length of the second message");
        long[] b = layouts[(int) second.userCookie()];
        assertSameBytes(src.memory().asSlice(1000, 100), dst.memory().asSlice(b[0], 100), "message 2, segment 0");
        assertSameBytes(src.memory().asSlice(1100, 100), dst.memory().asSlice(b[1], 100), "message 2, segment 1");
        assertFilled(dst.memory().asSlice(b[2], 100), (byte) 0x5A, "message 2, segment 2 (not filled)");
        for (long[] gap : new long[][] {{100, 900}, {1100, 900}, {2100, 100}, {2300, 700}, {3100, 400}, {3600, 496}}) {
            assertFilled(dst.memory().asSlice(gap[0], gap[1]), (byte) 0x5A, "memory between segments at " + gap[0]);
        }
        assertEquals(Set.of(0L, 1L), Set.of(first.userCookie(), second.userCookie()),
                "each message took its own buffer");
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
    @DatRule(call = CALL, section = "DESCRIPTION",
            rule = "IOV reusable at return when iov_ownership_on_return = CONSUMER")
    void optional_srq_post_recv_iovReusableOnReturnWhenConsumerOwned() {
        optionalFeature(f.provider.iovOwnershipOnReturn() == DatIovOwnership.CONSUMER,
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
                src.memory().set(ValueLayout.JAVA_LONG_UNALIGNED, 8L * (c == one ? i : perConnection + i), seq);
                long offset = 8L * (c == one ? i : perConnection + i);
                assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(1, f.iov(1).set(0, src.lmr(), offset, 8),
                        seq, 0), "dat_ep_post_send");
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
     * If this fails, check that buffers can be posted before any EP is attached and after all EPs left, and that
     * both then receive on a new connection.
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
        Connection again = srqConnection(srq, DatCompletionFlags.DEFAULT);
        Set<Long> cookies = new HashSet<>();
        for (int i = 0; i < 2; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, send(again.active(), f.region(), 0, 8, i, 0), "dat_ep_post_send");
            cookies.add(f.completion(again.passive().recvEvd(), DatDtoStatus.SUCCESS).userCookie());
        }
        assertEquals(Set.of(1L, 2L), cookies, "both buffers received on a new connection");
    }

    /**
     * DESCRIPTION: "The completion of the Receive posted to the SRQ is equivalent to what happened to the Receive
     * posted to the Endpoint": a message larger than the SRQ buffer it lands in completes that buffer with
     * DAT_DTO_ERR_LOCAL_LENGTH, as on the EP's own queue; the send does not succeed, and once the error is reaped
     * the buffer no longer counts against max_recv_dtos.
     * If this fails, an oversized message into an SRQ buffer was truncated, overran it, or its buffer stayed
     * counted as outstanding after its error completion was reaped.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "an oversized message completes its SRQ buffer in error")
    void required_srq_post_recv_oversizedMessageCompletesItsBufferInError() {
        DatSrq srq = srq(4);
        int capacity = srq.query().maxRecvDtos();
        applicableIf(capacity <= 1 << 12, "SRQ of " + capacity + " entries is too large to fill");
        TckFixture.Guarded dst = f.guarded(16L * (capacity + 1), DatMemPriv.LOCAL_WRITE | DatMemPriv.LOCAL_READ);
        Iov iov = f.iov(1);
        for (int i = 0; i < capacity; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, dst.region().lmr(), 16L * i, 16), i),
                    CALL + " of 16 bytes");
        }
        Connection c = srqConnection(srq, DatCompletionFlags.DEFAULT);
        assertStatus(DatReturn.DAT_SUCCESS, send(c.active(), f.region(), 0, 64, 7, 0), "dat_ep_post_send of 64 bytes");
        DatEvent recv = f.completion(c.passive().recvEvd(), DatDtoStatus.LOCAL_LENGTH_ERR);
        assertTrue(recv.userCookie() >= 0 && recv.userCookie() < capacity, "cookie of a posted buffer: " + recv);
        assertSame(c.passive().ep(), recv.ep(), "ep_handle of the error completion");
        DatEvent sent = f.next(c.active().requestEvd());
        assertEquals(7, sent.userCookie(), "the send's completion");
        assertTrue(sent.dtoStatus() != DatDtoStatus.SUCCESS, "the oversized send must not succeed: " + sent);
        dst.assertGuardsIntact("an oversized message into a 16-byte SRQ buffer");
        assertStatus(DatReturn.DAT_SUCCESS,
                srq.postRecv(1, iov.set(0, dst.region().lmr(), 16L * capacity, 16), capacity),
                CALL + " once the error completion was reaped");
        assertStatus(DatReturn.DAT_INSUFFICIENT_RESOURCES,
                srq.postRecv(1, iov.set(0, dst.region().lmr(), 0, 16), capacity + 1), CALL + " on a full SRQ");
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
     * USAGE: "Only the Endpoint that is in Connected or Disconnect Pending states can dequeue buffers from SRQ."
     * The requester sends the moment its own ESTABLISHED arrives, and its message may reach the accepting side
     * before that side's ESTABLISHED (on IB/RoCE it can overtake the CM's RTU). The accepting EP on the SRQ took a
     * buffer for it, so once its consumer holds the receive completion, read before its connection EVD, the EP is
     * CONNECTED: it answers so, its send back is accepted, and its connection EVD has exactly one ESTABLISHED.
     * If this fails, the provider leaves the EP PASSIVE_CONNECTION_PENDING after data arrived (verbs: a message's
     * completion or IBV_EVENT_COMM_EST establishes the connection; rdma_notify tells the CM).
     */
    @Test
    @DatRule(call = CALL, section = "USAGE", rule = "an EP that took a buffer is connected")
    void required_srq_post_recv_anEpThatTookABufferIsConnected() {
        DatSrq srq = srq(4);
        Region dst = f.region();
        Region src = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, f.iov(1).set(0, dst.lmr(), 0, 64), 42), CALL);
        Side active = f.side(f.epAttr(), null);
        Side passive = f.side(f.epAttr(), srq);
        assertStatus(DatReturn.DAT_SUCCESS, active.ep().postRecv(1, f.iov(1).set(0, dst.lmr(), 1024, 64), 43,
                DatCompletionFlags.DEFAULT), "dat_ep_post_recv on the requesting EP");
        DatEvd crEvd = f.evd(DatEvdFlags.CR);
        DatPsp psp = f.ia.createPspAny(crEvd, DatPspFlags.CONSUMER);
        try {
            active.ep().connect(f.ia.address(), psp.connQual(), f.eventTimeoutMicros(), null, DatQos.BEST_EFFORT, 0);
            DatEvent request = f.next(crEvd);
            assertSame(DatEventType.CONNECTION_REQUEST_EVENT, request.type(), "connection request");
            request.cr().accept(passive.ep(), null);
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, f.next(active.connectEvd()).type(),
                    "the requesting side's ESTABLISHED");
            assertStatus(DatReturn.DAT_SUCCESS, send(active, src, 0, 24, 1, 0), "dat_ep_post_send at once");
            assertEquals(42, f.completion(passive.recvEvd(), DatDtoStatus.SUCCESS).userCookie(), "the SRQ buffer");
            assertSame(DatEpState.CONNECTED, passive.ep().state(), "state of the EP that took the SRQ buffer");
            assertStatus(DatReturn.DAT_SUCCESS, send(passive, src, 0, 16, 2, 0), "dat_ep_post_send back");
            assertEquals(43, f.completion(active.recvEvd(), DatDtoStatus.SUCCESS).userCookie(), "the answer");
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, f.next(passive.connectEvd()).type(),
                    "the accepting side's ESTABLISHED");
            f.quiet(passive.connectEvd(), "one ESTABLISHED on the accepting side");
        } finally {
            psp.close();
            crEvd.close();
        }
    }

    /**
     * USAGE: "When an Endpoint is transitioned into Disconnected state, all the buffers that it dequeued from SRQ
     * are queued on the Endpoint recv_evd. All the buffers that the Endpoint has not completed by the time of
     * transition into Disconnected state and that have not completed message reception will be flushed."
     * If this fails, a disconnect lost a completed receive, flushed a buffer the EP never took, or took the SRQ's
     * remaining buffers with it.
     */
    @Test
    @DatRule(call = CALL, section = "USAGE",
            rule = "disconnect keeps completions and leaves untaken buffers on the SRQ")
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
    @DatRule(call = CALL, section = "USAGE",
            rule = "EVD_THRESHOLD EP: the wait threshold decides when the waiter wakes")
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
        Assumptions.abort("not verified by this TCK: measured by dat.bench with -prof gc");
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
        AtomicInteger failures = new AtomicInteger();
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
            f.join(t, "a thread posting dat_srq_post_recv");
        }
        assertEquals(0, failures.get(), "failed concurrent posts");
        Connection c = srqConnection(srq, DatCompletionFlags.DEFAULT);
        f.sendAndReap(c, threads * perThread);
        Set<Long> cookies = new HashSet<>();
        for (int i = 0; i < threads * perThread; i++) {
            cookies.add(f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS).userCookie());
        }
        assertEquals(threads * perThread, cookies.size(), "every buffer received exactly once");
    }
}
