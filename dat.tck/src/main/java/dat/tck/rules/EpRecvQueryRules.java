// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEpRecvInfo;
import dat.api.DatException;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.Iov;
import dat.tck.DatRule;
import dat.tck.TckEnvironment;
import dat.tck.rules.TckFixture.Connection;
import dat.tck.rules.TckFixture.Region;
import dat.tck.rules.TckFixture.Side;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Rules of {@code dat_ep_recv_query(3DAT)}.
 */
public abstract class EpRecvQueryRules extends RuleSupport {

    private static final String CALL = "dat_ep_recv_query";
    private static final int BOTH = Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED | Dat.DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN;

    /**
     * @param env the provider under test
     */
    protected EpRecvQueryRules(TckEnvironment env) {
        super(env);
    }

    private boolean supports(int bit) {
        return (f.provider.epRecvInfoSupported() & bit) != 0;
    }

    private void requireSomeCount() {
        requiredFeature(supports(BOTH), "ep_recv_info_supported = 0");
    }

    private void postRecvs(Side side, Region into, int count) {
        Iov iov = f.iov(1);
        for (int i = 0; i < count; i++) {
            assertStatus(DatReturn.DAT_SUCCESS,
                    side.ep().postRecv(1, iov.set(0, into.lmr(), 64L * i, 64), i, DatCompletionFlags.DEFAULT),
                    "dat_ep_post_recv " + i);
        }
    }

    /**
     * An SRQ EP holds no buffer between messages, so a supported count is 0; but the page lets a provider answer
     * DAT_VALUE_UNKNOWN when it "cannot obtain the requested count at a reasonable cost", which is the case of an
     * HCA that does not expose which SRQ buffers a QP is filling.
     */
    private void assertSrqSnapshot(DatEpRecvInfo info, String when) {
        if (info.nbufsAllocated() == Dat.DAT_VALUE_UNKNOWN && info.bufsAllocSpan() == Dat.DAT_VALUE_UNKNOWN) {
            return;
        }
        assertSnapshot(info, 0, when);
    }

    /** Checks a snapshot against what the attributes promise and the expected allocated count. */
    private void assertSnapshot(DatEpRecvInfo info, int expectedAllocated, String when) {
        if (supports(Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED)) {
            assertEquals(expectedAllocated, info.nbufsAllocated(), "nbufs_allocated " + when);
        } else {
            assertEquals(Dat.DAT_VALUE_UNKNOWN, info.nbufsAllocated(), "unsupported nbufs_allocated " + when);
        }
        if (supports(Dat.DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN)) {
            assertTrue(info.bufsAllocSpan() >= expectedAllocated,
                    "bufs_alloc_span " + info.bufsAllocSpan() + " >= " + expectedAllocated + " " + when);
        } else {
            assertEquals(Dat.DAT_VALUE_UNKNOWN, info.bufsAllocSpan(), "unsupported bufs_alloc_span " + when);
        }
    }

