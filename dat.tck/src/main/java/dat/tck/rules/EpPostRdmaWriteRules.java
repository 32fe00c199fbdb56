// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static dat.tck.rules.TckFixture.assertFilled;
import static dat.tck.rules.TckFixture.assertSameBytes;
import static dat.tck.rules.TckFixture.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIovOwnership;
import dat.api.DatMemPriv;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.api.Iov;
import dat.tck.DatRule;
import dat.tck.TckEnvironment;
import dat.tck.rules.TckFixture.Connection;
import dat.tck.rules.TckFixture.Region;
import dat.tck.rules.TckFixture.Side;
import org.junit.jupiter.api.Test;

/**
 * Rules of {@code dat_ep_post_rdma_write(3DAT)}. (The page's synopsis says dat_ep_post_rdma_read and speaks of
 * reading in places; the call writes, and these rules test writing.)
 */
public abstract class EpPostRdmaWriteRules extends RuleSupport {

    private static final String CALL = "dat_ep_post_rdma_write";
    private static final byte UNTOUCHED = (byte) 0xA5;

    /**
     * @param env the provider under test
     */
    protected EpPostRdmaWriteRules(TckEnvironment env) {
        super(env);
    }

    /** A remote target of 4 KiB filled with {@link #UNTOUCHED}, registered for remote write on the passive side. */
    private Region target(DatPz zone, int privileges) {
        Region r = f.region(zone, 4096, privileges);
        r.memory().fill(UNTOUCHED);
        return r;
    }

    private Region target() {
        return target(f.pz, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_WRITE);
    }

    private int write(Side side, Region from, long offset, long length, long cookie, Region to, long toOffset,
                      long toLength, int flags) {
        return side.ep().postRdmaWrite(1, f.iov(1).set(0, from.lmr(), offset, length), cookie,
                to.lmr().rmrContext(), to.address() + toOffset, toLength, flags);
    }

    /**
     * Asserts that a write the remote side must refuse was refused: either at once with {@code code}, or, as a
     * transport can only find out at the target, by an unsuccessful completion. Either way the target is intact.
     */
    private void assertRemoteRefusal(int code, int rc, Side side, Region to, String what) {
        if (rc == DatReturn.DAT_SUCCESS) {
            DatEvent event = f.next(side.requestEvd());
            assertSame(DatEventType.DTO_COMPLETION, event.type(), what + ": completion expected");
            assertNotSame(DatDtoStatus.SUCCESS, event.dtoStatus(), what + ": the write must not succeed");
        } else {
            assertStatus(code, rc, what);
        }
        assertFilled(to.memory(), UNTOUCHED, what + ": target memory");
    }

