// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static dat.tck.rules.TckFixture.assertFilled;
import static dat.tck.rules.TckFixture.assertSameBytes;
import static dat.tck.rules.TckFixture.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatRmr;
import dat.api.DatRmrParam;
import dat.api.Iov;
import dat.tck.DatRule;
import dat.tck.TckEnvironment;
import dat.tck.rules.TckFixture.Connection;
import dat.tck.rules.TckFixture.Region;
import java.lang.foreign.MemorySegment;
import java.util.function.ToIntFunction;
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
     * Asserts that an RDMA the remote side must refuse was refused, at once or by an unsuccessful completion (a
     * transport may only find out at the target), and that the connection's request EVD shows nothing else.
     */
    private void assertRefused(int rc, Connection c, String what) {
        if (rc == DatReturn.DAT_SUCCESS) {
            assertNotEquals(DatDtoStatus.SUCCESS, f.next(c.active().requestEvd()).dtoStatus(), what);
        }
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
     * dat_rmr_bind: the peer can write the bound window through the RMR's context and nothing outside it, to the
     * byte at both ends; the completion arrives on the request EVD of the EP the bind was posted on.
     * If this fails, check the window bounds (start and end, to the byte) and the bind completion.
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
        memory.memory().asSlice(1024, 256).fill((byte) 0x11);
        // Each refused RDMA may break its connection: every attempt gets a connection and a bind of its own.
        long[][] outside = {{1024 + 256, 8}, {1024, 257}, {1024 - 1, 8}};
        for (long[] range : outside) {
            Connection attempt = f.connect();
            bind(rmr, memory, 1024, 256, DatMemPriv.REMOTE_WRITE, attempt);
            int rc = attempt.active().ep().postRdmaWrite(1, f.iov(1).set(0, src.lmr(), 0, range[1]), 2,
                    rmr.rmrContext(), memory.address() + range[0], range[1], 0);
            String what = "a write of " + range[1] + " bytes at offset " + (range[0] - 1024) + " of a 256-byte window";
            assertRefused(rc, attempt, what + " must not succeed");
            assertFilled(memory.memory(), (byte) 0x11, "the LMR after " + what);
        }
    }

    /**
     * dat_rmr_bind: each bind gives a new rmr_context and unbinding (length 0) revokes access at once, over the
     * very connection the window was bound on: neither the context the unbind hands out nor the revoked one
     * reaches the memory.
     * If this fails, an old context still reaches memory after an unbind or rebind, or an unbound RMR still exposes
     * its last window under its new context.
     */
    @Test
    @DatRule(call = "dat_rmr_bind", section = "DESCRIPTION", rule = "unbind revokes; rebind gives a new context")
    void optional_rmr_bind_unbindRevokesAndRebindGivesNewContext() {
        DatRmr rmr = rmr();
        Region memory = f.region(4096, DatMemPriv.ALL);
        Region src = f.region();
        pattern(src.memory(), 5);
        int first = 0;
        // Each refused write may break its connection: the new context and the revoked one get one each.
        for (boolean throughRevoked : new boolean[] {false, true}) {
            Connection c = f.connect();
            bind(rmr, memory, 0, 512, DatMemPriv.REMOTE_WRITE, c);
            int bound = rmr.rmrContext();
            first = first == 0 ? bound : first;
            assertStatus(DatReturn.DAT_SUCCESS, rmr.unbind(c.passive().ep(), 78, 0), "unbind");
            assertSame(DatEventType.RMR_BIND_COMPLETION, f.next(c.passive().requestEvd()).type());
            int context = throughRevoked ? bound : rmr.rmrContext();
            String what = throughRevoked ? "a write through the revoked context" : "a write through the context an"
                    + " unbind handed out";
            int rc = c.active().ep().postRdmaWrite(1, f.iov(1).set(0, src.lmr(), 0, 64), 3, context,
                    memory.address(), 64, 0);
            assertRefused(rc, c, what + " must not succeed");
            assertFilled(memory.memory(), (byte) 0, "memory after " + what);
        }
        Connection again = f.connect();
        bind(rmr, memory, 0, 512, DatMemPriv.REMOTE_WRITE, again);
        assertNotEquals(first, rmr.rmrContext(), "a rebind gives a new rmr_context");
    }

    /**
     * dat_rmr_bind: a window outside the LMR, by one byte, is DAT_INVALID_PARAMETER (one ending exactly at the LMR's
     * end is valid); remote write asked of an LMR without REMOTE_WRITE is DAT_PRIVILEGES_VIOLATION, for a fresh RMR
     * and for a rebind of a bound one.
     * If this fails, check the bind's bounds and privilege checks, on every bind.
     */
    @Test
    @DatRule(call = "dat_rmr_bind", section = "RETURN VALUES", rule = "bad window or missing privilege is refused",
            returns = {DatReturn.INVALID_PARAMETER, DatReturn.PRIVILEGES_VIOLATION})
    void optional_rmr_bind_refusesBadWindowOrPrivilege() {
        DatRmr rmr = rmr();
        Connection c = f.connect();
        Region memory = f.region(4096, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_READ);
        assertStatus(DatReturn.DAT_INVALID_PARAMETER,
                rmr.bind(memory.lmr(), 4000, 200, DatMemPriv.REMOTE_READ, c.passive().ep(), 1, 0),
                        "window past the LMR");
        assertStatus(DatReturn.DAT_INVALID_PARAMETER,
                rmr.bind(memory.lmr(), 3897, 200, DatMemPriv.REMOTE_READ, c.passive().ep(), 1, 0),
                "window one byte past the LMR");
        assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION,
                rmr.bind(memory.lmr(), 0, 64, DatMemPriv.REMOTE_WRITE, c.passive().ep(), 1, 0),
                "REMOTE_WRITE on an LMR without it");
        bind(rmr, memory, 3896, 200, DatMemPriv.REMOTE_READ, c);
        assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION,
                rmr.bind(memory.lmr(), 0, 64, DatMemPriv.REMOTE_WRITE, c.passive().ep(), 1, 0),
                "a rebind asking REMOTE_WRITE of an LMR without it");
    }

    /**
     * dat_rmr_bind: the window grants the privileges it was bound with and no others: a window bound for remote
     * read refuses a write, one bound for remote write refuses a read (at once or by an unsuccessful completion),
     * and nothing moves.
     * If this fails, check that an RDMA through an RMR is judged by the window's privileges, not the LMR's.
     */
    @Test
    @DatRule(call = "dat_rmr_bind", section = "DESCRIPTION", rule = "the window's privileges are enforced")
    void optional_rmr_bind_windowPrivilegesAreEnforced() {
        DatRmr rmr = rmr();
        Region memory = f.region(4096, DatMemPriv.ALL);
        memory.memory().fill((byte) 0x22);
        Region src = f.region();
        pattern(src.memory(), 7);
        Connection c = f.connect();
        bind(rmr, memory, 0, 512, DatMemPriv.REMOTE_READ, c);
        int rc = c.active().ep().postRdmaWrite(1, f.iov(1).set(0, src.lmr(), 0, 64), 1, rmr.rmrContext(),
                memory.address(), 64, 0);
        assertRefused(rc, c, "a write through a window bound for remote read only must not succeed");
        assertFilled(memory.memory(), (byte) 0x22, "memory after a write through a read-only window");
        Connection d = f.connect();
        bind(rmr, memory, 0, 512, DatMemPriv.REMOTE_WRITE, d);
        Region local = f.region();
        rc = d.active().ep().postRdmaRead(1, f.iov(1).set(0, local.lmr(), 0, 64), 2, rmr.rmrContext(),
                memory.address(), 64, 0);
        assertRefused(rc, d, "a read through a window bound for remote write only must not succeed");
        assertFilled(local.memory(), (byte) 0, "local buffer after a read through a write-only window");
    }

    /**
     * dat_rmr_bind: the peer reads through a window bound for remote read exactly the window's bytes, and a read one
     * byte longer than the window is refused (at once or by an unsuccessful completion) and brings back nothing.
     * If this fails, check RDMA read through an RMR: its bounds and the bytes it returns.
     */
    @Test
    @DatRule(call = "dat_rmr_bind", section = "DESCRIPTION", rule = "the peer reads the window, nothing beyond it")
    void optional_rmr_bind_peerReadsExactlyTheWindow() {
        DatRmr rmr = rmr();
        Region memory = f.region(4096, DatMemPriv.ALL);
        pattern(memory.memory(), 11);
        Connection c = f.connect();
        bind(rmr, memory, 2048, 300, DatMemPriv.REMOTE_READ, c);
        Region local = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postRdmaRead(1, f.iov(1).set(0, local.lmr(), 0, 300), 1,
                rmr.rmrContext(), memory.address() + 2048, 300, 0), "dat_ep_post_rdma_read through the RMR");
        assertSame(DatDtoStatus.SUCCESS, f.next(c.active().requestEvd()).dtoStatus());
        assertSameBytes(memory.memory().asSlice(2048, 300), local.memory().asSlice(0, 300), "bytes read");
        Connection attempt = f.connect();
        bind(rmr, memory, 2048, 300, DatMemPriv.REMOTE_READ, attempt);
        Region other = f.region();
        int rc = attempt.active().ep().postRdmaRead(1, f.iov(1).set(0, other.lmr(), 0, 301), 2, rmr.rmrContext(),
                memory.address() + 2048, 301, 0);
        assertRefused(rc, attempt, "a read of 301 bytes from a 300-byte window must not succeed");
        assertFilled(other.memory(), (byte) 0, "local buffer after a read past the window");
    }

    /**
     * dat_rmr_bind: a bind is a request of the EP it is posted on, executed in order with the others. Posted behind a
     * send the peer has no receive for yet (on an HCA: receiver-not-ready retries), it neither overtakes that send nor
     * stalls what follows: once the receive is posted, the send, the bind and an RDMA read through the peer's window
     * complete in that order, the read with the window's bytes.
     * If this fails, the provider or its device ran the bind out of order or lost the requests behind it (soft-RoCE
     * runs a window bind while an earlier send awaits its RNR retry; reads behind it then hang or are flushed).
     */
    @Test
    @DatRule(call = "dat_rmr_bind", section = "DESCRIPTION", rule = "a bind is one of the EP's requests, in order")
    void optional_rmr_bind_inOrderBehindASendAwaitingItsReceive() throws InterruptedException {
        DatRmr exposed = rmr();
        DatRmr own = rmr();
        Connection c = f.connect();
        Region theirs = f.region(4096, DatMemPriv.ALL);
        pattern(theirs.memory(), 23);
        bind(exposed, theirs, 1024, 512, DatMemPriv.REMOTE_READ, c);
        Region mine = f.region(4096, DatMemPriv.ALL);
        Region message = f.region();
        Region read = f.region();
        DatEp active = c.active().ep();
        assertStatus(DatReturn.DAT_SUCCESS, active.postSend(1, f.iov(1).set(0, message.lmr(), 0, 64), 1, 0),
                "dat_ep_post_send with no receive posted at the peer");
        assertStatus(DatReturn.DAT_SUCCESS, own.bind(mine.lmr(), 0, 256, DatMemPriv.REMOTE_READ, active, 2, 0),
                "dat_rmr_bind behind that send");
        assertStatus(DatReturn.DAT_SUCCESS, active.postRdmaRead(1, f.iov(1).set(0, read.lmr(), 0, 512), 3,
                exposed.rmrContext(), theirs.address() + 1024, 512, 0), "dat_ep_post_rdma_read behind both");
        // Long enough for an HCA to have been refused by the peer at least once before the receive exists.
        Thread.sleep(200);
        Region into = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, c.passive().ep().postRecv(1, f.iov(1).set(0, into.lmr(), 0, 64), 9, 0),
                "dat_ep_post_recv at the peer");
        DatEventType[] types = {DatEventType.DTO_COMPLETION, DatEventType.RMR_BIND_COMPLETION,
            DatEventType.DTO_COMPLETION};
        for (int cookie = 1; cookie <= 3; cookie++) {
            DatEvent e = f.next(c.active().requestEvd());
            assertEquals(cookie, e.userCookie(), "completions in the order of the posts");
            assertSame(types[cookie - 1], e.type(), "completion " + cookie);
            assertSame(DatDtoStatus.SUCCESS, e.dtoStatus(), "completion " + cookie);
        }
        assertSameBytes(theirs.memory().asSlice(1024, 512), read.memory().asSlice(0, 512), "bytes read");
    }

    /** The remote privileges a window can be asked for, and an LMR registered with. */
    private static final int[] REMOTE_PRIVILEGES = {DatMemPriv.REMOTE_READ, DatMemPriv.REMOTE_WRITE,
        DatMemPriv.REMOTE_READ | DatMemPriv.REMOTE_WRITE};

    private static String privileges(int p) {
        String read = (p & DatMemPriv.REMOTE_READ) != 0 ? "REMOTE_READ" : "";
        String write = (p & DatMemPriv.REMOTE_WRITE) != 0 ? "REMOTE_WRITE" : "";
        String both = read.isEmpty() || write.isEmpty() ? read + write : read + "|" + write;
        return both.isEmpty() ? "no remote privilege" : both;
    }

    /**
     * Tries an RDMA write and an RDMA read of 64 bytes at {@code address} through {@code context}, each over a
     * connection of its own made by {@code open} (a refused RDMA may break its connection): each must succeed when
     * {@code writable} / {@code readable}, else be refused or fail and move no byte either way.
     *
     * @param open makes a connection and returns it with the context to use over it
     */
    private void assertWindowAccess(ToIntFunction<Connection> open, Region memory,
                                    long address, boolean writable, boolean readable, String window) {
        Region src = f.region();
        pattern(src.memory(), 17);
        for (boolean write : new boolean[] {true, false}) {
            Connection c = f.connect();
            int context = open.applyAsInt(c);
            MemorySegment before = f.arena.allocate(memory.memory().byteSize());
            before.copyFrom(memory.memory());
            Region local = f.region();
            local.memory().fill((byte) 0x5A);
            Iov iov = f.iov(1).set(0, (write ? src : local).lmr(), 0, 64);
            int rc = write ? c.active().ep().postRdmaWrite(1, iov, 9, context, address, 64, 0)
                    : c.active().ep().postRdmaRead(1, iov, 9, context, address, 64, 0);
            String what = (write ? "an RDMA write" : "an RDMA read") + " through " + window;
            if (write ? writable : readable) {
                assertStatus(DatReturn.DAT_SUCCESS, rc, what);
                assertSame(DatDtoStatus.SUCCESS, f.next(c.active().requestEvd()).dtoStatus(), what);
                continue;
            }
            assertRefused(rc, c, what + " must not succeed");
            assertSameBytes(before, memory.memory(), "the memory after " + what);
            assertFilled(local.memory(), (byte) 0x5A, "the local buffer after " + what);
        }
    }

    /**
     * dat_rmr_bind RETURN VALUES: "DAT_PRIVILEGES_VIOLATION Privileges violation for local or remote memory access":
     * a window never grants what its LMR was not registered with. For every LMR (no remote privilege, REMOTE_READ,
     * REMOTE_WRITE, both) and every request (REMOTE_READ, REMOTE_WRITE, both), a bind asking a privilege the LMR lacks
     * is DAT_PRIVILEGES_VIOLATION; every bind it accepts gives exactly the privileges asked: no remote write ever
     * lands through a window over memory registered without REMOTE_WRITE, and no remote read through one without
     * REMOTE_READ.
     * If this fails, the bind compares only some bits of the request with the LMR's privileges (each asked bit must be
     * held), or the window takes the request's privileges rather than what both allow.
     */
    @Test
    @DatRule(call = "dat_rmr_bind", section = "RETURN VALUES", rule = "never wider than the LMR's remote privileges",
            returns = DatReturn.PRIVILEGES_VIOLATION)
    void optional_rmr_bind_neverWiderThanItsLmr() {
        DatRmr rmr = rmr();
        int local = DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE;
        for (int registered : new int[] {0, DatMemPriv.REMOTE_READ, DatMemPriv.REMOTE_WRITE,
            DatMemPriv.REMOTE_READ | DatMemPriv.REMOTE_WRITE}) {
            Region memory = f.region(4096, local | registered);
            memory.memory().fill((byte) 0x66);
            for (int asked : REMOTE_PRIVILEGES) {
                String window = "a window asking " + privileges(asked) + " of an LMR with " + privileges(registered);
                if ((asked & ~registered) != 0) {
                    Connection c = f.connect();
                    assertStatus(DatReturn.DAT_PRIVILEGES_VIOLATION,
                            rmr.bind(memory.lmr(), 0, 512, asked, c.passive().ep(), 5, 0), "dat_rmr_bind of " + window);
                    f.quiet(c.passive().requestEvd(), "a refused bind of " + window + " completes nothing");
                    continue;
                }
                assertWindowAccess(c -> {
                    bind(rmr, memory, 0, 512, asked, c);
                    return rmr.rmrContext();
                }, memory, memory.address() + 64, (asked & DatMemPriv.REMOTE_WRITE) != 0,
                        (asked & DatMemPriv.REMOTE_READ) != 0, window);
            }
        }
    }

    /**
     * dat_rmr_bind: "the rmr_context ... of the previous binding is invalidated" by a rebind; dat_rmr_free: "Any
     * remote RDMA operation that uses the destroyed RMR rmr_context ... fails". A context an RMR handed out before its
     * latest bind reaches nothing: not the new window over the same range, not one moved elsewhere in the LMR or to
     * another LMR, by RDMA write or read; after dat_rmr_free no context the RMR ever had does.
     * If this fails, the provider keeps the contexts a rebind replaced (or a freed RMR's) mapped to the memory.
     */
    @Test
    @DatRule(call = "dat_rmr_bind", section = "DESCRIPTION", rule = "a rebind or a free kills every older context")
    void optional_rmr_bind_olderContextsDieWithRebindAndFree() {
        rmr().close();
        Region memory = f.region(4096, DatMemPriv.ALL);
        memory.memory().fill((byte) 0x77);
        Region other = f.region(4096, DatMemPriv.ALL);
        long[] rebindAt = {0, 1024};
        for (long offset : rebindAt) {
            for (boolean toOther : new boolean[] {false, true}) {
                if (toOther && offset != 0) {
                    continue;
                }
                Region target = toOther ? other : memory;
                String window = "the context a rebind to " + (toOther ? "another LMR" : "offset " + offset
                        + " of the same LMR") + " replaced";
                assertWindowAccess(c -> {
                    DatRmr rmr = rmr();
                    bind(rmr, memory, 0, 2048, DatMemPriv.REMOTE_READ | DatMemPriv.REMOTE_WRITE, c);
                    int old = rmr.rmrContext();
                    bind(rmr, target, offset, 2048, DatMemPriv.REMOTE_READ | DatMemPriv.REMOTE_WRITE, c);
                    assertNotEquals(old, rmr.rmrContext(), "a rebind gives a new rmr_context");
                    return old;
                }, memory, memory.address() + offset + 64, false, false, window);
            }
        }
        for (boolean current : new boolean[] {true, false}) {
            assertWindowAccess(c -> {
                DatRmr rmr = rmr();
                bind(rmr, memory, 0, 2048, DatMemPriv.REMOTE_READ | DatMemPriv.REMOTE_WRITE, c);
                int first = rmr.rmrContext();
                bind(rmr, memory, 0, 2048, DatMemPriv.REMOTE_READ | DatMemPriv.REMOTE_WRITE, c);
                int latest = rmr.rmrContext();
                rmr.close();
                return current ? latest : first;
            }, memory, memory.address() + 64, false, false, (current ? "the last" : "an earlier")
                    + " context of a freed RMR");
        }
    }

    /**
     * dat_rmr_bind: "ep_handle ... the Endpoint that the RMR is bound to": a window is usable over the connection it
     * was bound on. Once that connection ends (either side disconnects, abruptly or gracefully) and the EPs are reset
     * and connected again, an RDMA write or read through the old window's context is refused or fails and moves no
     * byte.
     * If this fails, the provider keeps a window alive across the end of its connection (a new connection of the same
     * EPs reaches memory nobody bound on it).
     */
    @Test
    @DatRule(call = "dat_rmr_bind", section = "DESCRIPTION", rule = "a window dies with its connection")
    void optional_rmr_bind_windowDiesWithItsConnection() {
        rmr().close();
        Region memory = f.region(4096, DatMemPriv.ALL);
        memory.memory().fill((byte) 0x78);
        for (boolean ownerDisconnects : new boolean[] {true, false}) {
            for (DatCloseFlags how : DatCloseFlags.values()) {
                String window = "a window bound before " + (ownerDisconnects ? "its owner" : "the peer") + " ("
                        + how + ") disconnected, both EPs reset and reconnected";
                assertWindowAccess(c -> {
                    DatRmr rmr = rmr();
                    bind(rmr, memory, 0, 2048, DatMemPriv.REMOTE_READ | DatMemPriv.REMOTE_WRITE, c);
                    int context = rmr.rmrContext();
                    (ownerDisconnects ? c.passive() : c.active()).ep().disconnect(how);
                    assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, f.next(c.active().connectEvd()).type(),
                            "the active side's disconnect event");
                    assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, f.next(c.passive().connectEvd()).type(),
                            "the passive side's disconnect event");
                    c.active().ep().reset();
                    c.passive().ep().reset();
                    f.connect(c.active(), c.passive());
                    return context;
                }, memory, memory.address() + 64, false, false, window);
            }
        }
    }

    /**
     * dat_rmr_free: "Any remote RDMA operation that uses the destroyed RMR rmr_context, whose Transport-specific
     * request arrived to the local host after the dat_rmr_free() has completed, fails": freeing a bound RMR revokes
     * its window, and the freed handle is invalid.
     * If this fails, dat_rmr_free left the window reachable (it must unbind, as a bind of length 0 would).
     */
    @Test
    @DatRule(call = "dat_rmr_free", section = "DESCRIPTION", rule = "an RDMA after the free fails; bound RMRs too",
            returns = DatReturn.INVALID_HANDLE)
    void optional_rmr_free_revokesTheWindow() {
        DatRmr rmr = rmr();
        Connection c = f.connect();
        Region memory = f.region(4096, DatMemPriv.ALL);
        memory.memory().fill((byte) 0x33);
        bind(rmr, memory, 0, 512, DatMemPriv.REMOTE_READ | DatMemPriv.REMOTE_WRITE, c);
        int context = rmr.rmrContext();
        rmr.close();
        assertStatus(DatReturn.DAT_INVALID_HANDLE, rmr.unbind(c.passive().ep(), 1, 0), "unbind of a freed RMR");
        Region src = f.region();
        pattern(src.memory(), 13);
        int rc = c.active().ep().postRdmaWrite(1, f.iov(1).set(0, src.lmr(), 0, 64), 1, context, memory.address(), 64,
                0);
        assertRefused(rc, c, "a write through the context of a freed RMR must not succeed");
        assertFilled(memory.memory(), (byte) 0x33, "memory after a write through a freed RMR's context");
    }

    /**
     * dat_lmr_free: an LMR an RMR is bound to is in use, so its free is DAT_INVALID_STATE; once the unbind completed
     * it frees.
     * If this fails, the provider freed memory a window still exposes, or kept counting a window that was unbound.
     */
    @Test
    @DatRule(call = "dat_lmr_free", section = "RETURN VALUES", rule = "an LMR an RMR is bound to is in use",
            returns = DatReturn.INVALID_STATE)
    void optional_lmr_free_refusedWhileAnRmrIsBound() {
        DatRmr rmr = rmr();
        Connection c = f.connect();
        Region memory = f.region(4096, DatMemPriv.ALL);
        bind(rmr, memory, 0, 512, DatMemPriv.REMOTE_WRITE, c);
        assertThrowsDat(DatReturn.INVALID_STATE, memory.lmr()::close, "dat_lmr_free of an LMR an RMR is bound to");
        assertStatus(DatReturn.DAT_SUCCESS, rmr.unbind(c.passive().ep(), 78, 0), "unbind");
        assertSame(DatEventType.RMR_BIND_COMPLETION, f.next(c.passive().requestEvd()).type());
        memory.lmr().close();
        assertThrowsDat(DatReturn.INVALID_HANDLE, memory.lmr()::query, "dat_lmr_query after the free");
    }
}
