// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatLmr;
import dat.api.DatLmrParam;
import dat.api.DatMemPriv;
import dat.api.DatProviderAttr;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.api.Iov;
import dat.tck.DatRule;
import dat.tck.TckEnvironment;
import dat.tck.rules.TckFixture.Connection;
import dat.tck.rules.TckFixture.Region;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Life cycle rules of the IA, PZ and LMR: {@code dat_ia_open}, {@code dat_ia_query}, {@code dat_ia_close},
 * {@code dat_pz_create}/{@code _query}/{@code _free}, {@code dat_lmr_create}/{@code _query}/{@code _free}, and the
 * handle calls every object shares.
 */
public abstract class IaPzLmrRules extends RuleSupport {

    /**
     * @param env the provider under test
     */
    protected IaPzLmrRules(TckEnvironment env) {
        super(env);
    }

    /**
     * dat_ia_open: "async_evd_handle ... the asynchronous event dispatcher" is created with the IA.
     * If this fails, check that the IA's async EVD exists and accepts asynchronous events.
     */
    @Test
    @DatRule(call = "dat_ia_open", section = "DESCRIPTION", rule = "opening creates the async EVD")
    void required_ia_open_createsAsyncEvd() {
        assertTrue((f.ia.asyncEvd().query().evdFlags() & DatEvdFlags.ASYNC) != 0,
                "the async EVD has DAT_EVD_ASYNC_FLAG");
        assertSame(DatHandleType.EVD, f.ia.asyncEvd().handleType());
        assertSame(DatHandleType.IA, f.ia.handleType());
    }

    /**
     * dat_ia_query: max_private_data_size is at least DAT's minimum of 64 bytes, so a consumer may always send that
     * much with a connect, an accept or a reject. If this fails, the transport carries less: rdma_cm over RoCE or
     * InfiniBand, for one, has 56 bytes in a connect request.
     */
    @Test
    @DatRule(call = "dat_ia_query", section = "DESCRIPTION", rule = "max_private_data_size is at least 64")
    void required_ia_query_privateDataAtLeastDatMinimum() {
        assertTrue(f.provider.maxPrivateDataSize() >= Dat.DAT_MIN_PRIVATE_DATA_SIZE,
                "max_private_data_size " + f.provider.maxPrivateDataSize() + " >= " + Dat.DAT_MIN_PRIVATE_DATA_SIZE);
    }

    /**
     * dat_ia_query: provider and IA attributes describe a usable IA, and optimal_buffer_alignment is a power of two.
     * If this fails, an attribute is impossible (a zero limit the provider still serves, a bad alignment, a wrong
     * DAT version).
     */
    @Test
    @DatRule(call = "dat_ia_query", section = "DESCRIPTION", rule = "attributes are coherent")
    void required_ia_query_attributesAreCoherent() {
        DatProviderAttr p = f.provider;
        DatIaAttr a = f.limits;
        assertEquals(Dat.DAT_VERSION_MAJOR, p.daplVersionMajor(), "dapl_version_major");
        assertEquals(Dat.DAT_VERSION_MINOR, p.daplVersionMinor(), "dapl_version_minor");
        assertTrue(Integer.bitCount(p.optimalBufferAlignment()) == 1, "optimal_buffer_alignment is a power of two");
        assertTrue((p.completionFlagsSupported() & ~DatCompletionFlags.ALL) == 0,
                "completion_flags_supported holds only DAT flags");
        // A limit of 0 denies the object (as max_rmrs = 0 denies RMRs): honest only if the provider refuses it. An EP
        // that may hold no DTO, or no segment, is denied as well.
        boolean endpoints = a.maxEps() > 0 && a.maxDtoPerEp() > 0 && a.maxIovSegmentsPerDto() > 0;
        if (!endpoints) {
            assertThrows(DatException.class, () -> f.ia.createEp(f.pz, null, null, null, DatEpAttr.builder().build()),
                    "max_eps = " + a.maxEps() + ", max_dto_per_ep = " + a.maxDtoPerEp()
                            + ", max_iov_segments_per_dto = " + a.maxIovSegmentsPerDto()
                            + " deny endpoints, yet dat_ep_create succeeded");
        }
        if (a.maxEvds() == 0) {
            assertThrows(DatException.class, () -> f.ia.createEvd(1, null, DatEvdFlags.SOFTWARE),
                    "max_evds = 0, yet dat_evd_create succeeded");
        }
        if (a.maxLmrs() == 0) {
            assertThrows(DatException.class, () -> f.ia.createLmr(f.pz, f.arena.allocate(64), DatMemPriv.ALL),
                    "max_lmrs = 0, yet dat_lmr_create succeeded");
        }
        assertTrue(a.maxPzs() >= 1, "max_pzs = " + a.maxPzs() + " must be at least 1");
        if (a.maxEvds() > 0) {
            assertTrue(a.maxEvdQlen() >= 1, "max_evd_qlen = " + a.maxEvdQlen() + " must be at least 1");
        }
        assertTrue(a.maxLmrBlockSize() >= 4096, "max_lmr_block_size");
        assertTrue(a.maxMessageSize() >= 1, "max_message_size");
        if (p.srqSupported()) {
            assertTrue(a.maxSrqs() >= 1 && a.maxRecvPerSrq() >= 1, "an IA with SRQs has max_srqs and max_recv_per_srq");
        }
        assertEquals(a, f.ia.query(), "dat_ia_query is stable");
    }