    /**
     * RETURN VALUES: "DAT_SUCCESS". DESCRIPTION: "When an EP does not use SRQ, a buffer is allocated as soon as it
     * is posted to the EP." "the count pointed to by nbufs_allocated will return a snapshot count of the number of
     * buffers allocated to ep_handle but not yet completed." Checked at every step of several rounds of posts and
     * messages, and after a disconnect flushed the rest.
     * If this fails, check that posted receives count as allocated at once and stop counting when they complete
     * (successfully or flushed), however many came before.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES",
            rule = "an EP without SRQ counts buffers from the moment they are posted",
            returns = DatReturn.SUCCESS)
    void required_ep_recv_query_successCountsPostedBuffersOfEpWithoutSrq() {
        requireSomeCount();
        Connection c = f.connect();
        assertSnapshot(c.passive().ep().recvQuery(BOTH), 0, "before any post");
        Region dst = f.region();
        Region src = f.region();
        Iov iov = f.iov(1);
        int allocated = 0;
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 3; i++) {
                assertStatus(DatReturn.DAT_SUCCESS, c.passive().ep().postRecv(1,
                        iov.set(0, dst.lmr(), 64L * i, 64), i, DatCompletionFlags.DEFAULT), "dat_ep_post_recv");
                allocated++;
                assertSnapshot(c.passive().ep().recvQuery(BOTH), allocated, "after post " + i + " of round " + round);
            }
            for (int i = 0; i < 2; i++) {
                assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, 8), i,
                        0), "dat_ep_post_send");
                f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS);
                f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS);
                allocated--;
                assertSnapshot(c.passive().ep().recvQuery(BOTH), allocated,
                        "after receive " + i + " of round " + round + " completed");
            }
        }
        c.passive().ep().disconnect(DatCloseFlags.ABRUPT);
        for (int i = 0; i < allocated; i++) {
            f.completion(c.passive().recvEvd(), DatDtoStatus.FLUSHED);
        }
        assertSnapshot(c.passive().ep().recvQuery(BOTH), 0, "after the disconnect flushed the " + allocated
                + " receives left");
    }

    /**
     * RETURN VALUES: "DAT_INVALID_PARAMETER Invalid parameter." In Java both counts are selected by a mask (the
     * form of passing NULL or non-NULL pointers): asking for neither, or for an unknown count, is invalid.
     * If this fails, check the validation of the which-mask.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "asking for no count, or an unknown one, is invalid",
            returns = DatReturn.INVALID_PARAMETER)
    void required_ep_recv_query_invalidParameterForNoOrUnknownCount() {
        Side side = f.side(f.epAttr(), null);
        assertThrowsDat(DatReturn.INVALID_PARAMETER, () -> side.ep().recvQuery(0), CALL + " asking for nothing");
        assertThrowsDat(DatReturn.INVALID_PARAMETER, () -> side.ep().recvQuery(0x100), CALL + " with bit 0x100");
    }

    /**
     * RETURN VALUES: "DAT_INVALID_HANDLE The DAT handle ep_handle is invalid."
     * If this fails, check that a freed EP refuses the query.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "a freed EP is an invalid handle",
            returns = DatReturn.INVALID_HANDLE)
    void required_ep_recv_query_invalidHandleAfterFree() {
        Side side = f.side(f.epAttr(), null);
        side.ep().close();
        assertThrowsDat(DatReturn.INVALID_HANDLE, () -> side.ep().recvQuery(BOTH), CALL + " on a freed EP");
    }

    /**
     * RETURN VALUES: "DAT_MODEL_NOT_SUPPORTED The requested Model was not supported by the Provider." DESCRIPTION:
     * "When the Provider does not support both of these counts, the return value for the operation can be
     * DAT_MODEL_NOT_SUPPORTED."
     * If this fails, a provider reporting ep_recv_info_supported = 0 returned something other than
     * DAT_MODEL_NOT_SUPPORTED or two DAT_VALUE_UNKNOWN counts.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "no count supported: DAT_MODEL_NOT_SUPPORTED",
            returns = DatReturn.MODEL_NOT_SUPPORTED)
    void required_ep_recv_query_modelNotSupportedWhenNoCountSupported() {
        applicableIf(!supports(BOTH), "ep_recv_info_supported = "
                + f.provider.epRecvInfoSupported() + ": the denial does not apply");
        Side side = f.side(f.epAttr(), null);
        try {
            DatEpRecvInfo info = side.ep().recvQuery(BOTH);
            assertEquals(new DatEpRecvInfo(Dat.DAT_VALUE_UNKNOWN, Dat.DAT_VALUE_UNKNOWN), info,
                    "a provider supporting no count may only answer DAT_VALUE_UNKNOWN");
        } catch (DatException e) {
            assertEquals(DatReturn.MODEL_NOT_SUPPORTED, e.type(), e.getMessage());
        }
    }

    /**
     * USAGE: "If the Provider cannot support the query for nbufs_allocated or bufs_alloc_span, the value returned
     * for that attribute must be DAT_VALUE_UNKNOWN."
     * If this fails, a count the attributes deny came back as a number.
     */
    @Test
    @DatRule(call = CALL, section = "USAGE", rule = "a count the attributes deny is DAT_VALUE_UNKNOWN")
    void required_ep_recv_query_deniedCountIsValueUnknown() {
        applicableIf(supports(BOTH) && (f.provider.epRecvInfoSupported() & BOTH) != BOTH,
                "ep_recv_info_supported = " + f.provider.epRecvInfoSupported() + ": no single count is denied");
        Connection c = f.connect();
        postRecvs(c.passive(), f.region(), 2);
        assertSnapshot(c.passive().ep().recvQuery(BOTH), 2, "with one count denied");
    }

