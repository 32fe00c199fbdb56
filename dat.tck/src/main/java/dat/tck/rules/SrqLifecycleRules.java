// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dat.api.Dat;
import dat.api.DatAsyncReason;
import dat.api.DatDtoStatus;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.DatSrqParam;
import dat.tck.DatRule;
import dat.tck.TckEnvironment;
import dat.tck.rules.TckFixture.Connection;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * Rules of {@code dat_srq_set_lw}, {@code dat_srq_query} and {@code dat_srq_free}.
 */
public abstract class SrqLifecycleRules extends RuleSupport {

    /**
     * @param env the provider under test
     */
    protected SrqLifecycleRules(TckEnvironment env) {
        super(env);
    }

    private DatSrq srq(int size) {
        requiredFeature(f.provider.srqSupported(), "srq_supported = false");
        return f.ia.createSrq(f.pz, DatSrqAttr.of(size, 1));
    }

    private boolean lowWatermarkClaimed() {
        return (f.provider.srqWatermarksSupported() & Dat.DAT_SRQ_WATERMARK_LOW) != 0;
    }

    private void assertLowWatermarkEvent(DatSrq srq) {
        DatEvent event = f.next(f.ia.asyncEvd());
        assertSame(DatEventType.ASYNC_EVENT_SRQ_LOW_WATERMARK, event.type(), "async event " + event);
        assertSame(srq, event.asyncHandle(), "dat_handle of the event");
        assertEquals(DatAsyncReason.SRQ_LOW_WATERMARK_EVENT, event.asyncReason(), "reason");
    }

    /**
     * dat_srq_set_lw: when the buffers on the SRQ drop below the low watermark (not when they reach it), one
     * asynchronous event naming the SRQ goes to the IA's async EVD, and the watermark disarms.
     * If this fails, the event never came, came early (at the watermark), came twice, or named the wrong object.
     */
    @Test
    @DatRule(call = "dat_srq_set_lw", section = "DESCRIPTION", rule = "one event when buffers fall below the watermark")
    void required_srq_set_lw_oneEventWhenBuffersFallBelow() {
        DatSrq srq = srq(8);
        requiredFeature(lowWatermarkClaimed(), "srq_watermarks_supported lacks the low watermark");
        f.postSrqBuffers(srq, 4, 0);
        srq.setLowWatermark(3);
        f.quiet(f.ia.asyncEvd(), "4 buffers are not below 3");
        Connection c = f.connect(f.side(f.epAttr(), null), f.side(f.epAttr(), srq));
        f.sendAndReap(c, 1);
        f.quiet(f.ia.asyncEvd(), "3 buffers are not below 3");
        f.sendAndReap(c, 1);
        assertLowWatermarkEvent(srq);
        f.sendAndReap(c, 1);
        f.quiet(f.ia.asyncEvd(), "the watermark fires once until set again");
    }

    /**
     * dat_srq_set_lw: a watermark set above the buffers already on the SRQ fires at once; one equal to them does
     * not.
     * If this fails, the provider only checks the watermark when a buffer is taken, or compares at the boundary
     * the wrong way.
     */
    @Test
    @DatRule(call = "dat_srq_set_lw", section = "DESCRIPTION", rule = "fires at once when already below")
    void required_srq_set_lw_firesAtOnceWhenAlreadyBelow() {
        DatSrq srq = srq(8);
        requiredFeature(lowWatermarkClaimed(), "srq_watermarks_supported lacks the low watermark");
        f.postSrqBuffers(srq, 2, 0);
        srq.setLowWatermark(2);
        f.quiet(f.ia.asyncEvd(), "2 buffers are not below a watermark of 2");
        srq.setLowWatermark(5);
        assertLowWatermarkEvent(srq);
        assertEquals(5, srq.query().lowWatermark(), "low_watermark reported");
    }

