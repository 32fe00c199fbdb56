// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dat.api.Dat;
import dat.api.DatCompletionFlags;
import dat.api.DatConnectFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEpAttr;
import dat.api.DatEpCreator;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatMemPriv;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.Iov;
import dat.tck.DatRule;
import dat.tck.TckEnvironment;
import dat.tck.rules.TckFixture.Connection;
import dat.tck.rules.TckFixture.Region;
import dat.tck.rules.TckFixture.Side;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Attribute honesty: what a provider claims works up to the limit it reports and stops just past it; what it
 * denies fails with {@code DAT_MODEL_NOT_SUPPORTED}, or with the code the call's page gives for it.
 */
public abstract class AttributeHonestyRules extends RuleSupport {

    private static final int[] POST_FLAGS = {DatCompletionFlags.SUPPRESS, DatCompletionFlags.SOLICITED_WAIT,
            DatCompletionFlags.BARRIER_FENCE};
    private static final long BIG = 1L << 20;

    /**
     * @param env the provider under test
     */
    protected AttributeHonestyRules(TckEnvironment env) {
        super(env);
    }

    /**
     * max_iov_segments_per_dto: an EP asking for the IA's limit (up to 64) can post that many segments, and one more
     * than its max_request_iov is DAT_INVALID_PARAMETER.
     * If this fails, the reported segment limit is not what the data path accepts.
     */
    @Test
    @DatRule(call = "dat_ep_post_send", section = "ATTRIBUTES",
            rule = "max_iov_segments_per_dto segments work, one more does not",
            returns = {DatReturn.SUCCESS, DatReturn.INVALID_PARAMETER})
    void required_ep_post_send_iovSegmentLimitHonoured() {
        int segments = Math.min(64, f.limits.maxIovSegmentsPerDto());
        DatEpAttr attr = f.epAttr().toBuilder().maxRequestIov(segments).maxRecvIov(segments).build();
        Connection c = f.connect(f.side(attr, null), f.side(attr, null));
        Region src = f.region();
        TckFixture.pattern(src.memory(), 23);
        Region dst = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, c.passive().ep().postRecv(1, f.iov(1).set(0, dst.lmr(), 0, 4096), 1, 0),
                "dat_ep_post_recv");
        Iov iov = f.iov(segments + 1);
        for (int i = 0; i <= segments; i++) {
            iov.set(i, src.lmr(), 16L * i, 16);
        }
        assertStatus(DatReturn.DAT_INVALID_PARAMETER, c.active().ep().postSend(segments + 1, iov, 1, 0),
                "dat_ep_post_send with max_request_iov + 1 = " + (segments + 1) + " segments");
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(segments, iov, 2, 0),
                "dat_ep_post_send with " + segments + " segments");
        assertEquals(16L * segments, f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS).transferredLength());
        TckFixture.assertSameBytes(src.memory().asSlice(0, 16L * segments), dst.memory().asSlice(0, 16L * segments),
                "gathered segments");
    }

    /**
     * max_message_size: a send of the EP's max_message_size (up to 1 MiB) arrives whole; one byte more is
     * DAT_INVALID_PARAMETER (the post_send page lists no DAT_LENGTH_ERROR; its code for a bad argument).
     * If this fails, the reported message size is not what the provider carries.
     */
    @Test
    @DatRule(call = "dat_ep_post_send", section = "ATTRIBUTES",
            rule = "max_message_size bytes arrive, one more is refused",
            returns = {DatReturn.SUCCESS, DatReturn.INVALID_PARAMETER})
    void required_ep_post_send_messageSizeLimitHonoured() {
        long size = Math.min(BIG, f.limits.maxMessageSize());
        DatEpAttr attr = f.epAttr().toBuilder().maxMessageSize(size).build();
        Connection c = f.connect(f.side(attr, null), f.side(attr, null));
        long actual = c.active().ep().query().epAttr().maxMessageSize();
        Region src = f.region(actual + 1, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
        TckFixture.pattern(src.memory(), 29);
        Region dst = f.region(actual + 1, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
        assertStatus(DatReturn.DAT_SUCCESS,
                c.passive().ep().postRecv(1, f.iov(1).set(0, dst.lmr(), 0, actual + 1), 1, 0), "dat_ep_post_recv");
        assertStatus(DatReturn.DAT_INVALID_PARAMETER, c.active().ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, actual
                + 1),
                1, 0), "dat_ep_post_send of max_message_size + 1 = " + (actual + 1) + " bytes");
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, actual), 2, 0),
                "dat_ep_post_send of max_message_size = " + actual + " bytes");
        assertEquals(actual, f.completion(c.passive().recvEvd(), DatDtoStatus.SUCCESS).transferredLength());
        TckFixture.assertSameBytes(src.memory().asSlice(0, actual), dst.memory().asSlice(0, actual), "message");
    }

    /**
     * max_rdma_size: an RDMA write of the EP's max_rdma_size (up to 1 MiB) lands whole; one byte more is
     * DAT_LENGTH_ERROR.
     * If this fails, the reported RDMA size is not what the provider carries.
     */
    @Test
    @DatRule(call = "dat_ep_post_rdma_write", section = "ATTRIBUTES",
            rule = "max_rdma_size bytes land, one more is refused",
            returns = {DatReturn.SUCCESS, DatReturn.LENGTH_ERROR})
    void required_ep_post_rdma_write_rdmaSizeLimitHonoured() {
        long size = Math.min(BIG, f.limits.maxRdmaSize());
        DatEpAttr attr = f.epAttr().toBuilder().maxRdmaSize(size).build();
        Connection c = f.connect(f.side(attr, null), f.side(attr, null));
        long actual = c.active().ep().query().epAttr().maxRdmaSize();
        Region src = f.region(actual + 1, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
        TckFixture.pattern(src.memory(), 37);
        Region dst = f.region(actual + 1, DatMemPriv.ALL);
        assertStatus(DatReturn.DAT_LENGTH_ERROR, c.active().ep().postRdmaWrite(1, f.iov(1).set(0, src.lmr(), 0,
                actual + 1), 1, dst.lmr().rmrContext(), dst.address(), actual + 1, 0), "write of max_rdma_size + 1");
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postRdmaWrite(1, f.iov(1).set(0, src.lmr(), 0, actual), 2,
                dst.lmr().rmrContext(), dst.address(), actual, 0), "write of max_rdma_size");
        f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS);
        TckFixture.assertSameBytes(src.memory().asSlice(0, actual), dst.memory().asSlice(0, actual), "written data");
    }

    /**
     * completion_flags_supported: a post flag the provider denies is refused with DAT_INVALID_PARAMETER, the post
     * pages' code for a bad argument (they list no DAT_MODEL_NOT_SUPPORTED).
     * If this fails, the provider denies a flag but accepts it (or refuses it with another code).
     */
    @Test
    @DatRule(call = "dat_ep_post_send", section = "ATTRIBUTES", rule = "a denied completion flag is a bad argument",
            returns = DatReturn.INVALID_PARAMETER)
    void required_ep_post_send_deniedCompletionFlagIsInvalidParameter() {
        List<Integer> denied = new ArrayList<>();
        for (int flag : POST_FLAGS) {
            // UNSIGNALLED is judged by the EP: dat_ep_post_send makes it "only valid if the Endpoint Request
            // Completion Flags DAT_COMPLETION_UNSIGNALLED_FLAG" is set, else DAT_INVALID_PARAMETER, and an EP of a
            // provider that denies the flag never has it (required_ep_post_send_unsignalledRefusedUnlessEpAllowsIt).
            if ((f.provider.completionFlagsSupported() & flag) == 0 && flag != DatCompletionFlags.UNSIGNALLED) {
                denied.add(flag);
            }
        }
        applicableIf(!denied.isEmpty(), "completion_flags_supported = 0x"
                + Integer.toHexString(f.provider.completionFlagsSupported()) + " denies no post flag");
        Connection c = f.connect();
        Region src = f.region();
        for (int flag : denied) {
            assertStatus(DatReturn.DAT_INVALID_PARAMETER,
                    c.active().ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, 8), 1, flag),
                    "dat_ep_post_send with denied flag 0x" + Integer.toHexString(flag));
        }
    }

    /**
     * srq_watermarks_supported: without the soft and hard high watermarks, dat_ep_set_watermark is
     * DAT_MODEL_NOT_SUPPORTED.
     * If this fails, the provider denies EP watermarks but accepts them.
     */
    @Test
    @DatRule(call = "dat_ep_set_watermark", section = "ATTRIBUTES", rule = "denied high watermarks are not supported",
            returns = DatReturn.MODEL_NOT_SUPPORTED)
    void required_ep_set_watermark_modelNotSupportedWhenDenied() {
        int high = Dat.DAT_SRQ_WATERMARK_SOFT_HIGH | Dat.DAT_SRQ_WATERMARK_HARD_HIGH;
        applicableIf((f.provider.srqWatermarksSupported() & high) == 0,
                "srq_watermarks_supported claims a high watermark: the denial does not apply");
        Side side = f.side(f.epAttr(), null);
        assertThrowsDat(DatReturn.MODEL_NOT_SUPPORTED, () -> side.ep().setWatermark(4, 8), "dat_ep_set_watermark");
    }

    /**
     * max_private_data_size: a connection request and an accept carrying exactly that many bytes arrive intact.
     * If this fails, the reported private-data size is not what the provider carries.
     */
    @Test
    @DatRule(call = "dat_ep_connect", section = "ATTRIBUTES", rule = "max_private_data_size bytes arrive intact")
    void required_ep_connect_privateDataLimitHonoured() {
        byte[] data = new byte[f.provider.maxPrivateDataSize()];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 13 + 1);
        }
        Side active = f.side(f.epAttr(), null);
        Side passive = f.side(f.epAttr(), null);
        DatEvd crEvd = f.evd(DatEvdFlags.CR);
        DatPsp psp = f.ia.createPspAny(crEvd, DatPspFlags.CONSUMER);
        active.ep().connect(f.ia.address(), psp.connQual(), f.eventTimeoutMicros(), data, DatQos.BEST_EFFORT, 0);
        DatEvent request = f.next(crEvd);
        assertArrayEquals(data, request.cr().query().privateData(), "request private data");
        request.cr().accept(passive.ep(), data);
        DatEvent established = f.next(active.connectEvd());
        assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, established.type());
        assertArrayEquals(data, established.privateData(), "accept private data");
    }

    /**
     * max_pzs and max_lmrs: the IA gives that many (when the count is small enough to try) and refuses one more with
     * DAT_INSUFFICIENT_RESOURCES.
     * If this fails, a reported object limit is not the real one.
     */
    @Test
    @DatRule(call = "dat_pz_create", section = "ATTRIBUTES", rule = "max_pzs and max_lmrs are the real limits",
            returns = {DatReturn.SUCCESS, DatReturn.INSUFFICIENT_RESOURCES})
    void required_pz_create_objectLimitsHonoured() {
        int maxPzs = f.limits.maxPzs();
        int maxLmrs = f.limits.maxLmrs();
        applicableIf(maxPzs <= 4096 && maxLmrs <= 8192, "max_pzs " + maxPzs + " / max_lmrs " + maxLmrs
                + " are too many to create in a test");
        for (int i = 1; i < maxPzs; i++) {
            f.ia.createPz();
        }
        assertThrowsDat(DatReturn.INSUFFICIENT_RESOURCES, f.ia::createPz, "dat_pz_create beyond max_pzs " + maxPzs);
        DatPz pz = f.pz;
        MemorySegment memory = f.arena.allocate(64L * maxLmrs + 64, 64);
        for (int i = 0; i < maxLmrs; i++) {
            f.ia.createLmr(pz, memory.asSlice(64L * i, 64), DatMemPriv.LOCAL_READ);
        }
        assertThrowsDat(DatReturn.INSUFFICIENT_RESOURCES,
                () -> f.ia.createLmr(pz, memory.asSlice(64L * maxLmrs, 64), DatMemPriv.LOCAL_READ),
                "dat_lmr_create beyond max_lmrs " + maxLmrs);
    }

    /**
     * dat_qos_supported and supports_multipath: a QoS outside the mask, or MULTIPATH when multipath is denied, is
     * DAT_MODEL_NOT_SUPPORTED at dat_ep_connect.
     * If this fails, the provider denies a QoS or multipath but accepts it (or refuses with another code).
     */
    @Test
    @DatRule(call = "dat_ep_connect", section = "ATTRIBUTES", rule = "a denied QoS or multipath is not supported",
            returns = DatReturn.MODEL_NOT_SUPPORTED)
    void required_ep_connect_deniedQosOrMultipathIsNotSupported() {
        List<DatQos> denied = new ArrayList<>();
        for (DatQos qos : DatQos.values()) {
            if (!qos.isIn(f.provider.datQosSupported()) && qos != DatQos.BEST_EFFORT) {
                denied.add(qos);
            }
        }
        boolean multipathDenied = !f.provider.supportsMultipath();
        applicableIf(!denied.isEmpty() || multipathDenied, "dat_qos_supported and supports_multipath deny nothing");
        for (DatQos qos : denied) {
            Side side = f.side(f.epAttr(), null);
            assertThrowsDat(DatReturn.MODEL_NOT_SUPPORTED,
                    () -> side.ep().connect(f.ia.address(), 1, f.eventTimeoutMicros(), null, qos, 0),
                    "dat_ep_connect with denied qos " + qos);
        }
        if (multipathDenied) {
            Side side = f.side(f.epAttr(), null);
            assertThrowsDat(DatReturn.MODEL_NOT_SUPPORTED, () -> side.ep().connect(f.ia.address(), 1,
                    f.eventTimeoutMicros(), null, DatQos.BEST_EFFORT, DatConnectFlags.MULTIPATH),
                    "dat_ep_connect with MULTIPATH while supports_multipath is false");
        }
    }

    /**
     * ep_creator: a provider that never creates EPs for a PSP refuses DAT_PSP_PROVIDER_FLAG with
     * DAT_MODEL_NOT_SUPPORTED.
     * If this fails, ep_creator = NEVER but the provider accepted a provider-flag PSP.
     */
    @Test
    @DatRule(call = "dat_psp_create", section = "ATTRIBUTES", rule = "ep_creator NEVER refuses PSP_PROVIDER",
            returns = DatReturn.MODEL_NOT_SUPPORTED)
    void required_psp_create_providerFlagNotSupportedWhenEpCreatorNever() {
        applicableIf(f.provider.epCreator() == DatEpCreator.NEVER,
                "ep_creator = " + f.provider.epCreator() + ": the refusal does not apply");
        DatEvd crEvd = f.evd(DatEvdFlags.CR);
        assertThrowsDat(DatReturn.MODEL_NOT_SUPPORTED, () -> f.ia.createPspAny(crEvd, DatPspFlags.PROVIDER),
                "dat_psp_create_any with DAT_PSP_PROVIDER_FLAG");
    }
}