    /**
     * RETURN VALUES: "DAT_SUCCESS". DESCRIPTION: "requests the transfer of all the data specified by the local_iov
     * over the connection of the ep_handle Endpoint into the remote_buffer. ... The local_iov segments are
     * traversed in the I/O Vector order until all the data is transferred. ... The user_cookie is returned to the
     * Consumer in the Completion event for the posted RDMA Write."
     * If this fails, check the gather order, the target offset, and that no byte outside the target range changed.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "all data written in IOV order, cookie returned",
            returns = DatReturn.SUCCESS)
    void required_ep_post_rdma_write_successWritesAllDataInIovOrder() {
        applicableIf(f.limits.maxIovSegmentsPerRdmaWrite() >= 3, "needs 3 RDMA write segments");
        Connection c = f.connect();
        Region src = f.region();
        pattern(src.memory(), 21);
        Region to = target();
        Iov iov = f.iov(3).set(0, src.lmr(), 2048, 100).set(1, src.lmr(), 0, 50).set(2, src.lmr(), 1024, 150);
        long cookie = -7;
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postRdmaWrite(3, iov, cookie, to.lmr().rmrContext(),
                to.address() + 512, 300, 0), CALL);
        DatEvent done = f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS);
        assertEquals(cookie, done.userCookie(), "user_cookie");
        assertSame(c.active().ep(), done.ep(), "ep_handle");
        assertEquals(300, done.transferredLength(), "transfered_length");
        assertSameBytes(src.memory().asSlice(2048, 100), to.memory().asSlice(512, 100), "segment 0");
        assertSameBytes(src.memory().asSlice(0, 50), to.memory().asSlice(612, 50), "segment 1");
        assertSameBytes(src.memory().asSlice(1024, 150), to.memory().asSlice(662, 150), "segment 2");
        assertFilled(to.memory().asSlice(0, 512), UNTOUCHED, "before the target range");
        assertFilled(to.memory().asSlice(812), UNTOUCHED, "after the target range");
        f.quiet(c.passive().recvEvd(), "an RDMA write consumes no receive");
    }

    /**
     * RETURN VALUES: "DAT_INSUFFICIENT_RESOURCES The operation failed due to resource limitations."
     * Exactly max_request_dtos (dat_ep_query) writes whose completions are not reaped fill the request queue; once
     * reaped, as many fit again.
     * If this fails, check the count of outstanding requests: the full test off by one, or a reaped completion that
     * does not give its slot back.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "a full request queue refuses another write",
            returns = DatReturn.INSUFFICIENT_RESOURCES)
    void required_ep_post_rdma_write_insufficientResourcesWhenRequestQueueFull() {
        Connection c = f.connect();
        int depth = c.active().ep().query().epAttr().maxRequestDtos();
        applicableIf(depth <= 1 << 10, "request queue of " + depth + " is too deep to fill");
        Region src = f.region();
        Region to = target();
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < depth; i++) {
                assertStatus(DatReturn.DAT_SUCCESS, write(c.active(), src, 0, 8, i, to, 0, 8, 0),
                        CALL + " " + (i + 1) + " of max_request_dtos " + depth + ", round " + round);
            }
            assertStatus(DatReturn.DAT_INSUFFICIENT_RESOURCES, write(c.active(), src, 0, 8, depth, to, 0, 8, 0),
                    CALL + " number " + (depth + 1) + " with " + depth + " completions unreaped, max_request_dtos "
                            + depth);
            for (int i = 0; i < depth; i++) {
                assertEquals(i, f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS).userCookie(),
                        "write completion " + i);
            }
        }
    }

    /**
     * RETURN VALUES: "DAT_INVALID_PARAMETER Invalid parameter. For example, one of the IOV segments pointed to a
     * memory outside its LMR." Any local segment, to the byte at both ends; num_segments outside
     * 0..max_rdma_write_iov and completion flags DAT does not define are invalid too. Nothing is written.
     * If this fails, check the bounds of every local triplet, the num_segments range and the flag mask.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "a local segment outside its LMR is refused",
            returns = DatReturn.INVALID_PARAMETER)
    void required_ep_post_rdma_write_invalidParameterForSegmentOutsideLmr() {
        Connection c = f.connect();
        DatEp ep = c.active().ep();
        int maxIov = ep.query().epAttr().maxRdmaWriteIov();
        int n = TckFixture.triplets(maxIov);
        Region src = f.region();
        int context = src.lmr().lmrContext();
        Region to = target();
        int rmr = to.lmr().rmrContext();
        long local = 16L * (n - 1) + 64;
        assertStatus(DatReturn.DAT_INVALID_PARAMETER, write(c.active(), src, 4090, 16, 1, to, 0, 64, 0),
                CALL + " past the local LMR's end");
        assertStatus(DatReturn.DAT_INVALID_PARAMETER, ep.postRdmaWrite(n,
                f.iovEndingWith(n, src, context, src.address() + 4096 - 63, 64), 1, rmr, to.address(), local, 0),
                CALL + " with local segment " + (n - 1) + " one byte past the LMR's end");
        assertStatus(DatReturn.DAT_INVALID_PARAMETER, ep.postRdmaWrite(n,
                f.iovEndingWith(n, src, context, src.address() - 1, 64), 1, rmr, to.address(), local, 0),
                CALL + " with local segment " + (n - 1) + " one byte before the LMR's start");
        assertStatus(DatReturn.DAT_INVALID_PARAMETER, ep.postRdmaWrite(-1, f.iov(1), 1, rmr, to.address(), 64, 0),
                CALL + " with num_segments -1");
        if (maxIov < 64) {
            Iov wide = f.iov(maxIov + 1);
            for (int i = 0; i <= maxIov; i++) {
                wide.set(i, src.lmr(), 16L * i, 16);
            }
            assertStatus(DatReturn.DAT_INVALID_PARAMETER, ep.postRdmaWrite(maxIov + 1, wide, 1, rmr, to.address(),
                    16L * (maxIov + 1), 0), CALL + " with num_segments max_rdma_write_iov + 1 = " + (maxIov + 1));
        }
        assertStatus(DatReturn.DAT_INVALID_PARAMETER, write(c.active(), src, 0, 8, 1, to, 0, 8, 0x40),
                CALL + " with completion flag 0x40, which DAT does not define");
        assertFilled(to.memory(), UNTOUCHED, "target memory");
        assertStatus(DatReturn.DAT_SUCCESS, ep.postRdmaWrite(n,
                f.iovEndingWith(n, src, context, src.address() + 4096 - 64, 64), 2, rmr, to.address(), local, 0),
                CALL + " with local segment " + (n - 1) + " ending exactly at the LMR's end");
        assertEquals(2, f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS).userCookie(),
                "the first completion is the valid write's");
    }

    /**
     * RETURN VALUES: "DAT_INVALID_HANDLE The ep_handle parameter is invalid."
     * If this fails, check that a freed EP answers DAT_INVALID_HANDLE.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "a freed EP is an invalid handle",
            returns = DatReturn.INVALID_HANDLE)
    void required_ep_post_rdma_write_invalidHandleAfterFree() {
        Side side = f.side(f.epAttr(), null);
        Region src = f.region();
        Region to = target();
        side.ep().close();
        assertStatus(DatReturn.DAT_INVALID_HANDLE, write(side, src, 0, 8, 1, to, 0, 8, 0), CALL + " on a freed EP");
    }

    /**
     * RETURN VALUES: "DAT_INVALID_STATE ... Endpoint was not in the DAT_EP_STATE_CONNECTED or
     * DAT_EP_STATE_DISCONNECTED state." Checked in UNCONNECTED and in ACTIVE_CONNECTION_PENDING.
     * If this fails, check the state test of post_rdma_write: it must admit CONNECTED and DISCONNECTED only.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "an unconnected EP is in an invalid state",
            returns = DatReturn.INVALID_STATE)
    void required_ep_post_rdma_write_invalidStateWhenUnconnected() {
        Side side = f.side(f.epAttr(), null);
        Region to = target();
        assertStatus(DatReturn.DAT_INVALID_STATE, write(side, f.region(), 0, 8, 1, to, 0, 8, 0),
                CALL + " when UNCONNECTED");
        Side pending = f.pendingSide();
        assertStatus(DatReturn.DAT_INVALID_STATE, write(pending, f.region(), 0, 8, 2, to, 0, 8, 0),
                CALL + " when ACTIVE_CONNECTION_PENDING");
        f.noEventNow(pending.requestEvd(), "a refused write leaves no completion");
        assertFilled(to.memory(), UNTOUCHED, "target memory");
    }

    /**
     * RETURN VALUES: "DAT_LENGTH_ERROR The size of the receiving buffer is too small for sending buffer data. The
     * size of the remote buffer is too small for the data of the local buffer." One byte too small is too small;
     * a remote buffer of exactly the local size is not (see the success rule).
     * If this fails, check the comparison of the local total with the remote segment_length.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "a remote buffer smaller than the data is a length error",
            returns = DatReturn.LENGTH_ERROR)
    void required_ep_post_rdma_write_lengthErrorWhenRemoteBufferTooSmall() {
        Connection c = f.connect();
        Region src = f.region();
        Region to = target();
        assertStatus(DatReturn.DAT_LENGTH_ERROR, write(c.active(), src, 0, 200, 1, to, 0, 100, 0),
                CALL + " of 200 bytes into a 100-byte remote buffer");
        assertStatus(DatReturn.DAT_LENGTH_ERROR, write(c.active(), src, 0, 200, 1, to, 0, 199, 0),
                CALL + " of 200 bytes into a 199-byte remote buffer");
        assertFilled(to.memory(), UNTOUCHED, "target memory");
    }

    /**
     * RETURN VALUES: "DAT_PROTECTION_VIOLATION ... Protection Zone mismatch between either an LMR of one of the
     * local_iov segments and the local Endpoint or the rmr_context and the remote Endpoint." (local part; the first
     * segment and the last of several)
     * If this fails, check that every local triplet's LMR's PZ is compared with the EP's PZ.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "a local LMR of another PZ is refused",
            returns = DatReturn.PROTECTION_VIOLATION)
    void required_ep_post_rdma_write_protectionViolationForLocalLmrOfAnotherPz() {
        Connection c = f.connect();
        int n = TckFixture.triplets(c.active().ep().query().epAttr().maxRdmaWriteIov());
        Region foreign = f.region(f.ia.createPz(), 4096, DatMemPriv.ALL);
        Region to = target();
        assertStatus(DatReturn.DAT_PROTECTION_VIOLATION, write(c.active(), foreign, 0, 8, 1, to, 0, 8, 0),
                CALL + " from an LMR of another PZ");
        assertStatus(DatReturn.DAT_PROTECTION_VIOLATION, c.active().ep().postRdmaWrite(n, f.iovEndingWith(n,
                f.region(), foreign.lmr().lmrContext(), foreign.address(), 8), 1, to.lmr().rmrContext(), to.address(),
                16L * (n - 1) + 8, 0), CALL + " with local segment " + (n - 1) + " in an LMR of another PZ");
        assertFilled(to.memory(), UNTOUCHED, "target memory");
    }

    /**
     * RETURN VALUES: "DAT_PROTECTION_VIOLATION ... or the rmr_context and the remote Endpoint." (remote part) A
     * transport may only learn this at the target, so the kit accepts the code at once or an unsuccessful
     * completion; the target memory must stay untouched either way.
     * If this fails, a write reached memory of a PZ the remote EP does not belong to.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES",
            rule = "an rmr_context of another PZ than the remote EP's is refused",
            returns = DatReturn.PROTECTION_VIOLATION)
    void required_ep_post_rdma_write_protectionViolationForRemoteContextOfAnotherPz() {
        Connection c = f.connect();
        DatPz other = f.ia.createPz();
        Region to = target(other, DatMemPriv.ALL);
        int rc = write(c.active(), f.region(), 0, 64, 1, to, 0, 64, 0);
        assertRemoteRefusal(DatReturn.DAT_PROTECTION_VIOLATION, rc, c.active(), to,
                CALL + " to an rmr_context of another PZ");
    }

    /**
     * RETURN VALUES: "DAT_PRIVILEGES_VIOLATION ... Either one of the LMRs used in local_iov is invalid or does not
     * have the local read privileges, or rmr_context does not have the remote write privileges." (local part; the
     * first segment and the last of several)
     * If this fails, check the LOCAL_READ test and the lmr_context lookup of every local triplet.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES",
            rule = "a local LMR without local read, or an invalid one, is refused",
            returns = DatReturn.PRIVILEGES_VIOLATION)
    void required_ep_post_rdma_write_privilegesViolationForLocalLmr() {
        Connection c = f.connect();
        DatEp ep = c.active().ep();
        int n = TckFixture.triplets(ep.query().epAttr().maxRdmaWriteIov());
        long local = 16L * (n - 1) + 8;
        Region valid = f.region();
        Region to = target();
        int rmr = to.lmr().rmrContext();
        Region writeOnly = f.region(4096, DatMemPriv.LOCAL_WRITE);
        assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION, write(c.active(), writeOnly, 0, 8, 1, to, 0, 8, 0),
                CALL + " from an LMR without LOCAL_READ");
        assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION, ep.postRdmaWrite(n, f.iovEndingWith(n, valid,
                writeOnly.lmr().lmrContext(), writeOnly.address(), 8), 1, rmr, to.address(), local, 0),
                CALL + " with local segment " + (n - 1) + " without LOCAL_READ");
        Region freed = f.region();
        Iov stale = f.iov(1).set(0, freed.lmr(), 0, 8);
        Iov staleLast = f.iovEndingWith(n, valid, freed.lmr().lmrContext(), freed.address(), 8);
        freed.lmr().close();
        assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION, ep.postRdmaWrite(1, stale, 1, rmr, to.address(), 8, 0),
                CALL + " from a freed LMR");
        assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION, ep.postRdmaWrite(n, staleLast, 1, rmr, to.address(), local,
                0), CALL + " with local segment " + (n - 1) + " in a freed LMR");
        assertFilled(to.memory(), UNTOUCHED, "target memory");
    }

    /**
     * RETURN VALUES: "DAT_PRIVILEGES_VIOLATION ... or rmr_context does not have the remote write privileges."
     * (remote part) Accepted at once or as an unsuccessful completion; the target stays untouched.
     * If this fails, a write landed in memory registered without REMOTE_WRITE.
     */
    @Test
    @DatRule(call = CALL, section = "RETURN VALUES", rule = "an rmr_context without remote write is refused",
            returns = DatReturn.PRIVILEGES_VIOLATION)
    void required_ep_post_rdma_write_privilegesViolationForRemoteWithoutRemoteWrite() {
        Connection c = f.connect();
        Region to = target(f.pz, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_READ);
        int rc = write(c.active(), f.region(), 0, 64, 1, to, 0, 64, 0);
        assertRemoteRefusal(DatReturn.DAT_PRIVILEGES_VIOLATION, rc, c.active(), to,
                CALL + " to memory without REMOTE_WRITE");
    }

