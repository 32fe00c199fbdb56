// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIa;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.Iov;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicLong;

/** Test fixture: one open IA with a PZ and the usual EVDs, plus helpers to connect EPs and move data. */
final class Loop implements AutoCloseable {

    private static final AtomicLong QUALS = new AtomicLong(5000);

    final Arena arena = Arena.ofShared();
    final DatIa ia;
    final DatPz pz;
    final DatEvd requestEvd;
    final DatEvd recvEvd;
    final DatEvd connectEvd;
    final DatEvd crEvd;

    Loop(String iaName) {
        ia = new LoopbackProvider().open(iaName, "", 64);
        pz = ia.createPz();
        requestEvd = ia.createEvd(256, null, DatEvdFlags.DTO | DatEvdFlags.RMR_BIND);
        recvEvd = ia.createEvd(256, null, DatEvdFlags.DTO);
        connectEvd = ia.createEvd(16, null, DatEvdFlags.CONNECTION);
        crEvd = ia.createEvd(16, null, DatEvdFlags.CR);
    }

    Loop() {
        this("loopback0");
    }

    static long nextQual() {
        return QUALS.incrementAndGet();
    }

    DatLmr lmr(long size, int privileges) {
        return ia.createLmr(pz, arena.allocate(size, 64), privileges);
    }

    DatLmr lmr(long size) {
        return lmr(size, DatMemPriv.ALL);
    }

    Iov iov(int capacity) {
        return Iov.allocate(arena, capacity);
    }

    DatEp ep() {
        return ia.createEp(pz, recvEvd, requestEvd, connectEvd, null);
    }

    DatEp ep(DatEpAttr attr) {
        return ia.createEp(pz, recvEvd, requestEvd, connectEvd, attr);
    }

    DatEp ep(DatSrq srq) {
        return ia.createEpWithSrq(pz, recvEvd, requestEvd, connectEvd, srq, null);
    }

    /** Connects {@code client} (of this fixture) to {@code server} (of {@code other}) through a PSP. */
    void connect(DatEp client, Loop other, DatEp server) {
        long qual = nextQual();
        var psp = other.ia.createPsp(qual, other.crEvd, DatPspFlags.CONSUMER);
        try {
            client.connect(other.ia.address(), qual, Dat.DAT_TIMEOUT_INFINITE, null, DatQos.BEST_EFFORT, 0);
            DatEvent e = new DatEvent();
            assertEquals(DatReturn.DAT_SUCCESS, other.crEvd.dequeue(e));
            assertEquals(DatEventType.CONNECTION_REQUEST_EVENT, e.type());
            e.cr().accept(server, null);
            expect(connectEvd, DatEventType.CONNECTION_EVENT_ESTABLISHED);
            expect(other.connectEvd, DatEventType.CONNECTION_EVENT_ESTABLISHED);
        } finally {
            psp.close();
        }
    }

    static DatEvent expect(DatEvd evd, DatEventType type) {
        DatEvent e = new DatEvent();
        assertEquals(DatReturn.DAT_SUCCESS, evd.dequeue(e), () -> "no " + type + " event");
        assertEquals(type, e.type(), e::toString);
        return e;
    }

    static void fill(DatLmr lmr, int seed) {
        MemorySegment s = lmr.segment();
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (seed + i));
        }
    }

    static void drainAll(DatEvd evd) {
        DatEvent e = new DatEvent();
        while (evd.dequeue(e) == DatReturn.DAT_SUCCESS) {
            // discard
        }
    }

    @Override
    public void close() {
        ia.close(DatCloseFlags.ABRUPT);
        arena.close();
    }
}
