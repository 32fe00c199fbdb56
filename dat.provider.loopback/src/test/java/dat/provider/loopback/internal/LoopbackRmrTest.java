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

    @Test
    void remoteAccessErrorsBreakTheConnectionAndTouchNothing() {
        DatLmr local = a.lmr(16);
        Loop.fill(local, 1);
        DatLmr noRemote = b.lmr(16, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_READ);
        a.connect(client, b, server);
        assertEquals(DatReturn.DAT_SUCCESS, client.postRdmaWrite(1, a.iov(1).set(0, local, 0, 8), 1,
                noRemote.rmrContext(), noRemote.address(), 8, 0), "remote checks complete the DTO, not the post");
        assertEquals(DatDtoStatus.REMOTE_ACCESS_ERR, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus());
        assertEquals(0, at(noRemote, 0), "nothing written without REMOTE_WRITE");
        expect(a.connectEvd, DatEventType.CONNECTION_EVENT_BROKEN);
        expect(b.connectEvd, DatEventType.CONNECTION_EVENT_BROKEN);
        assertEquals(DatEpState.DISCONNECTED, server.state());

        for (int i = 0; i < 2; i++) {
            client.reset();
            server.reset();
            a.connect(client, b, server);
            DatLmr open = b.lmr(16);
            int context = i == 0 ? 0x7777 : open.rmrContext();
            long target = i == 0 ? open.address() : open.address() + 12;
            client.postRdmaWrite(1, a.iov(1).set(0, local, 0, 8), 1, context, target, 8, 0);
            assertEquals(DatDtoStatus.REMOTE_ACCESS_ERR, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus(),
                    i == 0 ? "unknown rmr_context" : "outside the region");
            assertEquals(0, at(open, 12));
            Loop.drainAll(a.connectEvd);
            Loop.drainAll(b.connectEvd);
        }
    }

    @Test
    void remotePzMustMatchThePeerEp() {
        var pz2 = b.ia.createPz();
        DatLmr otherPz = b.ia.createLmr(pz2, b.arena.allocate(16), DatMemPriv.ALL);
        a.connect(client, b, server);
        DatLmr local = a.lmr(8);
        client.postRdmaRead(1, a.iov(1).set(0, local, 0, 8), 1, otherPz.rmrContext(), otherPz.address(), 8, 0);
        assertEquals(DatDtoStatus.REMOTE_ACCESS_ERR, expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus());
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
        assertEquals(DatReturn.DAT_PROTECTION_VIOLATION, otherRmr.bind(region, 0, 8, DatMemPriv.REMOTE_READ, server, 0, 0));
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
}