    /**
     * Asserts that each count asked alone is answered as when both are asked, and that the count not asked is
     * DAT_VALUE_UNKNOWN.
     */
    private void assertEachAlone(DatEpRecvInfo both, Side side, String when) {
        int[] single = {Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED, Dat.DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN};
        for (int which : single) {
            boolean nbufs = which == Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED;
            String name = nbufs ? "nbufs_allocated" : "bufs_alloc_span";
            DatEpRecvInfo alone = side.ep().recvQuery(which);
            int asked = nbufs ? alone.nbufsAllocated() : alone.bufsAllocSpan();
            int other = nbufs ? alone.bufsAllocSpan() : alone.nbufsAllocated();
            int expected = supports(which) ? (nbufs ? both.nbufsAllocated() : both.bufsAllocSpan())
                    : Dat.DAT_VALUE_UNKNOWN;
            assertEquals(expected, asked, name + " asked alone, " + when + " (asked with the other count: " + both
                    + ")");
            assertEquals(Dat.DAT_VALUE_UNKNOWN, other, "the count not asked when " + name + " is asked alone, "
                    + when);
        }
    }

    /**
     * PARAMETERS: "nbufs_allocated ... bufs_alloc_span ... If the pointer is NULL, the count is not returned": each
     * count is asked for on its own. Asked alone, a count the provider claims is answered with the value it has when
     * both are asked, and the other one is not (DAT_VALUE_UNKNOWN); checked at rest before any post, after each of
     * several posts, after a message consumed one and after a disconnect flushed the rest, and on an SRQ EP.
     * If this fails, the provider computes one count only when the other is asked too (or fills in a count nobody
     * asked for).
     */
    @Test
    @DatRule(call = CALL, section = "PARAMETERS", rule = "each count asked alone is answered alone")
    void required_ep_recv_query_eachCountAskedAloneIsAnswered() {
        requireSomeCount();
        Connection c = f.connect();
        Side side = c.passive();
        assertEachAlone(side.ep().recvQuery(BOTH), side, "before any post");
        Region dst = f.region();
        Iov iov = f.iov(1);
        for (int i = 0; i < 3; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, side.ep().postRecv(1, iov.set(0, dst.lmr(), 64L * i, 64), i, 0),
                    "dat_ep_post_recv");
            DatEpRecvInfo both = side.ep().recvQuery(BOTH);
            assertSnapshot(both, i + 1, "after " + (i + 1) + " posts");
            assertEachAlone(both, side, "after " + (i + 1) + " posts");
        }
        Region src = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, 8), 1, 0),
                "dat_ep_post_send");
        f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS);
        f.completion(side.recvEvd(), DatDtoStatus.SUCCESS);
        assertEachAlone(side.ep().recvQuery(BOTH), side, "after a message consumed one of 3 receives");
        side.ep().disconnect(DatCloseFlags.ABRUPT);
        f.completion(side.recvEvd(), DatDtoStatus.FLUSHED);
        f.completion(side.recvEvd(), DatDtoStatus.FLUSHED);
        assertEachAlone(side.ep().recvQuery(BOTH), side, "after a disconnect flushed the rest");
        if (f.provider.srqSupported()) {
            DatSrq srq = f.ia.createSrq(f.pz, DatSrqAttr.of(8, 1));
            Connection s = f.connect(f.side(f.epAttr(), null), f.side(f.epAttr(), srq));
            for (int i = 0; i < 2; i++) {
                assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, dst.lmr(), 64L * i, 64), i),
                        "dat_srq_post_recv");
            }
            assertEachAlone(s.passive().ep().recvQuery(BOTH), s.passive(), "on an SRQ EP with 2 buffers on the SRQ");
        }
    }

    /**
     * DESCRIPTION: "For EP that uses SRQ, a buffer is allocated to the EP when EP removes it from SRQ."
     * If this fails, buffers still on the SRQ were counted as allocated to an EP.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "an SRQ EP counts only buffers it took from the SRQ")
    void required_ep_recv_query_srqEpCountsOnlyBuffersItTook() {
        requireSomeCount();
        requiredFeature(f.provider.srqSupported(), "srq_supported = false");
        DatSrq srq = f.ia.createSrq(f.pz, DatSrqAttr.of(8, 1));
        Connection c = f.connect(f.side(f.epAttr(), null), f.side(f.epAttr(), srq));
        Region dst = f.region();
        Iov iov = f.iov(1);
        for (int i = 0; i < 3; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, dst.lmr(), 64L * i, 64), i),
                    "dat_srq_post_recv");
        }
        assertSrqSnapshot(c.passive().ep().recvQuery(BOTH), "with 3 buffers on the SRQ and no message");
        Region src = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, 8), 1, 0),
                "dat_ep_post_send");
        f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS);
        assertSrqSnapshot(c.passive().ep().recvQuery(BOTH), "after the taken buffer completed");
    }

    /**
     * DESCRIPTION: "The set of buffers that was counted must be the same set of buffers for which the span is
     * reported." USAGE: "The implementation must never report n buffers in a span that is less than n."
     * If this fails, nbufs_allocated and bufs_alloc_span were read at different moments: take one snapshot.
     */
    @Test
    @DatRule(call = CALL, section = "USAGE", rule = "one consistent snapshot: never a span smaller than n")
    void required_ep_recv_query_spanNeverSmallerThanCountUnderTraffic() throws InterruptedException {
        requiredFeature((f.provider.epRecvInfoSupported() & BOTH) == BOTH,
                "ep_recv_info_supported lacks one of the two counts");
        Connection c = f.connect();
        Region dst = f.region(64L * 64, DatMemPriv.LOCAL_WRITE | DatMemPriv.LOCAL_READ);
        Region src = f.region();
        AtomicReference<String> violation = new AtomicReference<>();
        Thread observer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 20_000 && violation.get() == null; i++) {
                DatEpRecvInfo info = c.passive().ep().recvQuery(BOTH);
                if (info.bufsAllocSpan() < info.nbufsAllocated() || info.nbufsAllocated() < 0) {
                    violation.set("snapshot " + info);
                }
            }
        });
        Iov recvIov = f.iov(1);
        Iov sendIov = f.iov(1).set(0, src.lmr(), 0, 8);
        for (int round = 0; round < 50 && observer.isAlive(); round++) {
            for (int i = 0; i < 32; i++) {
                assertStatus(DatReturn.DAT_SUCCESS,
                        c.passive().ep().postRecv(1, recvIov.set(0, dst.lmr(), 64L * i, 64), i, 0), "dat_ep_post_recv");
            }
            for (int i = 0; i < 32; i++) {
                assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(1, sendIov, i, 0), "dat_ep_post_send");
                f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS);
                f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS);
            }
        }
        f.join(observer, "the thread querying dat_ep_recv_query");
        if (violation.get() != null) {
            fail("bufs_alloc_span below nbufs_allocated: " + violation.get());
        }
    }

    /**
     * USAGE: "An implementation that processes incoming packets out of order and allocates from SRQs on an arrival
     * basis can have gaps in the MSNs associated with buffers allocated to an Endpoint." Whether gaps occur is the
     * transport's choice; nothing portable can provoke them.
     */
    @Test
    @DatRule(call = CALL, section = "USAGE", rule = "out-of-order arrival may leave MSN gaps in the span")
    void untested_ep_recv_query_msnGapsOnOutOfOrderArrival() {
        Assumptions.abort("not verified by this TCK: arrival order is the transport's");
    }
}
