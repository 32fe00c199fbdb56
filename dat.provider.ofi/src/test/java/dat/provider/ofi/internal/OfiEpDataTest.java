// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIa;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.api.Iov;
import dat.provider.ofi.internal.ffm.LibFabric;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Completions of one EP's queues: posting order holds when the provider fails a later operation first. */
class OfiEpDataTest {

    private static final long CONN_QUAL = 7480;
    private static final long TIMEOUT = 10_000_000;

    /**
     * The campaign saw tcp fail a send while an RDMA read posted before it had no completion yet, and jDAT queued
     * the send's error first. Two sends the peer has no receive for stay open; the provider's error for the second
     * is fed to the EP as the CQ would: the first must complete (flushed) before it, then the connection breaks.
     */
    @Test
    void anErrorOfALaterRequestComesAfterTheEarlierOnesFlushed() {
        DatIa ia = new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            OfiPzTest.Pair p = OfiPzTest.connect(ia, pz, CONN_QUAL);
            DatLmr lmr = ia.createLmr(pz, arena.allocate(4096, 64), DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
            Iov iov = Iov.allocate(arena, 1).set(0, lmr, 0, 64);
            OfiIa ofi = (OfiIa) ia;
            OfiEp ep = (OfiEp) p.active();
            ofi.lock.lock();
            try {
                // Without receiver credits (OfiCredit), which would hold both sends in the provider: the sends go
                // into the connection and stay open there, as the campaign saw them.
                ep.data.credit.gate = false;
            } finally {
                ofi.lock.unlock();
            }
            assertEquals(DatReturn.DAT_SUCCESS, p.active().postSend(1, iov, 100, 0));
            assertEquals(DatReturn.DAT_SUCCESS, p.active().postSend(1, iov, 101, 0));
            ofi.lock.lock();
            try {
                // A fresh EP's free-slot stack hands out slot 0, then slot 1: the second send is slot 1.
                ep.data.completed(ep.data.context(false, 1), 5, 0, 0, 0, 0);
            } finally {
                ofi.lock.unlock();
            }
            DatEvent e = new DatEvent();
            assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e));
            assertEquals(100, e.userCookie(), "the first completion's cookie");
            assertSame(DatDtoStatus.FLUSHED, e.dtoStatus());
            assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e));
            assertEquals(101, e.userCookie(), "the second completion's cookie");
            assertSame(DatDtoStatus.TRANSPORT_ERR, e.dtoStatus());
            assertEquals(DatReturn.DAT_SUCCESS, p.activeConn().await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_BROKEN, e.type());
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * The campaign (seed 0xda7246f92d05372b) saw tcp fail an RDMA write with a socket error when the peer's abrupt
     * disconnect closed the socket under it, and jDAT report TRANSPORT_ERR and BROKEN: the peer going away flushes
     * what was in flight and the connection is DISCONNECTED, as on an RC queue pair.
     */
    @Test
    void aConnectionResetUnderARequestIsAFlushAndADisconnect() {
        DatIa ia = new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            OfiPzTest.Pair p = OfiPzTest.connect(ia, pz, CONN_QUAL + 1);
            DatLmr lmr = ia.createLmr(pz, arena.allocate(4096, 64), DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
            Iov iov = Iov.allocate(arena, 1).set(0, lmr, 0, 64);
            OfiIa ofi = (OfiIa) ia;
            OfiEp ep = (OfiEp) p.active();
            ofi.lock.lock();
            try {
                ep.data.credit.gate = false;
            } finally {
                ofi.lock.unlock();
            }
            assertEquals(DatReturn.DAT_SUCCESS, p.active().postSend(1, iov, 200, 0));
            assertEquals(DatReturn.DAT_SUCCESS, p.active().postSend(1, iov, 201, 0));
            ofi.lock.lock();
            try {
                ep.data.completed(ep.data.context(false, 1), LibFabric.FI_ECONNRESET, 0, 0, 0, 0);
            } finally {
                ofi.lock.unlock();
            }
            DatEvent e = new DatEvent();
            assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e));
            assertEquals(200, e.userCookie());
            assertSame(DatDtoStatus.FLUSHED, e.dtoStatus());
            assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e));
            assertEquals(201, e.userCookie());
            assertSame(DatDtoStatus.FLUSHED, e.dtoStatus(), "the request the reset failed");
            assertEquals(DatReturn.DAT_SUCCESS, p.activeConn().await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, e.type());
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * An RDMA write posted just before the EP is freed, or disconnected abruptly, lands before that call returns or
     * not at all: the target's memory does not change afterwards, however long its IA progresses. The campaign on tcp
     * (seed 0xda721aed1ccce573, shrunk to 11 steps) saw the write land at a peer EP of the same IA after dat_ep_free
     * returned: tcp had put it into the socket, and the peer's progress read it later.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aWritePostedBeforeTheConnectionEndsNeverLandsAfter(boolean free) throws InterruptedException {
        DatIa ia = new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            OfiPzTest.Pair p = OfiPzTest.connect(ia, pz, free ? 7503 : 7504);
            // As large as the EP takes in one write: the more of it the socket holds, the later it lands.
            int size = (int) Math.min(1 << 20, p.active().query().epAttr().maxRdmaSize());
            MemorySegment src = arena.allocate(size, 64).fill((byte) 0x77);
            MemorySegment dst = arena.allocate(size, 64);
            DatLmr from = ia.createLmr(pz, src, DatMemPriv.ALL);
            DatLmr to = ia.createLmr(pz, dst, DatMemPriv.ALL);
            assertEquals(DatReturn.DAT_SUCCESS, p.active().postRdmaWrite(1, Iov.allocate(arena, 1).set(0, from, 0,
                    size), 1, to.rmrContext(), dst.address(), size, 0));
            if (free) {
                p.active().close();
            } else {
                p.active().disconnect(DatCloseFlags.ABRUPT);
            }
            byte[] after = dst.toArray(ValueLayout.JAVA_BYTE);
            DatEvent e = new DatEvent();
            long until = System.nanoTime() + 300_000_000L;
            while (System.nanoTime() - until < 0) {
                // The passive EP's CQs, read by the consumer, and the progress thread meanwhile.
                p.passive().query().recvEvd().dequeue(e);
                p.passiveConn().dequeue(e);
                Thread.sleep(1);
            }
            assertEquals(-1L, dst.mismatch(MemorySegment.ofArray(after)), "the target changed after the "
                    + (free ? "dat_ep_free" : "abrupt dat_ep_disconnect") + " returned");
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }
}

