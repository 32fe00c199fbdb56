package dat.tck.rules;

import static dat.tck.rules.TckFixture.assertFilled;
import static dat.tck.rules.TckFixture.assertSameBytes;
import static dat.tck.rules.TckFixture.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dat.api.DatDtoStatus;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatRmr;
import dat.api.DatRmrParam;
import dat.tck.DatRule;
import dat.tck.TckEnvironment;
import dat.tck.rules.TckFixture.Connection;
import dat.tck.rules.TckFixture.Region;
import org.junit.jupiter.api.Test;

/**
 * Rules of {@code dat_rmr_create}, {@code dat_rmr_bind} (and unbind), {@code dat_rmr_query}, {@code dat_rmr_free}.
 */
public abstract class RmrRules extends RuleSupport {

    /**
     * @param env the provider under test
     */
    protected RmrRules(TckEnvironment env) {
        super(env);
    }

    private DatRmr rmr() {
        optionalFeature(f.limits.maxRmrs() > 0, "max_rmrs = 0");
        return f.pz.createRmr();
    }

    /** Binds on {@code c}'s passive EP (the side that owns the memory) and returns the bind completion. */
    private DatEvent bind(DatRmr rmr, Region lmr, long offset, long length, int privileges, Connection c) {
        assertStatus(DatReturn.DAT_SUCCESS, rmr.bind(lmr.lmr(), offset, length, privileges, c.passive().ep(), 77, 0),
                "dat_rmr_bind");
        DatEvent done = f.next(c.passive().requestEvd());
        assertSame(DatEventType.RMR_BIND_COMPLETION, done.type(), "bind completion on the request EVD");
        assertSame(DatDtoStatus.SUCCESS, done.dtoStatus());
        assertEquals(77, done.userCookie());
        assertSame(rmr, done.rmr());
        return done;
    }

    /**
     * dat_rmr_create: an IA that reports max_rmrs = 0 must refuse RMRs with DAT_MODEL_NOT_SUPPORTED.
     * If this fails, the provider denies RMRs but created one, or refused with another code.
     */
    @Test
    @DatRule(call = "dat_rmr_create", section = "RETURN VALUES", rule = "max_rmrs = 0: RMRs are not supported",
            returns = DatReturn.MODEL_NOT_SUPPORTED)
    void required_rmr_create_modelNotSupportedWhenDenied() {
        applicableIf(f.limits.maxRmrs() == 0, "max_rmrs = " + f.limits.maxRmrs() + ": the denial does not apply");
        assertThrowsDat(DatReturn.MODEL_NOT_SUPPORTED, f.pz::createRmr, "dat_rmr_create with max_rmrs = 0");
    }

    /**
     * dat_rmr_bind: the peer can write the bound window through the RMR's context and nothing outside it; the
     * completion arrives on the request EVD of the EP the bind was posted on.
     * If this fails, check the window bounds and the bind completion.
     */
    @Test
    @DatRule(call = "dat_rmr_bind", section = "DESCRIPTION", rule = "the window is reachable, nothing beyond it")
    void optional_rmr_bind_exposesExactlyTheWindow() {
        DatRmr rmr = rmr();
        Connection c = f.connect();
        Region memory = f.region(4096, DatMemPriv.ALL);
        memory.memory().fill((byte) 0x11);
        bind(rmr, memory, 1024, 256, DatMemPriv.REMOTE_WRITE, c);
        DatRmrParam q = rmr.query();
        assertEquals(memory.address() + 1024, q.virtualAddress(), "bound lmr_triplet.virtual_address");
        assertEquals(256, q.segmentLength(), "bound lmr_triplet.segment_length");
        Region src = f.region();
        pattern(src.memory(), 3);
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postRdmaWrite(1, f.iov(1).set(0, src.lmr(), 0, 256), 1,
                rmr.rmrContext(), memory.address() + 1024, 256, 0), "dat_ep_post_rdma_write through the RMR");
        assertSame(DatDtoStatus.SUCCESS, f.next(c.active().requestEvd()).dtoStatus());
        assertSameBytes(src.memory().asSlice(0, 256), memory.memory().asSlice(1024, 256), "window");
        int rc = c.active().ep().postRdmaWrite(1, f.iov(1).set(0, src.lmr(), 0, 8), 2, rmr.rmrContext(),
                memory.address() + 1024 + 256, 8, 0);
        if (rc == DatReturn.DAT_SUCCESS) {
            assertNotEquals(DatDtoStatus.SUCCESS, f.next(c.active().requestEvd()).dtoStatus(), "write past the window");
        }
        assertFilled(memory.memory().asSlice(1280), (byte) 0x11, "memory after the window");
        assertFilled(memory.memory().asSlice(0, 1024), (byte) 0x11, "memory before the window");
    }

    /**
     * dat_rmr_bind: each bind gives a new rmr_context and unbinding (length 0) revokes the old one at once.
     * If this fails, an old context still reaches memory after an unbind or rebind.
     */
    @Test
    @DatRule(call = "dat_rmr_bind", section = "DESCRIPTION", rule = "unbind revokes; rebind gives a new context")
    void optional_rmr_bind_unbindRevokesAndRebindGivesNewContext() {
        DatRmr rmr = rmr();
        Connection c = f.connect();
        Region memory = f.region(4096, DatMemPriv.ALL);
        bind(rmr, memory, 0, 512, DatMemPriv.REMOTE_WRITE, c);
        int first = rmr.rmrContext();
        assertStatus(DatReturn.DAT_SUCCESS, rmr.unbind(c.passive().ep(), 78, 0), "unbind");
        assertSame(DatEventType.RMR_BIND_COMPLETION, f.next(c.passive().requestEvd()).type());
        Region src = f.region();
        pattern(src.memory(), 5);
        int rc = c.active().ep().postRdmaWrite(1, f.iov(1).set(0, src.lmr(), 0, 64), 3, first, memory.address(), 64, 0);
        if (rc == DatReturn.DAT_SUCCESS) {
            assertNotEquals(DatDtoStatus.SUCCESS, f.next(c.active().requestEvd()).dtoStatus(), "write with a revoked context");
        }
        assertFilled(memory.memory(), (byte) 0, "memory after a write through a revoked context");
        Connection again = f.connect();
        bind(rmr, memory, 0, 512, DatMemPriv.REMOTE_WRITE, again);
        assertNotEquals(first, rmr.rmrContext(), "a rebind gives a new rmr_context");
    }

    /**
     * dat_rmr_bind: a window outside the LMR is DAT_INVALID_PARAMETER; remote write asked of an LMR without
     * REMOTE_WRITE is DAT_PRIVILEGES_VIOLATION.
     * If this fails, check the bind's bounds and privilege checks.
     */
    @Test
    @DatRule(call = "dat_rmr_bind", section = "RETURN VALUES", rule = "bad window or missing privilege is refused",
            returns = {DatReturn.INVALID_PARAMETER, DatReturn.PRIVILEGES_VIOLATION})
    void optional_rmr_bind_refusesBadWindowOrPrivilege() {
        DatRmr rmr = rmr();
        Connection c = f.connect();
        Region memory = f.region(4096, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_READ);
        assertStatus(DatReturn.DAT_INVALID_PARAMETER,
                rmr.bind(memory.lmr(), 4000, 200, DatMemPriv.REMOTE_READ, c.passive().ep(), 1, 0), "window past the LMR");
        assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION,
                rmr.bind(memory.lmr(), 0, 64, DatMemPriv.REMOTE_WRITE, c.passive().ep(), 1, 0),
                "REMOTE_WRITE on an LMR without it");
    }
}