    /**
     * Security (DAT: an RMR context grants access to its region only): a write that runs one byte past the remote
     * region's end, or starts one byte before it, or names a context of no region, never lands, and no byte next
     * to the region changes.
     * If this fails, the provider let a connection write memory it was not given: check the remote bounds at both
     * ends, to the byte.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "a write outside the remote region never lands")
    void required_ep_post_rdma_write_outsideRemoteRegionNeverLands() {
        TckFixture.Guarded to = f.guarded(4096, DatMemPriv.ALL);
        to.region().memory().fill(UNTOUCHED);
        Region src = f.region();
        pattern(src.memory(), 9);
        long[][] outside = {{4096 - 63, 64}, {-1, 64}};
        for (long[] range : outside) {
            Connection c = f.connect();
            int rc = c.active().ep().postRdmaWrite(1, f.iov(1).set(0, src.lmr(), 0, range[1]), 1,
                    to.region().lmr().rmrContext(), to.region().address() + range[0], range[1], 0);
            String what = "a write of " + range[1] + " bytes at offset " + range[0] + " of a 4096-byte region";
            if (rc == DatReturn.DAT_SUCCESS) {
                assertNotSame(DatDtoStatus.SUCCESS, f.next(c.active().requestEvd()).dtoStatus(),
                        what + " must not succeed");
            }
            assertFilled(to.region().memory(), UNTOUCHED, "target memory after " + what);
            to.assertGuardsIntact(what);
        }
        Connection fresh = f.connect();
        int bogus = to.region().lmr().rmrContext() ^ 0x5A5A_5A5A;
        int rc = fresh.active().ep().postRdmaWrite(1, f.iov(1).set(0, src.lmr(), 0, 64), 2, bogus,
                to.region().address(), 64, 0);
        if (rc == DatReturn.DAT_SUCCESS) {
            assertNotSame(DatDtoStatus.SUCCESS, f.next(fresh.active().requestEvd()).dtoStatus(),
                    "a write with an unknown rmr_context must not succeed");
        }
        assertFilled(to.region().memory(), UNTOUCHED, "target memory after a write with an unknown context");
    }

    /**
     * DESCRIPTION: "Providers that allow Consumers to get ownership of the local_iov but not the memory it specifies
     * back after the dat_ep_post_rdma_write() returns should document this behavior and also specify its support in
     * Provider attributes."
     * If this fails, the provider claims iov_ownership_on_return = CONSUMER but used the IOV after returning.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION",
            rule = "IOV reusable at return when iov_ownership_on_return = CONSUMER")
    void optional_ep_post_rdma_write_iovReusableOnReturnWhenConsumerOwned() {
        optionalFeature(f.provider.iovOwnershipOnReturn() == DatIovOwnership.CONSUMER,
                "iov_ownership_on_return = " + f.provider.iovOwnershipOnReturn());
        Connection c = f.connect();
        Region src = f.region();
        pattern(src.memory(), 13);
        Region decoy = f.region();
        pattern(decoy.memory(), 77);
        Region to = target();
        Iov iov = f.iov(1).set(0, src.lmr(), 0, 128);
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postRdmaWrite(1, iov, 1, to.lmr().rmrContext(),
                to.address(), 128, 0), CALL);
        iov.set(0, decoy.lmr(), 0, 128);
        f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS);
        assertSameBytes(src.memory().asSlice(0, 128), to.memory().asSlice(0, 128), "data named at post time");
    }

    /**
     * DESCRIPTION: "The value of DAT_COMPLETION_UNSIGNALLED_FLAG is only valid if the Endpoint Request Completion
     * Flags DAT_COMPLETION_UNSIGNALLED_FLAG. Otherwise, DAT_INVALID_PARAMETER is returned."
     * If this fails, check the UNSIGNALLED test of post_rdma_write.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "UNSIGNALLED refused unless the EP allows it",
            returns = DatReturn.INVALID_PARAMETER)
    void required_ep_post_rdma_write_unsignalledRefusedUnlessEpAllowsIt() {
        Connection c = f.connect();
        Region to = target();
        assertStatus(DatReturn.DAT_INVALID_PARAMETER,
                write(c.active(), f.region(), 0, 8, 1, to, 0, 8, DatCompletionFlags.UNSIGNALLED),
                CALL + " UNSIGNALLED on an EP whose request_completion_flags lack it");
        assertFilled(to.memory(), UNTOUCHED, "target memory");
    }

    /**
     * PARAMETERS: "DAT_COMPLETION_SUPPRESS_FLAG 0x01 Suppress successful Completion."
     * If this fails, a suppressed successful write still produced a completion, or its data did not land.
     */
    @Test
    @DatRule(call = CALL, section = "PARAMETERS", rule = "SUPPRESS: no completion for a successful write")
    void optional_ep_post_rdma_write_suppressOmitsSuccessfulCompletion() {
        optionalFeature((f.provider.completionFlagsSupported() & DatCompletionFlags.SUPPRESS) != 0,
                "completion_flags_supported lacks SUPPRESS");
        Connection c = f.connect();
        Region src = f.region();
        pattern(src.memory(), 15);
        Region to = target();
        assertStatus(DatReturn.DAT_SUCCESS,
                write(c.active(), src, 0, 64, 1, to, 0, 64, DatCompletionFlags.SUPPRESS), CALL + " suppressed");
        assertStatus(DatReturn.DAT_SUCCESS, write(c.active(), src, 64, 64, 2, to, 64, 64, 0), CALL);
        assertEquals(2, f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS).userCookie(),
                "the first completion is the unsuppressed write's");
        assertSameBytes(src.memory().asSlice(0, 128), to.memory().asSlice(0, 128), "both writes landed");
    }

    /**
     * DESCRIPTION: "The operation is valid for the Endpoint in the DAT_EP_STATE_CONNECTED and
     * DAT_EP_STATE_DISCONNECTED states. If the operation returns successfully for the Endpoint in the
     * DAT_EP_STATE_DISCONNECTED state, the posted RDMA Write is immediately flushed to request_evd_handle."
     * If this fails, check the DISCONNECTED branch: success, a FLUSHED completion with the cookie, no data moved.
     */
    @Test
    @DatRule(call = CALL, section = "DESCRIPTION", rule = "in DISCONNECTED a write succeeds, is flushed, moves nothing")
    void required_ep_post_rdma_write_flushedAtOnceWhenDisconnected() {
        Connection c = f.connect();
        Region to = target();
        c.active().ep().disconnect(DatCloseFlags.ABRUPT);
        f.next(c.active().connectEvd());
        assertStatus(DatReturn.DAT_SUCCESS, write(c.active(), f.region(), 0, 8, 41, to, 0, 8, 0),
                CALL + " in DISCONNECTED");
        assertEquals(41, f.completion(c.active().requestEvd(), DatDtoStatus.FLUSHED).userCookie());
        assertFilled(to.memory(), UNTOUCHED, "target memory");
    }

    /**
     * USAGE: "For best RDMA Write operation performance, the Consumer should align each buffer segment of local_iov
     * to the Optimal Buffer Alignment attribute of the Provider. For portable applications, the Consumer should
     * align each buffer segment of local_iov to the DAT_OPTIMAL_ALIGNMENT."
     * If this fails, an aligned write of DAT_OPTIMAL_ALIGNMENT bytes was refused or corrupted.
     */
    @Test
    @DatRule(call = CALL, section = "USAGE", rule = "segments aligned to DAT_OPTIMAL_ALIGNMENT write correctly")
    void required_ep_post_rdma_write_alignedSegmentsWrite() {
        Connection c = f.connect();
        Region src = f.region(2L * Dat.DAT_OPTIMAL_ALIGNMENT, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
        pattern(src.memory(), 17);
        Region to = target();
        assertStatus(DatReturn.DAT_SUCCESS, write(c.active(), src, Dat.DAT_OPTIMAL_ALIGNMENT,
                Dat.DAT_OPTIMAL_ALIGNMENT, 1, to, Dat.DAT_OPTIMAL_ALIGNMENT, Dat.DAT_OPTIMAL_ALIGNMENT, 0), CALL);
        f.completion(c.active().requestEvd(), DatDtoStatus.SUCCESS);
        assertSameBytes(src.memory().asSlice(Dat.DAT_OPTIMAL_ALIGNMENT, Dat.DAT_OPTIMAL_ALIGNMENT),
                to.memory().asSlice(Dat.DAT_OPTIMAL_ALIGNMENT, Dat.DAT_OPTIMAL_ALIGNMENT), "aligned write");
    }
}
