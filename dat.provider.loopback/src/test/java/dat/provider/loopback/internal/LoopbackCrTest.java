// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static dat.provider.loopback.internal.Loop.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.Dat;
import dat.api.DatCr;
import dat.api.DatEp;
import dat.api.DatEpState;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatRsp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** PSP, RSP and CR: listening, accept, reject, handoff, reserved EPs. */
class LoopbackCrTest {

    private final Loop a = new Loop("loopback0");
    private final Loop b = new Loop("loopback1");
    private final DatEp client = a.ep();

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    private void connect(long qual) {
        client.connect(b.ia.address(), qual, Dat.DAT_TIMEOUT_INFINITE, null, DatQos.BEST_EFFORT, 0);
    }

    @Test
    void pspQualifiersAreExclusiveAndAnyPicksAFreeOne() {
        long qual = Loop.nextQual();
        DatPsp psp = b.ia.createPsp(qual, b.crEvd, DatPspFlags.CONSUMER);
        assertEquals(DatReturn.CONN_QUAL_IN_USE, assertThrows(DatException.class,
                () -> b.ia.createPsp(qual, b.crEvd, DatPspFlags.CONSUMER)).type());
        assertEquals(DatReturn.MODEL_NOT_SUPPORTED, assertThrows(DatException.class,
                () -> b.ia.createPsp(Loop.nextQual(), b.crEvd, DatPspFlags.PROVIDER)).type());
        assertEquals(DatReturn.INVALID_HANDLE, assertThrows(DatException.class,
                () -> b.ia.createPsp(Loop.nextQual(), b.recvEvd, DatPspFlags.CONSUMER)).type());
        DatPsp any = b.ia.createPspAny(b.crEvd, DatPspFlags.CONSUMER);
        assertEquals(any.connQual(), any.query().connQual());
        assertEquals(DatReturn.INVALID_STATE, assertThrows(DatException.class, b.crEvd::close).type(),
                "the CR EVD is used by the PSPs");
        psp.close();
        b.ia.createPsp(qual, b.crEvd, DatPspFlags.CONSUMER).close();
    }

    @Test
    void handoffPassesTheRequestToAnotherPspOfTheSameIa() {
        long first = Loop.nextQual();
        long second = Loop.nextQual();
        b.ia.createPsp(first, b.crEvd, DatPspFlags.CONSUMER);
        var otherEvd = b.ia.createEvd(4, null, DatEvdFlags.CR);
        DatPsp target = b.ia.createPsp(second, otherEvd, DatPspFlags.CONSUMER);
        connect(first);
        DatCr cr = expect(b.crEvd, DatEventType.CONNECTION_REQUEST_EVENT).cr();
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class,
                () -> cr.handoff(Loop.nextQual())).type());
        cr.handoff(second);
        assertTrue(cr.isClosed());
        assertEquals(DatReturn.INVALID_HANDLE, assertThrows(DatException.class, () -> cr.accept(b.ep(), null)).type());
        DatEvent moved = expect(otherEvd, DatEventType.CONNECTION_REQUEST_EVENT);
        assertSame(target, moved.sp());
        DatEp server = b.ep();
        moved.cr().accept(server, null);
        expect(a.connectEvd, DatEventType.CONNECTION_EVENT_ESTABLISHED);
        assertEquals(DatEpState.CONNECTED, server.state());
    }

    @Test
    void rspReservesItsEpAndTakesOneRequest() {
        DatEp reserved = b.ep();
        long qual = Loop.nextQual();
        DatRsp rsp = b.ia.createRsp(qual, reserved, b.crEvd);
        assertEquals(DatEpState.RESERVED, reserved.state());
        assertEquals(DatReturn.INVALID_STATE, assertThrows(DatException.class, reserved::close).type());
        assertEquals(DatReturn.INVALID_STATE, assertThrows(DatException.class,
                () -> b.ia.createRsp(Loop.nextQual(), reserved, b.crEvd)).type());
        connect(qual);
        assertEquals(DatEpState.PASSIVE_CONNECTION_PENDING, reserved.state());
        DatEvent req = expect(b.crEvd, DatEventType.CONNECTION_REQUEST_EVENT);
        assertSame(rsp, req.sp());
        assertSame(reserved, req.cr().query().localEp());
        DatEp late = a.ep();
        late.connect(b.ia.address(), qual, Dat.DAT_TIMEOUT_INFINITE, null, DatQos.BEST_EFFORT, 0);
        expect(a.connectEvd, DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED);
        req.cr().accept(null, new byte[] {3});
        assertEquals(3, expect(a.connectEvd, DatEventType.CONNECTION_EVENT_ESTABLISHED).privateData()[0]);
        assertEquals(DatEpState.CONNECTED, reserved.state());
        rsp.close();
        assertEquals(DatEpState.CONNECTED, reserved.state());
    }

    @Test
    void closingAPendingRequestRejectsIt() {
        long qual = Loop.nextQual();
        b.ia.createPsp(qual, b.crEvd, DatPspFlags.CONSUMER);
        connect(qual);
        DatCr cr = expect(b.crEvd, DatEventType.CONNECTION_REQUEST_EVENT).cr();
        cr.close();
        expect(a.connectEvd, DatEventType.CONNECTION_EVENT_PEER_REJECTED);
        assertEquals(DatReturn.INVALID_HANDLE, assertThrows(DatException.class, cr::reject).type());
    }

    @Test
    void acceptNeedsAnUnconnectedEpOfTheSameIa() {
        long qual = Loop.nextQual();
        b.ia.createPsp(qual, b.crEvd, DatPspFlags.CONSUMER);
        connect(qual);
        DatCr cr = expect(b.crEvd, DatEventType.CONNECTION_REQUEST_EVENT).cr();
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class, () -> cr.accept(null, null)).type());
        assertEquals(DatReturn.INVALID_HANDLE, assertThrows(DatException.class, () -> cr.accept(a.ep(), null)).type());
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class,
                () -> cr.accept(b.ep(), new byte[LoopbackConfig.MAX_PRIVATE_DATA_SIZE + 1])).type());
        cr.accept(b.ep(), null);
        expect(a.connectEvd, DatEventType.CONNECTION_EVENT_ESTABLISHED);
    }
}
