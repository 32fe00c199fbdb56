// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static dat.provider.loopback.internal.Loop.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatRmr;
import dat.api.DatRmrParam;
import dat.api.Iov;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** RDMA read and write through LMR contexts and bound RMR windows, and every remote check. */
class LoopbackRmrTest {

    private final Loop a = new Loop("loopback0");
    private final Loop b = new Loop("loopback1");
    private final DatEp client = a.ep(DatEpAttr.builder().maxRdmaWriteIov(4).maxRdmaReadIov(4).maxRdmaSize(64).build());
    private final DatEp server = b.ep();

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    private static byte at(DatLmr lmr, long i) {
        return lmr.segment().get(ValueLayout.JAVA_BYTE, i);
    }

    @Test
    void rdmaWriteGathersIntoTheRemoteLmrAndReadScatters() {
        a.connect(client, b, server);
        DatLmr local = a.lmr(32);
        Loop.fill(local, 10);
        DatLmr remote = b.lmr(64, DatMemPriv.ALL);
        Iov iov = a.iov(2).set(0, local, 0, 3).set(1, local, 8, 2);
        assertEquals(DatReturn.DAT_SUCCESS, client.postRdmaWrite(2, iov, 5, remote.rmrContext(),
                remote.address() + 20, 5, 0));
        DatEvent e = expect(a.requestEvd, DatEventType.DTO_COMPLETION);
        assertEquals(DatDtoStatus.SUCCESS, e.dtoStatus());
        assertEquals(5, e.transferredLength());
        assertEquals(5, e.userCookie());
        assertEquals(10, at(remote, 20));
        assertEquals(12, at(remote, 22));
        assertEquals(18, at(remote, 23));
        assertEquals(19, at(remote, 24));
        assertEquals(0, at(remote, 25));

        DatLmr into = a.lmr(16);
        Iov read = a.iov(2).set(0, into, 0, 2).set(1, into, 10, 6);
        assertEquals(DatReturn.DAT_SUCCESS, client.postRdmaRead(2, read, 6, remote.rmrContext(), remote.address() + 20,
                4, 0));
        assertEquals(4, expect(a.requestEvd, DatEventType.DTO_COMPLETION).transferredLength());
        assertEquals(10, at(into, 0));
        assertEquals(11, at(into, 1));
        assertEquals(12, at(into, 10));
        assertEquals(18, at(into, 11));
        assertEquals(0, at(into, 12));
    }