    /**
     * dat_srq_set_lw: buffers that messages took are off the SRQ from the moment they were taken, whether or not
     * their completions were dequeued. Three messages land in six buffers (their senders' completions prove it) and
     * stay on the receive EVD; a watermark of 4 is then already above the 3 left, and fires at once.
     * If this fails, the provider decides "already below" from a count that only drops when completions are
     * dequeued (verbs: consumed by the HCA but not yet polled from the CQ), and the HCA's own limit event, armed
     * too late, never comes.
     */
    @Test
    @DatRule(call = "dat_srq_set_lw", section = "DESCRIPTION",
            rule = "buffers taken but not yet dequeued are off the SRQ")
    void required_srq_set_lw_buffersTakenButNotDequeuedAreOffTheSrq() {
        DatSrq srq = srq(8);
        requiredFeature(lowWatermarkClaimed(), "srq_watermarks_supported lacks the low watermark");
        f.postSrqBuffers(srq, 6, 0);
        Connection c = f.connect(f.side(f.epAttr(), null), f.side(f.epAttr(), srq));
        f.sendAndReap(c, 3);
        srq.setLowWatermark(4);
        assertLowWatermarkEvent(srq);
        for (int i = 0; i < 3; i++) {
            f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS);
        }
    }

    /**
     * dat_srq_set_lw: "DAT_INVALID_PARAMETER" for a watermark above max_recv_dtos (max_recv_dtos itself is in
     * range); "DAT_MODEL_NOT_SUPPORTED" where the provider has no low watermark.
     * If this fails, check the range test, or the provider's honesty about srq_watermarks_supported.
     */
    @Test
    @DatRule(call = "dat_srq_set_lw", section = "RETURN VALUES", rule = "out of range, or unsupported, is refused",
            returns = {DatReturn.INVALID_PARAMETER, DatReturn.MODEL_NOT_SUPPORTED})
    void required_srq_set_lw_refusesOutOfRangeOrUnsupported() {
        DatSrq srq = srq(8);
        if (!lowWatermarkClaimed()) {
            assertThrowsDat(DatReturn.MODEL_NOT_SUPPORTED, () -> srq.setLowWatermark(1),
                    "dat_srq_set_lw where srq_watermarks_supported lacks it");
            return;
        }
        int max = srq.query().maxRecvDtos();
        assertThrowsDat(DatReturn.INVALID_PARAMETER, () -> srq.setLowWatermark(max + 1),
                "low_watermark above max_recv_dtos");
        assertThrowsDat(DatReturn.INVALID_PARAMETER, () -> srq.setLowWatermark(-1), "low_watermark -1");
        assertEquals(Dat.DAT_SRQ_LW_DEFAULT, srq.query().lowWatermark(), "a refused watermark changes nothing");
        srq.setLowWatermark(max);
        assertEquals(max, srq.query().lowWatermark(), "low_watermark = max_recv_dtos is in range");
    }

    /**
     * dat_srq_query: available_dto_count is the buffers on the SRQ; outstanding_dto_count the buffers posted and
     * not yet reaped (the man page's example: 3 posts give 3/3, an arrival 2/3, a dequeue 2/2). A count
     * srq_info_supported denies is DAT_VALUE_UNKNOWN.
     * If this fails, a count is wrong at one of the three steps, or a denied count is a number.
     */
    @Test
    @DatRule(call = "dat_srq_query", section = "DESCRIPTION", rule = "counts follow the man page's example")
    void required_srq_query_countsFollowTheExample() {
        DatSrq srq = srq(10);
        boolean available = (f.provider.srqInfoSupported() & Dat.DAT_SRQ_INFO_AVAILABLE_DTO_COUNT) != 0;
        boolean outstanding = (f.provider.srqInfoSupported() & Dat.DAT_SRQ_INFO_OUTSTANDING_DTO_COUNT) != 0;
        f.postSrqBuffers(srq, 3, 0);
        assertCounts(srq.query(), available ? 3 : Dat.DAT_VALUE_UNKNOWN, outstanding ? 3 : Dat.DAT_VALUE_UNKNOWN,
                "after 3 posts");
        Connection c = f.connect(f.side(f.epAttr(), null), f.side(f.epAttr(), srq));
        f.sendAndReap(c, 1);
        assertCounts(srq.query(), available ? 2 : Dat.DAT_VALUE_UNKNOWN, outstanding ? 3 : Dat.DAT_VALUE_UNKNOWN,
                "after one arrival, not reaped");
        f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS);
        assertCounts(srq.query(), available ? 2 : Dat.DAT_VALUE_UNKNOWN, outstanding ? 2 : Dat.DAT_VALUE_UNKNOWN,
                "after reaping it");
    }

    private static void assertCounts(DatSrqParam p, int available, int outstanding, String when) {
        assertEquals(available, p.availableDtoCount(), "available_dto_count " + when);
        assertEquals(outstanding, p.outstandingDtoCount(), "outstanding_dto_count " + when);
    }

    /**
     * dat_srq_free: "DAT_INVALID_STATE" while an EP uses the SRQ.
     * If this fails, an SRQ with an attached EP was freed.
     */
    @Test
    @DatRule(call = "dat_srq_free", section = "RETURN VALUES", rule = "an SRQ in use cannot be freed",
            returns = DatReturn.INVALID_STATE)
    void required_srq_free_refusedWhileEpsUseIt() {
        DatSrq srq = srq(4);
        TckFixture.Side side = f.side(f.epAttr(), srq);
        assertThrowsDat(DatReturn.INVALID_STATE, srq::close, "dat_srq_free with an EP attached");
        side.ep().close();
        srq.close();
        Assertions.assertTrue(srq.isClosed(), "freed once no EP uses it");
    }
}