    /**
     * dat_ia_close: "DAT_CLOSE_GRACEFUL_FLAG ... the IA is closed only if all objects have been freed", else
     * DAT_INVALID_STATE.
     * If this fails, a graceful close destroyed live objects or succeeded with objects alive.
     */
    @Test
    @DatRule(call = "dat_ia_close", section = "DESCRIPTION", rule = "graceful close refuses while objects live",
            returns = DatReturn.INVALID_STATE)
    void required_ia_close_gracefulRefusesWhileObjectsLive() {
        DatIa ia = openIa();
        try {
            DatPz pz = ia.createPz();
            assertThrowsDat(DatReturn.INVALID_STATE, () -> ia.close(DatCloseFlags.GRACEFUL), "dat_ia_close with a PZ");
            assertTrue(!pz.isClosed() && !ia.isClosed(), "nothing was freed");
            pz.close();
            ia.close(DatCloseFlags.GRACEFUL);
            assertTrue(ia.isClosed());
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * dat_ia_close: "DAT_CLOSE_ABRUPT_FLAG ... all objects of the IA are destroyed".
     * If this fails, an object of an abruptly closed IA still works.
     */
    @Test
    @DatRule(call = "dat_ia_close", section = "DESCRIPTION", rule = "abrupt close destroys every object",
            returns = DatReturn.INVALID_HANDLE)
    void required_ia_close_abruptDestroysEveryObject() {
        needs("max_lmrs", f.limits.maxLmrs(), 1);
        DatIa ia = openIa();
        DatPz pz = ia.createPz();
        MemorySegment memory = f.arena.allocate(4096, 256);
        DatLmr lmr = ia.createLmr(pz, memory, DatMemPriv.ALL);
        ia.close(DatCloseFlags.ABRUPT);
        assertTrue(ia.isClosed() && pz.isClosed() && lmr.isClosed(), "IA, PZ and LMR are freed");
        assertThrowsDat(DatReturn.INVALID_HANDLE, pz::query, "dat_pz_query after the IA closed");
        assertThrowsDat(DatReturn.INVALID_HANDLE, ia::createPz, "dat_pz_create on a closed IA");
        ia.close();
    }

    /**
     * dat_set_consumer_context / dat_get_consumer_context: the value set is the value got; the provider never
     * interprets it.
     * If this fails, the consumer context is lost or shared between handles.
     */
    @Test
    @DatRule(call = "dat_set_consumer_context", section = "DESCRIPTION", rule = "the context set is the context got")
    void required_set_consumer_context_roundTrips() {
        Object token = new Object();
        assertNull(f.pz.consumerContext(), "no context before one is set");
        f.pz.consumerContext(token);
        assertSame(token, f.pz.consumerContext());
        assertNull(f.ia.consumerContext(), "contexts are per handle");
        f.pz.close();
        assertThrowsDat(DatReturn.INVALID_HANDLE, f.pz::consumerContext, "dat_get_consumer_context on a freed PZ");
    }

    /**
     * dat_pz_free: "DAT_INVALID_STATE Parameter in an invalid state. The Protection Zone is in use by some other
     * object."
     * If this fails, a PZ with an LMR was freed, or the refused free changed something.
     */
    @Test
    @DatRule(call = "dat_pz_free", section = "RETURN VALUES", rule = "a PZ in use cannot be freed",
            returns = DatReturn.INVALID_STATE)
    void required_pz_free_refusedWhileInUse() {
        DatPz pz = f.ia.createPz();
        Region r = f.region(pz, 4096, DatMemPriv.LOCAL_READ);
        assertThrowsDat(DatReturn.INVALID_STATE, pz::close, "dat_pz_free with an LMR");
        assertSame(f.ia, pz.query().ia(), "the PZ still works");
        r.lmr().close();
        pz.close();
        assertTrue(pz.isClosed());
        pz.close();
    }

    /**
     * dat_lmr_create: the LMR covers the region with the privileges asked, and dat_lmr_query says so.
     * If this fails, check registered_address, registered_size, contexts and privileges of the LMR.
     */
    @Test
    @DatRule(call = "dat_lmr_create", section = "DESCRIPTION", rule = "the LMR reports its region and privileges",
            returns = DatReturn.SUCCESS)
    void required_lmr_create_reportsRegionAndPrivileges() {
        Region r = f.region(8192, DatMemPriv.LOCAL_READ | DatMemPriv.REMOTE_WRITE);
        DatLmrParam q = r.lmr().query();
        assertEquals(r.memory().address(), q.registeredAddress(), "registered_address");
        assertTrue(q.registeredSize() >= 8192, "registered_size");
        assertEquals(DatMemPriv.LOCAL_READ | DatMemPriv.REMOTE_WRITE, q.memPriv(), "mem_priv");
        assertEquals(r.lmr().lmrContext(), q.lmrContext(), "lmr_context");
        assertEquals(r.lmr().rmrContext(), q.rmrContext(), "rmr_context");
        assertSame(f.pz, q.pz(), "pz_handle");
        assertEquals(Dat.DAT_MEM_TYPE_VIRTUAL, q.memType(), "mem_type");
    }

    /**
     * dat_lmr_create: "DAT_INVALID_PARAMETER" for a region that cannot be registered or unknown privilege bits.
     * If this fails, a heap segment, an empty region or privilege bit 0x04 was accepted.
     */
    @Test
    @DatRule(call = "dat_lmr_create", section = "RETURN VALUES", rule = "bad regions and privileges are refused",
            returns = DatReturn.INVALID_PARAMETER)
    void required_lmr_create_invalidParameterForBadRegionOrPrivileges() {
        needs("max_lmrs", f.limits.maxLmrs(), 1);
        assertThrowsDat(DatReturn.INVALID_PARAMETER,
                () -> f.ia.createLmr(f.pz, MemorySegment.ofArray(new byte[64]), DatMemPriv.ALL), "a heap segment");
        assertThrowsDat(DatReturn.INVALID_PARAMETER,
                () -> f.ia.createLmr(f.pz, f.arena.allocate(64).asSlice(0, 0), DatMemPriv.ALL), "an empty region");
        assertThrowsDat(DatReturn.INVALID_PARAMETER,
                () -> f.ia.createLmr(f.pz, f.arena.allocate(64), 0x04), "privilege bit 0x04");
    }

    /**
     * Security (DESIGN: "LMR and RMR contexts are random tags, not counters, so they cannot be guessed"): contexts
     * of successive LMRs are distinct and do not step by a constant.
     * If this fails, contexts are handed out from a counter: use a random tag.
     */
    @Test
    @DatRule(call = "dat_lmr_create", section = "DESCRIPTION", rule = "contexts are unguessable, not counters")
    void required_lmr_create_contextsAreNotCounters() {
        Set<Integer> seen = new HashSet<>();
        Set<Integer> steps = new HashSet<>();
        int previous = 0;
        for (int i = 0; i < 16; i++) {
            Region r = f.region(64, DatMemPriv.ALL);
            int context = r.lmr().rmrContext();
            assertTrue(seen.add(context), "rmr_context " + context + " repeated");
            assertTrue(seen.add(r.lmr().lmrContext()) || r.lmr().lmrContext() == context, "lmr_context repeated");
            if (i > 0) {
                steps.add(context - previous);
            }
            previous = context;
        }
        assertNotEquals(1, steps.size(), "rmr_contexts step by a constant " + steps);
    }

    /**
     * dat_lmr_free: afterwards the LMR's context names nothing (see the post rules) and its handle is invalid.
     * If this fails, a freed LMR still answers queries.
     */
    @Test
    @DatRule(call = "dat_lmr_free", section = "DESCRIPTION", rule = "a freed LMR is an invalid handle",
            returns = DatReturn.INVALID_HANDLE)
    void required_lmr_free_makesTheHandleInvalid() {
        Region r = f.region();
        r.lmr().close();
        assertThrowsDat(DatReturn.INVALID_HANDLE, r.lmr()::query, "dat_lmr_query on a freed LMR");
        r.lmr().close();
    }

    /**
     * dat_lmr_free: "the Consumer ... cannot use the LMR ... after the dat_lmr_free() has completed" and the
     * provider "must not write into the memory region after the LMR is freed": once dat_lmr_free returns, no delivery
     * into the region is still under way. Rounds of large RDMA writes into the region (the peer's delivery) and RDMA
     * reads into it (the local one), with the free landing at a random point of the transfers: from the moment the
     * free returns, the region never changes. (A free refused as in use, DAT_INVALID_STATE, is allowed; the round
     * then frees once its transfers completed.)
     * If this fails, dat_lmr_free returned while a copy or DMA into the region still ran: it must wait for, or fence
     * off, every transfer that holds the region.
     *
     * @throws InterruptedException when interrupted while the transfers run
     */
    @Test
    @DatRule(call = "dat_lmr_free", section = "DESCRIPTION", rule = "no byte lands in the region after the free")
    void required_lmr_free_noByteLandsAfterItReturns() throws InterruptedException {
        Connection c = f.connect();
        DatEpAttr attr = c.active().ep().query().epAttr();
        long size = Math.min(1 << 20, Math.min(attr.maxRdmaSize(), f.limits.maxLmrBlockSize()));
        boolean reads = attr.maxRdmaReadOut() > 0;
        Region src = f.region(size, DatMemPriv.ALL);
        TckFixture.pattern(src.memory(), 29);
        SplittableRandom random = new SplittableRandom(size);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        for (int round = 0; round < 48 && System.nanoTime() < deadline; round++) {
            if (c.active().ep().state() != DatEpState.CONNECTED || c.passive().ep().state() != DatEpState.CONNECTED) {
                c = f.connect();
            }
            boolean read = reads && round % 2 == 1;
            Region target = f.region(size, DatMemPriv.ALL);
            Connection now = c;
            int transfers = 3;
            Thread poster = Thread.ofPlatform().name("dat.tck lmr_free poster").daemon().start(() -> {
                Iov iov = Iov.allocate(f.arena, 1);
                for (int i = 0; i < transfers; i++) {
                    if (read) {
                        now.active().ep().postRdmaRead(1, iov.set(0, target.lmr().lmrContext(), target.address(),
                                size), i, src.lmr().rmrContext(), src.address(), size, 0);
                    } else {
                        now.active().ep().postRdmaWrite(1, iov.set(0, src.lmr(), 0, size), i,
                                target.lmr().rmrContext(), target.address(), size, 0);
                    }
                }
            });
            // The snapshot's buffer exists before the free, so the copy follows the free's return at once: a byte
            // that lands later is in the region and not in the snapshot.
            MemorySegment after = f.arena.allocate(size);
            LockSupport.parkNanos(random.nextLong(300_000));
            boolean freed = free(target);
            after.copyFrom(target.memory());
            f.join(poster, "the RDMA posts of round " + round);
            reapAll(now.active().requestEvd());
            if (!freed) {
                target.lmr().close();
                after.copyFrom(target.memory());
            }
            // Long enough for a copy the free did not wait for to have landed.
            Thread.sleep(20);
            TckFixture.assertSameBytes(after, target.memory(), (read ? "RDMA read" : "RDMA write") + " round "
                    + round + ": the region after dat_lmr_free returned");
        }
    }

    /** Frees {@code r}'s LMR; {@return whether it was freed, or refused as in use} */
    private static boolean free(Region r) {
        try {
            r.lmr().close();
            return true;
        } catch (DatException e) {
            if (e.type() != DatReturn.INVALID_STATE) {
                throw e;
            }
            return false;
        }
    }

    /** Dequeues what {@code evd} holds, waiting {@link TckFixture#QUIET_MILLIS} past the last event. */
    private void reapAll(DatEvd evd) {
        DatEvent e = new DatEvent();
        long quietSince = System.nanoTime();
        while (System.nanoTime() - quietSince < TimeUnit.MILLISECONDS.toNanos(TckFixture.QUIET_MILLIS)) {
            if (evd.dequeue(e) == DatReturn.DAT_SUCCESS) {
                quietSince = System.nanoTime();
            } else {
                Thread.yield();
            }
        }
    }
}