    @Test
    void localChecksOfTheRdmaWritePage() {
        DatLmr local = a.lmr(128);
        DatLmr remote = b.lmr(128);
        Iov iov = a.iov(8).set(0, local, 0, 8);
        assertEquals(DatReturn.DAT_INVALID_STATE, client.postRdmaWrite(1, iov, 0, remote.rmrContext(),
                remote.address(), 8, 0));
        a.connect(client, b, server);
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, client.postRdmaWrite(5, iov, 0, remote.rmrContext(),
                remote.address(), 8, 0));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, client.postRdmaWrite(1, iov, 0, remote.rmrContext(),
                remote.address(), 8, DatCompletionFlags.SOLICITED_WAIT));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, client.postRdmaWrite(1, iov, 0, remote.rmrContext(),
                remote.address(), 8, DatCompletionFlags.UNSIGNALLED));
        DatLmr writeOnly = a.lmr(8, DatMemPriv.LOCAL_WRITE);
        assertEquals(DatReturn.DAT_PRIVILEGES_VIOLATION, client.postRdmaWrite(1, a.iov(1).set(0, writeOnly, 0, 8), 0,
                remote.rmrContext(), remote.address(), 8, 0));
        DatLmr readOnly = a.lmr(8, DatMemPriv.LOCAL_READ);
        assertEquals(DatReturn.DAT_PRIVILEGES_VIOLATION, client.postRdmaRead(1, a.iov(1).set(0, readOnly, 0, 8), 0,
                remote.rmrContext(), remote.address(), 8, 0));
        assertEquals(DatReturn.DAT_LENGTH_ERROR, client.postRdmaWrite(1, iov, 0, remote.rmrContext(),
                remote.address(), 7, 0), "remote segment shorter than the local data");
        assertEquals(DatReturn.DAT_LENGTH_ERROR, client.postRdmaWrite(1, a.iov(1).set(0, local, 0, 65), 0,
                remote.rmrContext(), remote.address(), 65, 0), "over max_rdma_size");
        assertEquals(DatReturn.DAT_LENGTH_ERROR, client.postRdmaRead(1, iov, 0, remote.rmrContext(),
                remote.address(), 9, 0), "local buffer smaller than the remote one");
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, client.postRdmaWrite(1, a.iov(1).set(0, local, 120, 16), 0,
                remote.rmrContext(), remote.address(), 16, 0));
    }

    /** Asserts a synchronous refusal left nothing behind: no completion, no connection event, still CONNECTED. */
    private void assertNothingQueued(String what) {
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, a.requestEvd.dequeue(new DatEvent()), what + ": no completion");
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, a.connectEvd.dequeue(new DatEvent()), what + ": no connection event");
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, b.connectEvd.dequeue(new DatEvent()), what + ": none at the peer");
        assertEquals(DatEpState.CONNECTED, client.state(), what);
        assertEquals(DatEpState.CONNECTED, server.state(), what);
        assertTrue(client.getStatus().requestIdle(), what + ": nothing queued");
    }

    private static void assertAll(DatLmr lmr, int value, String what) {
        for (long i = 0; i < lmr.length(); i++) {
            assertEquals((byte) value, at(lmr, i), what + " at byte " + i);
        }
    }

    /** Writes 8 bytes into {@code target} and reads them back: the connection still carries RDMA. */
    private void assertConnectionUsable(String what) {
        DatLmr src = a.lmr(8);
        Loop.fill(src, 90);
        DatLmr target = b.lmr(8);
        assertEquals(DatReturn.DAT_SUCCESS, client.postRdmaWrite(1, a.iov(1).set(0, src, 0, 8), 77,
                target.rmrContext(), target.address(), 8, 0), what);
        assertEquals(DatDtoStatus.SUCCESS, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus(), what);
        assertEquals(97, at(target, 7), what + ": written");
        assertEquals(DatEpState.CONNECTED, client.state(), what);
    }

    @Test
    void remoteAccessErrorsBreakTheConnectionAndTouchNothing() {
        DatLmr local = a.lmr(16);
        Loop.fill(local, 1);
        for (int i = 0; i < 2; i++) {
            String what = i == 0 ? "unknown rmr_context" : "outside the region";
            a.connect(client, b, server);
            DatLmr open = b.lmr(16);
            int context = i == 0 ? 0x7777 : open.rmrContext();
            long target = i == 0 ? open.address() : open.address() + 12;
            assertEquals(DatReturn.DAT_SUCCESS, client.postRdmaWrite(1, a.iov(1).set(0, local, 0, 8), 1, context,
                    target, 8, 0), what + ": not a return value of the page, the DTO completes in error");
            assertEquals(DatDtoStatus.REMOTE_ACCESS_ERR, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus(),
                    what);
            assertAll(open, 0, what + ": nothing written");
            expect(a.connectEvd, DatEventType.CONNECTION_EVENT_BROKEN);
            expect(b.connectEvd, DatEventType.CONNECTION_EVENT_BROKEN);
            assertEquals(DatEpState.DISCONNECTED, client.state(), what);
            assertEquals(DatEpState.DISCONNECTED, server.state(), what);
            client.reset();
            server.reset();
        }
    }

    @Test
    void remotePzMismatchIsReturnedByTheWriteAndReadPost() {
        var pz2 = b.ia.createPz();
        DatLmr otherPz = b.ia.createLmr(pz2, b.arena.allocate(16, 64), DatMemPriv.ALL);
        Loop.fill(otherPz, 50);
        a.connect(client, b, server);
        DatLmr local = a.lmr(16);
        assertEquals(DatReturn.DAT_PROTECTION_VIOLATION, client.postRdmaWrite(1, a.iov(1).set(0, local, 0, 8), 1,
                otherPz.rmrContext(), otherPz.address(), 8, 0), "write to an LMR of another PZ than the remote EP");
        assertNothingQueued("write, other PZ");
        assertEquals(DatReturn.DAT_PROTECTION_VIOLATION, client.postRdmaRead(1, a.iov(1).set(0, local, 0, 8), 2,
                otherPz.rmrContext(), otherPz.address(), 8, 0), "read from an LMR of another PZ than the remote EP");
        assertNothingQueued("read, other PZ");
        assertEquals(50, at(otherPz, 0), "target untouched");
        assertEquals(57, at(otherPz, 7), "target untouched");
        assertAll(local, 0, "read buffer untouched");

        // A window of another PZ, bound (on an EP of that PZ) with every remote privilege.
        DatEp pz2Server = b.ia.createEp(pz2, b.recvEvd, b.requestEvd, b.connectEvd, null);
        DatEp pz2Client = a.ep();
        a.connect(pz2Client, b, pz2Server);
        DatRmr window = pz2.createRmr();
        assertEquals(DatReturn.DAT_SUCCESS, window.bind(otherPz, 0, 16, DatMemPriv.REMOTE_READ
                | DatMemPriv.REMOTE_WRITE, pz2Server, 3, 0));
        assertEquals(DatDtoStatus.SUCCESS, expect(b.requestEvd, DatEventType.RMR_BIND_COMPLETION).dtoStatus());
        assertEquals(DatReturn.DAT_PROTECTION_VIOLATION, client.postRdmaWrite(1, a.iov(1).set(0, local, 0, 8), 3,
                window.rmrContext(), otherPz.address(), 8, 0), "write to a bound RMR of another PZ");
        assertEquals(DatReturn.DAT_PROTECTION_VIOLATION, client.postRdmaRead(1, a.iov(1).set(0, local, 0, 8), 4,
                window.rmrContext(), otherPz.address(), 8, 0), "read from a bound RMR of another PZ");
        assertNothingQueued("bound RMR, other PZ");
        assertEquals(50, at(otherPz, 0), "window untouched");
        assertConnectionUsable("after PZ violations");
    }

    @Test
    void missingRemotePrivilegeIsReturnedByTheWriteAndReadPost() {
        int local = DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE;
        DatLmr readable = b.lmr(16, local | DatMemPriv.REMOTE_READ);
        DatLmr writable = b.lmr(16, local | DatMemPriv.REMOTE_WRITE);
        Loop.fill(readable, 20);
        Loop.fill(writable, 60);
        a.connect(client, b, server);
        DatLmr src = a.lmr(16);
        Loop.fill(src, 100);
        DatLmr dst = a.lmr(16);
        assertEquals(DatReturn.DAT_PRIVILEGES_VIOLATION, client.postRdmaWrite(1, a.iov(1).set(0, src, 0, 8), 1,
                readable.rmrContext(), readable.address(), 8, 0), "write without REMOTE_WRITE");
        assertNothingQueued("write without REMOTE_WRITE");
        assertEquals(DatReturn.DAT_PRIVILEGES_VIOLATION, client.postRdmaRead(1, a.iov(1).set(0, dst, 0, 8), 2,
                writable.rmrContext(), writable.address(), 8, 0), "read without REMOTE_READ");
        assertNothingQueued("read without REMOTE_READ");
        assertEquals(20, at(readable, 0), "target untouched");
        assertEquals(27, at(readable, 7), "target untouched");
        assertAll(dst, 0, "read buffer untouched");

        // A window bound on the server EP of this very connection, read only.
        DatRmr window = b.pz.createRmr();
        assertEquals(DatReturn.DAT_SUCCESS, window.bind(readable, 0, 16, DatMemPriv.REMOTE_READ, server, 5, 0));
        assertEquals(DatDtoStatus.SUCCESS, expect(b.requestEvd, DatEventType.RMR_BIND_COMPLETION).dtoStatus());
        assertEquals(DatReturn.DAT_PRIVILEGES_VIOLATION, client.postRdmaWrite(1, a.iov(1).set(0, src, 0, 8), 3,
                window.rmrContext(), readable.address(), 8, 0), "write through a read-only window");
        assertNothingQueued("write through a read-only window");
        assertEquals(20, at(readable, 0), "window untouched");

        // The same connection still moves data with the right privileges.
        assertEquals(DatReturn.DAT_SUCCESS, client.postRdmaRead(1, a.iov(1).set(0, dst, 0, 8), 4,
                window.rmrContext(), readable.address() + 8, 8, 0));
        assertEquals(DatDtoStatus.SUCCESS, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus());
        assertEquals(28, at(dst, 0));
        assertEquals(DatReturn.DAT_SUCCESS, client.postRdmaWrite(1, a.iov(1).set(0, src, 0, 8), 5,
                writable.rmrContext(), writable.address(), 8, 0));
        assertEquals(DatDtoStatus.SUCCESS, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus());
        assertEquals(100, at(writable, 0));
        assertEquals(DatEpState.CONNECTED, client.state());
        window.close();
    }

    @Test
    void remoteChecksComeAfterTheLocalOnesProtectionBeforePrivileges() {
        var pz2 = b.ia.createPz();
        DatLmr otherPzNoWrite = b.ia.createLmr(pz2, b.arena.allocate(16, 64),
                DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_READ);
        DatLmr noRemote = b.lmr(16, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
        a.connect(client, b, server);
        DatLmr src = a.lmr(16);
        assertEquals(DatReturn.DAT_PROTECTION_VIOLATION, client.postRdmaWrite(1, a.iov(1).set(0, src, 0, 8), 1,
                otherPzNoWrite.rmrContext(), otherPzNoWrite.address(), 8, 0), "PZ is checked before privileges");
        assertEquals(DatReturn.DAT_LENGTH_ERROR, client.postRdmaWrite(1, a.iov(1).set(0, src, 0, 8), 1,
                otherPzNoWrite.rmrContext(), otherPzNoWrite.address(), 7, 0), "local length check first");
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, client.postRdmaWrite(1, a.iov(1).set(0, src, 0, 8), 1,
                noRemote.rmrContext(), noRemote.address(), 8, DatCompletionFlags.SOLICITED_WAIT),
                "parameters first");
        DatLmr writeOnly = a.lmr(8, DatMemPriv.LOCAL_WRITE);
        assertEquals(DatReturn.DAT_PRIVILEGES_VIOLATION, client.postRdmaWrite(1, a.iov(1).set(0, writeOnly, 0, 8), 1,
                otherPzNoWrite.rmrContext(), otherPzNoWrite.address(), 8, 0),
                "local LMR privileges before the remote PZ");
        var pzA = a.ia.createPz();
        DatLmr foreign = a.ia.createLmr(pzA, a.arena.allocate(8, 64), DatMemPriv.ALL);
        assertEquals(DatReturn.DAT_PROTECTION_VIOLATION, client.postRdmaRead(1, a.iov(1).set(0, foreign, 0, 8), 1,
                noRemote.rmrContext(), noRemote.address(), 8, 0), "local LMR PZ before the remote privileges");
        assertEquals(DatReturn.DAT_PRIVILEGES_VIOLATION, client.postRdmaRead(1, a.iov(1).set(0, src, 0, 8), 1,
                noRemote.rmrContext(), noRemote.address(), 8, 0), "then the remote privileges");
        assertNothingQueued("refused posts");
    }

    @Test
    void aDisconnectedEpFlushesWhatTheRemoteChecksWouldRefuse() {
        var pz2 = b.ia.createPz();
        DatLmr otherPz = b.ia.createLmr(pz2, b.arena.allocate(16, 64), DatMemPriv.ALL);
        a.connect(client, b, server);
        client.disconnect(DatCloseFlags.ABRUPT);
        Loop.drainAll(a.connectEvd);
        Loop.drainAll(b.connectEvd);
        assertEquals(DatEpState.DISCONNECTED, client.state());
        DatLmr src = a.lmr(16);
        assertEquals(DatReturn.DAT_SUCCESS, client.postRdmaWrite(1, a.iov(1).set(0, src, 0, 8), 9,
                otherPz.rmrContext(), otherPz.address(), 8, 0), "DISCONNECTED: a valid post succeeds");
        DatEvent e = expect(a.requestEvd, DatEventType.DTO_COMPLETION);
        assertEquals(DatDtoStatus.FLUSHED, e.dtoStatus());
        assertEquals(9, e.userCookie());
    }

    @Test
    void aContextFreedBetweenPostAndExecutionStillEndsInRemoteAccessError() {
        a.connect(client, b, server);
        DatLmr msg = a.lmr(8);
        DatLmr src = a.lmr(8);
        Loop.fill(src, 30);
        DatLmr target = b.lmr(8);
        // The send waits for a receive on the server; the write queues behind it.
        assertEquals(DatReturn.DAT_SUCCESS, client.postSend(1, a.iov(1).set(0, msg, 0, 8), 1, 0));
        assertEquals(DatReturn.DAT_SUCCESS, client.postRdmaWrite(1, a.iov(1).set(0, src, 0, 8), 2,
                target.rmrContext(), target.address(), 8, 0), "valid at post time");
        var memory = target.segment();
        target.close();
        DatLmr recv = b.lmr(8);
        assertEquals(DatReturn.DAT_SUCCESS, server.postRecv(1, b.iov(1).set(0, recv, 0, 8), 3, 0));
        assertEquals(DatDtoStatus.SUCCESS, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus(), "send");
        DatEvent e = expect(a.requestEvd, DatEventType.DTO_COMPLETION);
        assertEquals(2, e.userCookie());
        assertEquals(DatDtoStatus.REMOTE_ACCESS_ERR, e.dtoStatus(), "the execution-time check is the final guard");
        assertEquals(0, memory.get(ValueLayout.JAVA_BYTE, 0), "nothing written into the freed region");
        expect(a.connectEvd, DatEventType.CONNECTION_EVENT_BROKEN);
    }

    @Test
    void bindGivesANewContextEachTimeAndLimitsTheWindow() {
        a.connect(client, b, server);
        DatRmr rmr = b.pz.createRmr();
        DatLmr region = b.lmr(64, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_WRITE);
        int before = rmr.rmrContext();
        assertEquals(DatReturn.DAT_SUCCESS, rmr.bind(region, 16, 16, DatMemPriv.REMOTE_WRITE, server, 33, 0));
        DatEvent bound = expect(b.requestEvd, DatEventType.RMR_BIND_COMPLETION);
        assertSame(rmr, bound.rmr());
        assertEquals(33, bound.userCookie());
        assertEquals(DatDtoStatus.SUCCESS, bound.dtoStatus());
        int first = rmr.rmrContext();
        assertNotEquals(before, first);
        DatRmrParam p = rmr.query();
        assertEquals(region.address() + 16, p.virtualAddress());
        assertEquals(16, p.segmentLength());

        DatLmr local = a.lmr(16);
        Loop.fill(local, 40);
        assertEquals(DatReturn.DAT_SUCCESS, client.postRdmaWrite(1, a.iov(1).set(0, local, 0, 16), 1, first,
                region.address() + 16, 16, 0));
        assertEquals(DatDtoStatus.SUCCESS, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus());
        assertEquals(40, at(region, 16));
        assertEquals(55, at(region, 31));
        assertEquals(0, at(region, 32));

        DatException inUse = assertThrows(DatException.class, region::close);
        assertEquals(DatReturn.INVALID_STATE, inUse.type());

        assertEquals(DatReturn.DAT_SUCCESS, rmr.unbind(server, 34, 0));
        assertEquals(DatDtoStatus.SUCCESS, expect(b.requestEvd, DatEventType.RMR_BIND_COMPLETION).dtoStatus());
        assertNotEquals(first, rmr.rmrContext());
        client.postRdmaWrite(1, a.iov(1).set(0, local, 0, 16), 2, first, region.address() + 16, 16, 0);
        assertEquals(DatDtoStatus.REMOTE_ACCESS_ERR, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus(),
                "the old context stops working at once");
        region.close();
    }

    @Test
    void bindChecks() {
        DatRmr rmr = b.pz.createRmr();
        DatLmr region = b.lmr(64, DatMemPriv.LOCAL_READ | DatMemPriv.REMOTE_READ);
        assertEquals(DatReturn.DAT_INVALID_STATE, rmr.bind(region, 0, 8, DatMemPriv.REMOTE_READ, server, 0, 0));
        a.connect(client, b, server);
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, rmr.bind(region, 60, 8, DatMemPriv.REMOTE_READ, server, 0, 0));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, rmr.bind(region, 0, 8, DatMemPriv.LOCAL_READ, server, 0, 0));
        assertEquals(DatReturn.DAT_PRIVILEGES_VIOLATION, rmr.bind(region, 0, 8, DatMemPriv.REMOTE_WRITE, server, 0, 0));
        var pz2 = b.ia.createPz();
        DatRmr otherRmr = pz2.createRmr();
        assertEquals(DatReturn.DAT_PROTECTION_VIOLATION, otherRmr.bind(region, 0, 8, DatMemPriv.REMOTE_READ, server, 0,
                0));
        assertEquals(DatReturn.DAT_INVALID_HANDLE, rmr.bind(region, 0, 8, DatMemPriv.REMOTE_READ, client, 0, 0),
                "an EP of another IA");
        otherRmr.close();
        pz2.close();
        rmr.close();
        assertEquals(DatReturn.DAT_INVALID_HANDLE, rmr.bind(region, 0, 8, DatMemPriv.REMOTE_READ, server, 0, 0));
        assertEquals(DatReturn.INVALID_HANDLE, assertThrows(DatException.class, rmr::query).type());
    }

    @Test
    void aWindowIsUsableOnlyOverTheConnectionItWasBoundOn() {
        a.connect(client, b, server);
        DatRmr rmr = b.pz.createRmr();
        DatLmr region = b.lmr(32);
        rmr.bind(region, 0, 32, DatMemPriv.REMOTE_READ, server, 0, DatCompletionFlags.SUPPRESS);
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, b.requestEvd.dequeue(new DatEvent()), "suppressed");
        DatEp other = a.ep();
        DatEp otherServer = b.ep();
        a.connect(other, b, otherServer);
        DatLmr local = a.lmr(8);
        other.postRdmaRead(1, a.iov(1).set(0, local, 0, 8), 1, rmr.rmrContext(), region.address(), 8, 0);
        assertEquals(DatDtoStatus.REMOTE_ACCESS_ERR, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus());
        client.postRdmaRead(1, a.iov(1).set(0, local, 0, 8), 2, rmr.rmrContext(), region.address(), 8, 0);
        assertEquals(DatDtoStatus.SUCCESS, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus());
        client.disconnect(DatCloseFlags.ABRUPT);
        client.reset();
        server.reset();
        Loop.drainAll(a.connectEvd);
        Loop.drainAll(b.connectEvd);
        a.connect(client, b, server);
        client.postRdmaRead(1, a.iov(1).set(0, local, 0, 8), 3, rmr.rmrContext(), region.address(), 8, 0);
        assertTrue(expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus() == DatDtoStatus.REMOTE_ACCESS_ERR,
                "a new connection of the same EP does not inherit the window");
    }

    /**
     * A post resolves the peer's context through the peer fields its EP copied at connect: after a reconnect to an EP
     * of another IA, they are the new peer's. A context of the old peer's IA names nothing there, one of the new
     * peer's IA lands, and the old peer's PZ is not the one judged.
     */
    @Test
    void aWriteAfterAReconnectResolvesAgainstTheNewPeer() {
        a.connect(client, b, server);
        DatLmr src = a.lmr(8);
        Loop.fill(src, 40);
        Iov iov = a.iov(1).set(0, src, 0, 8);
        DatLmr oldTarget = b.lmr(8);
        assertEquals(DatReturn.DAT_SUCCESS, client.postRdmaWrite(1, iov, 1, oldTarget.rmrContext(),
                oldTarget.address(), 8, 0));
        assertEquals(DatDtoStatus.SUCCESS, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus());
        client.disconnect(DatCloseFlags.ABRUPT);
        client.reset();
        Loop.drainAll(a.connectEvd);
        Loop.drainAll(b.connectEvd);
        try (Loop c = new Loop("loopback2")) {
            DatEp third = c.ep();
            a.connect(client, c, third);
            DatLmr newTarget = c.lmr(8);
            DatLmr otherPz = c.ia.createLmr(c.ia.createPz(), c.arena.allocate(8, 64), DatMemPriv.ALL);
            assertEquals(DatReturn.DAT_PROTECTION_VIOLATION, client.postRdmaWrite(1, iov, 2, otherPz.rmrContext(),
                    otherPz.address(), 8, 0), "judged by the new peer's PZ");
            assertEquals(DatReturn.DAT_SUCCESS, client.postRdmaWrite(1, iov, 3, newTarget.rmrContext(),
                    newTarget.address(), 8, 0));
            assertEquals(DatDtoStatus.SUCCESS, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus());
            assertEquals(47, at(newTarget, 7), "landed in the new peer's region");
            Loop.fill(src, 60);
            assertEquals(DatReturn.DAT_SUCCESS, client.postRdmaWrite(1, iov, 4, oldTarget.rmrContext(),
                    oldTarget.address(), 8, 0), "the old peer's context is unknown here, a DTO error");
            DatEvent e = expect(a.requestEvd, DatEventType.DTO_COMPLETION);
            assertEquals(4, e.userCookie());
            assertEquals(DatDtoStatus.REMOTE_ACCESS_ERR, e.dtoStatus());
            assertEquals(47, at(oldTarget, 7), "nothing written into the old peer's region");
        }
    }

    /** Writes queued behind a waiting send resolve when they run, each into the region its own post named. */
    @Test
    void writesQueuedBehindASendLandWhereTheirPostsNamed() {
        a.connect(client, b, server);
        DatLmr msg = a.lmr(8);
        DatLmr src = a.lmr(16);
        Loop.fill(src, 100);
        DatLmr first = b.lmr(8);
        DatLmr second = b.lmr(16);
        assertEquals(DatReturn.DAT_SUCCESS, client.postSend(1, a.iov(1).set(0, msg, 0, 8), 1, 0));
        assertEquals(DatReturn.DAT_SUCCESS, client.postRdmaWrite(1, a.iov(1).set(0, src, 0, 8), 2,
                first.rmrContext(), first.address(), 8, 0));
        assertEquals(DatReturn.DAT_SUCCESS, client.postRdmaWrite(1, a.iov(1).set(0, src, 8, 8), 3,
                second.rmrContext(), second.address() + 8, 8, 0));
        assertEquals(0, at(first, 0), "waiting behind the send");
        assertEquals(DatReturn.DAT_SUCCESS, server.postRecv(1, b.iov(1).set(0, b.lmr(8), 0, 8), 4, 0));
        for (int cookie = 1; cookie <= 3; cookie++) {
            DatEvent e = expect(a.requestEvd, DatEventType.DTO_COMPLETION);
            assertEquals(cookie, e.userCookie());
            assertEquals(DatDtoStatus.SUCCESS, e.dtoStatus());
        }
        assertEquals(100, at(first, 0));
        assertEquals(107, at(first, 7));
        assertEquals(0, at(second, 7), "the second write's offset, not the first's");
        assertEquals(108, at(second, 8));
        assertEquals(115, at(second, 15));
        assertEquals(DatEpState.CONNECTED, client.state());
    }
}
