// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;

/**
 * Two EPs of one IA connected to each other through a PSP, for the tests that need a live connection on
 * {@code ofi-tcp-lo}: both EPs take their receives on {@code recvs}, their requests on {@link #requests}.
 *
 * @param pz the EPs' PZ
 * @param requests both EPs' request EVD
 * @param recvs both EPs' receive EVD, the caller's
 * @param active the EP that connected
 * @param passive the EP that accepted
 */
record TcpPair(DatPz pz, DatEvd requests, DatEvd recvs, DatEp active, DatEp passive) {

    private static final long TIMEOUT = 10_000_000;

    /**
     * Connects two new EPs of {@code ia}.
     *
     * @param ia an IA on {@link OfiTcpVerification#IA}
     * @param pz their PZ
     * @param recvs the EVD their receives complete on
     * @return the connected pair, the PSP freed
     */
    static TcpPair connect(OfiIa ia, DatPz pz, DatEvd recvs) {
        DatEvd requests = ia.createEvd(64, null, DatEvdFlags.DTO);
        DatEvd activeConn = ia.createEvd(8, null, DatEvdFlags.CONNECTION);
        DatEvd passiveConn = ia.createEvd(8, null, DatEvdFlags.CONNECTION);
        DatEvd crs = ia.createEvd(8, null, DatEvdFlags.CR);
        DatEp active = ia.createEp(pz, recvs, requests, activeConn, DatEpAttr.builder().build());
        DatEp passive = ia.createEp(pz, recvs, requests, passiveConn, DatEpAttr.builder().build());
        DatPsp psp = ia.createPspAny(crs, DatPspFlags.CONSUMER);
        active.connect(ia.address(), psp.connQual(), TIMEOUT, null, DatQos.BEST_EFFORT, 0);
        DatEvent e = new DatEvent();
        assertEquals(DatReturn.DAT_SUCCESS, crs.await(TIMEOUT, 1, e));
        e.cr().accept(passive, null);
        assertEquals(DatReturn.DAT_SUCCESS, activeConn.await(TIMEOUT, 1, e));
        assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, e.type());
        assertEquals(DatReturn.DAT_SUCCESS, passiveConn.await(TIMEOUT, 1, e));
        assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, e.type());
        psp.close();
        return new TcpPair(pz, requests, recvs, active, passive);
    }
}
