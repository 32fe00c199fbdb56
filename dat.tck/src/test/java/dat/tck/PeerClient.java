// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;

import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIa;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.Iov;
import dat.registry.DatRegistry;
import dat.registry.peer.PeerAddress;
import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;

/** The requesting side of the peer tests: raw DAT calls on loopback0, so the peer is tested without the kit. */
final class PeerClient implements AutoCloseable {

    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    final DatIa ia = DatRegistry.load().open("loopback0");
    final DatPz pz = ia.createPz();
    final Arena arena = Arena.ofShared();
    private final PeerAddress peer;

    PeerClient(PeerAddress peer) {
        this.peer = peer;
    }

    /** An EP with its EVDs. */
    record Conn(DatEp ep, DatEvd requestEvd, DatEvd recvEvd, DatEvd connectEvd) {
    }

    Conn conn() {
        DatEvd request = ia.createEvd(64, null, DatEvdFlags.DTO);
        DatEvd recv = ia.createEvd(64, null, DatEvdFlags.DTO);
        DatEvd connect = ia.createEvd(16, null, DatEvdFlags.CONNECTION);
        DatEpAttr attr = DatEpAttr.builder().maxMessageSize(1 << 20).maxRdmaSize(1 << 20).maxRecvDtos(16)
                .maxRequestDtos(16).maxRecvIov(1).maxRequestIov(1).maxRdmaReadIov(1).maxRdmaWriteIov(1)
                .maxRdmaReadIn(1).maxRdmaReadOut(1).build();
        return new Conn(ia.createEp(pz, recv, request, connect, attr), request, recv, connect);
    }

    /**
     * Connects a fresh EP to the peer with {@code privateData}.
     *
     * @return the EP and the connection event that answered
     */
    Answered connect(byte[] privateData) {
        Conn c = conn();
        c.ep().connect(peer.host(), peer.connQual(), TimeUnit.NANOSECONDS.toMicros(WAIT_NANOS), privateData,
                DatQos.BEST_EFFORT, 0);
        return new Answered(c, new DatEvent().copyFrom(next(c.connectEvd())));
    }

    /** A connection attempt and its outcome. */
    record Answered(Conn conn, DatEvent event) {
    }

    DatLmr region(long size) {
        return ia.createLmr(pz, arena.allocate(size, 64), DatMemPriv.ALL);
    }

    void send(Conn c, DatLmr from, long offset, long length, long cookie) {
        int rc = c.ep().postSend(1, Iov.allocate(arena, 1).set(0, from, offset, length), cookie,
                DatCompletionFlags.DEFAULT);
        assertSame(DatReturn.SUCCESS, DatReturn.of(rc), "dat_ep_post_send");
    }

    void recv(Conn c, DatLmr into, long offset, long length, long cookie) {
        int rc = c.ep().postRecv(1, Iov.allocate(arena, 1).set(0, into, offset, length), cookie,
                DatCompletionFlags.DEFAULT);
        assertSame(DatReturn.SUCCESS, DatReturn.of(rc), "dat_ep_post_recv");
    }

    /** Disconnects gracefully and waits for the event. */
    void hangUp(Conn c) {
        c.ep().disconnect(DatCloseFlags.GRACEFUL);
        assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, next(c.connectEvd()).type());
    }

    DatEvent next(DatEvd evd) {
        DatEvent event = new DatEvent();
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (evd.dequeue(event) != DatReturn.DAT_SUCCESS) {
            if (System.nanoTime() - deadline > 0) {
                return fail("no event on " + evd);
            }
            Thread.onSpinWait();
        }
        return event;
    }

    @Override
    public void close() {
        try {
            ia.close(DatCloseFlags.ABRUPT);
        } finally {
            arena.close();
        }
    }
}
