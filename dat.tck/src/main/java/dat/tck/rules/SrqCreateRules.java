// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatMemPriv;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.DatSrqParam;
import dat.api.DatSrqState;
import dat.tck.DatRule;
import dat.tck.TckEnvironment;
import dat.tck.rules.TckFixture.Connection;
import dat.tck.rules.TckFixture.Region;
import dat.tck.rules.TckFixture.Side;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Rules of {@code dat_srq_create(3DAT)}.
 */
public abstract class SrqCreateRules extends RuleSupport {

    private static final String CALL = "dat_srq_create";

    /**
     * @param env the provider under test
     */
    protected SrqCreateRules(TckEnvironment env) {
        super(env);
    }

    private void requireSrq() {
        requiredFeature(f.provider.srqSupported(), "srq_supported = false");
    }

    private int send(Side side, Region from, long cookie) {
        return side.ep().postSend(1, f.iov(1).set(0, from.lmr(), 0, 16), cookie, 0);
    }

    /**
     * RETURN VALUES: "DAT_SUCCESS". DESCRIPTION: "If the operation is successful, the created SRQ will have the
     * queue size at least max_recv_dtos and the number of entries on the posted Recv scatter list of at lease
     * max_recv_iov. ... Consumer can query SRQ to find out the actual supported queue size and maximum Recv IOV."
     * If this fails, check that dat_srq_query reports at least the requested sizes, the PZ, and no watermark.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "created with at least the requested sizes",
            returns = DatReturn.SUCCESS)
    void required_srq_create_successWithAtLeastRequestedSizes() {
        requireSrq();
        int iov = Math.min(2, f.limits.maxIovSegmentsPerDto());
        DatSrq srq = f.ia.createSrq(f.pz, DatSrqAttr.of(10, iov));
        DatSrqParam p = srq.query();
        assertTrue(p.maxRecvDtos() >= 10, "max_recv_dtos " + p.maxRecvDtos() + " >= 10");
        assertTrue(p.maxRecvIov() >= iov, "max_recv_iov " + p.maxRecvIov() + " >= " + iov);
        assertSame(f.pz, p.pz(), "pz_handle");
        assertSame(f.ia, p.ia(), "ia_handle");
        assertSame(DatSrqState.OPERATIONAL, p.srqState(), "srq_state");
        assertEquals(Dat.DAT_SRQ_LW_DEFAULT, p.lowWatermark(), "low_watermark");
    }

    /**
     * RETURN VALUES: "DAT_INSUFFICIENT_RESOURCES The operation failed due to resource limitations."
     * If this fails, check that creating more SRQs than max_srqs is refused.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "more SRQs than max_srqs exceed resources",
            returns = DatReturn.INSUFFICIENT_RESOURCES)
    void required_srq_create_insufficientResourcesPastMaxSrqs() {
        requireSrq();
        int max = f.limits.maxSrqs();
        applicableIf(max <= 4096, "max_srqs " + max + " is too many to create in a test");
        List<DatSrq> made = new ArrayList<>();
        for (int i = 0; i < max; i++) {
            made.add(f.ia.createSrq(f.pz, DatSrqAttr.of(1, 1)));
        }
        assertThrowsDat(DatReturn.INSUFFICIENT_RESOURCES, () -> f.ia.createSrq(f.pz, DatSrqAttr.of(1, 1)),
                CALL + " number " + (max + 1) + " with max_srqs " + max);
        made.get(0).close();
        f.ia.createSrq(f.pz, DatSrqAttr.of(1, 1)).close();
    }

    /**
     * RETURN VALUES: "DAT_INVALID_HANDLE Either ia_handle or pz_handle is an invalid DAT handle."
     * If this fails, check that a freed PZ, and a PZ of another IA, are refused.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "a freed PZ or a PZ of another IA is invalid",
            returns = DatReturn.INVALID_HANDLE)
    void required_srq_create_invalidHandleForFreedOrForeignPz() {
        requireSrq();
        DatPz freed = f.ia.createPz();
        freed.close();
        assertThrowsDat(DatReturn.INVALID_HANDLE, () -> f.ia.createSrq(freed, DatSrqAttr.of(4, 1)),
                CALL + " with a freed PZ");
        DatIa other = openIa();
        try {
            DatPz foreign = other.createPz();
            assertThrowsDat(DatReturn.INVALID_HANDLE, () -> f.ia.createSrq(foreign, DatSrqAttr.of(4, 1)),
                    CALL + " with a PZ of another IA");
        } finally {
            other.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * RETURN VALUES: "DAT_INVALID_PARAMETER One of the parameters is invalid. Either one of the requested SRQ
     * attributes was invalid or a combination of attributes is invalid."
     * If this fails, check the validation of max_recv_dtos, max_recv_iov and low_watermark against 1 and the IA's
     * limits.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "invalid attributes are refused",
            returns = DatReturn.INVALID_PARAMETER)
    void required_srq_create_invalidParameterForBadAttributes() {
        requireSrq();
        assertThrowsDat(DatReturn.INVALID_PARAMETER, () -> f.ia.createSrq(f.pz, DatSrqAttr.of(0, 1)),
                CALL + " with max_recv_dtos 0");
        assertThrowsDat(DatReturn.INVALID_PARAMETER, () -> f.ia.createSrq(f.pz, DatSrqAttr.of(4, 0)),
                CALL + " with max_recv_iov 0");
        assertThrowsDat(DatReturn.INVALID_PARAMETER, () -> f.ia.createSrq(f.pz, new DatSrqAttr(4, 1, -1)),
                CALL + " with low_watermark -1");
        assertThrowsDat(DatReturn.INVALID_PARAMETER, () -> f.ia.createSrq(f.pz, null), CALL + " with no attributes");
        if (f.limits.maxIovSegmentsPerDto() < Integer.MAX_VALUE) {
            assertThrowsDat(DatReturn.INVALID_PARAMETER,
                    () -> f.ia.createSrq(f.pz, DatSrqAttr.of(4, f.limits.maxIovSegmentsPerDto() + 1)),
                    CALL + " with max_recv_iov above max_iov_segments_per_dto");
        }
        if (f.limits.maxRecvPerSrq() < Integer.MAX_VALUE) {
            assertThrowsDat(DatReturn.INVALID_PARAMETER,
                    () -> f.ia.createSrq(f.pz, DatSrqAttr.of(f.limits.maxRecvPerSrq() + 1, 1)),
                    CALL + " with max_recv_dtos above max_recv_per_srq");
        }
    }

    /**
     * DESCRIPTION: "the created SRQ will have ... the number of entries on the posted Recv scatter list of at lease
     * max_recv_iov"; RETURN VALUES: "DAT_INVALID_PARAMETER ... one of the requested SRQ attributes was invalid".
     * Every max_recv_iov the IA advertises (1..max_iov_segments_per_dto, up to 256 here) gives an SRQ with at least
     * that many entries, or, from the first one the provider's SRQs cannot take on, DAT_INVALID_PARAMETER: a limit
     * of the attributes, never a shortage (DAT_INSUFFICIENT_RESOURCES) that a retry could pass.
     * If this fails, check max_recv_iov against the device's own SRQ scatter limit (verbs: max_srq_sge, which may be
     * below max_sge) before creating the SRQ.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES",
            rule = "an advertised max_recv_iov is created or an invalid parameter",
            returns = DatReturn.INVALID_PARAMETER)
    void required_srq_create_everyAdvertisedRecvIovIsCreatedOrInvalid() {
        requireSrq();
        int max = Math.min(f.limits.maxIovSegmentsPerDto(), 256);
        int refusedFrom = 0;
        for (int iov = 1; iov <= max; iov++) {
            DatSrq srq;
            try {
                srq = f.ia.createSrq(f.pz, DatSrqAttr.of(4, iov));
            } catch (DatException e) {
                assertSame(DatReturn.INVALID_PARAMETER, e.type(), CALL + " with max_recv_iov " + iov + " of the "
                        + max + " max_iov_segments_per_dto advertises: " + e.getMessage());
                refusedFrom = refusedFrom == 0 ? iov : refusedFrom;
                continue;
            }
            try {
                assertEquals(0, refusedFrom, CALL + " with max_recv_iov " + iov + " succeeded after " + refusedFrom
                        + " was refused as invalid");
                assertTrue(srq.query().maxRecvIov() >= iov, "dat_srq_query max_recv_iov "
                        + srq.query().maxRecvIov() + " >= the requested " + iov);
            } finally {
                srq.close();
            }
        }
    }

    /**
     * RETURN VALUES: "DAT_MODEL_NOT_SUPPORTED The requested Model was not supported by the Provider."
     * Attribute honesty: a provider that reports srq_supported = false must refuse SRQs with this code.
     * If this fails, the provider denies SRQs but creates one, or refuses with another code.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "srq_supported = false: creation is not supported",
            returns = DatReturn.MODEL_NOT_SUPPORTED)
    void required_srq_create_modelNotSupportedWhenSrqDenied() {
        applicableIf(!f.provider.srqSupported(), "srq_supported = true: the denial does not apply");
        assertThrowsDat(DatReturn.MODEL_NOT_SUPPORTED, () -> f.ia.createSrq(f.pz, DatSrqAttr.of(4, 1)),
                CALL + " on a provider without SRQ");
    }

    /**
     * DESCRIPTION: "The created SRQ is unattached to any Endpoints." USAGE: "SRQ is created by the Consumer prior to
     * creation of the EPs that will be using it."
     * If this fails, a new SRQ could not be freed at once, as if an EP used it.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "a new SRQ is unattached and can be freed at once")
    void required_srq_create_createdUnattached() {
        requireSrq();
        DatSrq srq = f.ia.createSrq(f.pz, DatSrqAttr.of(4, 1));
        srq.close();
        assertTrue(srq.isClosed());
    }

    /**
     * DESCRIPTION: "Only memory referred to by LMRs of the posted Recv buffers that match the SRQ Protection Zone
     * can be accessed by the SRQ."
     * If this fails, a buffer of the SRQ's PZ was refused or one of another PZ accepted.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "only LMRs of the SRQ's PZ can be posted")
    void required_srq_create_onlyLmrsOfTheSrqPzArePosted() {
        requireSrq();
        DatSrq srq = f.ia.createSrq(f.pz, DatSrqAttr.of(4, 1));
        Region own = f.region();
        Region foreign = f.region(f.ia.createPz(), 4096, DatMemPriv.ALL);
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, f.iov(1).set(0, own.lmr(), 0, 64), 1), "own PZ");
        assertStatus(DatReturn.DAT_PROTECTION_VIOLATION, srq.postRecv(1, f.iov(1).set(0, foreign.lmr(), 0, 64), 2),
                "another PZ");
    }

    /**
     * DESCRIPTION: "The Consumer must set low_watermark to DAT_SRQ_LW_DEFAULT to ensure that an asynchronous event
     * will not be generated immediately, since there are no buffers in the created SRQ."
     * If this fails, creating an empty SRQ raised an asynchronous event.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "DAT_SRQ_LW_DEFAULT raises no event on an empty SRQ")
    void required_srq_create_defaultLowWatermarkRaisesNoEvent() {
        requireSrq();
        f.ia.createSrq(f.pz, DatSrqAttr.of(4, 1));
        f.quiet(f.ia.asyncEvd(), "the async EVD after creating an empty SRQ");
    }

    /**
     * DESCRIPTION: "When an associated EP tries to get a buffer from SRQ and there are no buffers available, the
     * behavior of the EP is the same as when there are no buffers on the EP Recv Work Queue."
     * If this fails, a message to an empty SRQ was lost or completed with an error instead of waiting for a buffer.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "an empty SRQ behaves as an empty receive queue")
    void required_srq_create_emptySrqBehavesAsEmptyReceiveQueue() {
        requireSrq();
        DatSrq srq = f.ia.createSrq(f.pz, DatSrqAttr.of(4, 1));
        Connection c = f.connect(f.side(f.epAttr(), null), f.side(f.epAttr(), srq));
        Region src = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, send(c.active(), src, 1), "dat_ep_post_send to an empty SRQ");
        f.quiet(c.passive().recvEvd(), "no receive completes without a buffer");
        Region dst = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, f.iov(1).set(0, dst.lmr(), 0, 64), 7),
                "dat_srq_post_recv");
        assertEquals(7, f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS).userCookie());
        f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS);
    }

    /**
     * USAGE: "Some Providers might restrict whether multiple EPs that share a SRQ can have different Protection
     * Zones. Check the srq_ep_pz_difference_support Provider attribute."
     * If this fails, the provider claims the support but an EP of another PZ cannot use the SRQ.
     */
    @Test
    @DatRule(call = CALL, section = "USAGE",
            rule = "EPs of another PZ share the SRQ when srq_ep_pz_difference_supported")
    void optional_srq_create_epsOfAnotherPzShareTheSrq() {
        needs("max_eps", f.limits.maxEps(), 2);
        requireSrq();
        optionalFeature(f.provider.srqEpPzDifferenceSupported(), "srq_ep_pz_difference_supported = false");
        DatSrq srq = f.ia.createSrq(f.pz, DatSrqAttr.of(4, 1));
        DatPz other = f.ia.createPz();
        DatEvd recv = f.evd(DatEvdFlags.DTO);
        DatEvd request = f.evd(DatEvdFlags.DTO);
        DatEvd connect = f.evd(DatEvdFlags.CONNECTION);
        Side passive = new Side(f.ia.createEpWithSrq(other, recv, request, connect, srq, f.epAttr()), request, recv,
                connect);
        Connection c = f.connect(f.side(f.epAttr(), null), passive);
        Region dst = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, f.iov(1).set(0, dst.lmr(), 0, 64), 3), "SRQ buffer");
        assertStatus(DatReturn.DAT_SUCCESS, send(c.active(), f.region(), 1), "dat_ep_post_send");
        assertEquals(3, f.completion(recv, DatDtoStatus.SUCCESS).userCookie());
    }

    /**
     * USAGE: as above; a provider that denies srq_ep_pz_difference_supported must refuse such an EP.
     * If this fails, the provider denies the support but accepted an EP of another PZ on the SRQ.
     */
    @Test
    @DatRule(call = CALL, section = "USAGE", rule = "an EP of another PZ is refused when the difference is unsupported",
            returns = DatReturn.MODEL_NOT_SUPPORTED)
    void required_srq_create_epOfAnotherPzRefusedWhenDifferenceDenied() {
        requireSrq();
        applicableIf(!f.provider.srqEpPzDifferenceSupported(),
                "srq_ep_pz_difference_supported = true: the refusal does not apply");
        DatSrq srq = f.ia.createSrq(f.pz, DatSrqAttr.of(4, 1));
        DatPz other = f.ia.createPz();
        assertThrowsDat(DatReturn.MODEL_NOT_SUPPORTED, () -> f.ia.createEpWithSrq(other, null, null, null, srq,
                f.epAttr()), "dat_ep_create_with_srq with a PZ other than the SRQ's");
    }

    /**
     * USAGE: "The EPs that use SRQ might or might not use the same recv_evd."
     * If this fails, completions of EPs with separate recv EVDs landed on the wrong EVD.
     */
    @Test
    @DatRule(call = CALL, section = "USAGE", rule = "EPs on one SRQ may use different recv EVDs")
    void required_srq_create_epsMayUseDifferentRecvEvds() {
        requireSrq();
        DatSrq srq = f.ia.createSrq(f.pz, DatSrqAttr.of(8, 1));
        Connection one = f.connect(f.side(f.epAttr(), null), f.side(f.epAttr(), srq));
        Connection two = f.connect(f.side(f.epAttr(), null), f.side(f.epAttr(), srq));
        assertNotSame(one.passive().recvEvd(), two.passive().recvEvd());
        Region dst = f.region();
        for (int i = 0; i < 2; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, srq.postRecv(1, f.iov(1).set(0, dst.lmr(), 64L * i, 64), i),
                    "dat_srq_post_recv");
        }
        Region src = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, send(one.active(), src, 1), "send on one");
        assertStatus(DatReturn.DAT_SUCCESS, send(two.active(), src, 2), "send on two");
        DatEvent a = f.completion(one.passive().recvEvd(), DatDtoStatus.SUCCESS);
        DatEvent b = f.completion(two.passive().recvEvd(), DatDtoStatus.SUCCESS);
        assertSame(one.passive().ep(), a.ep());
        assertSame(two.passive().ep(), b.ep());
    }

    /**
     * USAGE: "For each connection the Recv buffers completion order is guaranteed to be in the order of the posted
     * matching Sends to the other end of the connection."
     * If this fails, check that each connection's messages take SRQ buffers in send order.
     */
    @Test
    @DatRule(call = CALL, section = "USAGE", rule = "per-connection completion order is the order of matching sends")
    void required_srq_create_perConnectionCompletionOrder() {
        requireSrq();
        SrqPostRecvRules.checkPerConnectionOrder(f, f.ia.createSrq(f.pz, DatSrqAttr.of(32, 1)));
    }

    /**
     * USAGE: "There is no ordering guarantee that Receive buffers will be returned in the order they were posted
     * even if there is only a single connection ... There is no ordering guarantee between different connections
     * or between different recv_evds." Nothing is guaranteed, so nothing can be verified.
     */
    @Test
    @DatRule(call = CALL, section = "USAGE", rule = "no ordering across connections or of buffers")
    void untested_srq_create_noOrderingGuaranteeAcrossConnections() {
        Assumptions.abort("not verified by this TCK: the rule guarantees nothing");
    }
}
