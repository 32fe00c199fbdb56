// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dat.api.DatCloseFlags;
import dat.api.DatCr;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIa;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * A PSP's passive endpoint and the connections libfabric's tcp provider accepted on it. tcp 1.17 accepts a TCP
 * connection in an EQ read and keeps it, with a pointer to its passive endpoint, in the EQ's wait set until the
 * connection request arrives on it; {@code fi_close} of the passive endpoint frees it and leaves that pointer behind,
 * so a request arriving later made the next read of that EQ build the {@code FI_CONNREQ} from freed memory (a JVM
 * crash in {@code strlen} under {@code fi_dupinfo}, or the request delivered to whatever PSP got that memory next).
 */
class OfiPassiveTest {

    private static final long TIMEOUT = 10_000_000;

    /** A tcp connection request message: version 3, type connreq, no data, conn_data 1 (native byte order). */
    private static byte[] connreq() {
        ByteBuffer b = ByteBuffer.allocate(32);
        b.put((byte) 3).put((byte) 0).putShort((short) 0).putInt(0).putLong(0).putLong(0);
        b.order(ByteOrder.nativeOrder()).putLong(1);
        return b.array();
    }

    @Test
    void aRequestArrivingAfterThePspWasFreedReachesNoOtherPsp() throws IOException, InterruptedException {
        DatIa ia = new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        try {
            for (int round = 0; round < 5; round++) {
                DatEvd firstCrs = ia.createEvd(8, null, DatEvdFlags.CR);
                DatPsp first = ia.createPspAny(firstCrs, DatPspFlags.CONSUMER);
                try (Socket raw = new Socket()) {
                    raw.connect(new InetSocketAddress(ia.address(), (int) first.connQual()), 5_000);
                    // The progress thread reads the EQ every 2 ms at most: tcp accepts the connection there.
                    Thread.sleep(50);
                    first.close();
                    // The next PSP's passive endpoint is the size of the freed one: malloc hands that memory back.
                    DatEvd secondCrs = ia.createEvd(8, null, DatEvdFlags.CR);
                    DatPsp second = ia.createPspAny(secondCrs, DatPspFlags.CONSUMER);
                    OutputStream out = raw.getOutputStream();
                    out.write(connreq());
                    out.flush();
                    DatEvent e = new DatEvent();
                    assertEquals(DatReturn.DAT_TIMEOUT_EXPIRED, secondCrs.await(300_000, 1, e),
                            "round " + round + ": a request to the freed PSP's port reached another PSP: " + e);
                    assertEquals(DatReturn.DAT_QUEUE_EMPTY, firstCrs.dequeue(e), "round " + round + ": " + e);
                    second.close();
                    secondCrs.close();
                }
                firstCrs.close();
            }
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    @Test
    void aConnectionWhoseRequestHasNotArrivedEndsWithThePsp() throws IOException, InterruptedException {
        DatIa ia = new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        try {
            DatEvd crs = ia.createEvd(8, null, DatEvdFlags.CR);
            DatPsp psp = ia.createPspAny(crs, DatPspFlags.CONSUMER);
            try (Socket raw = new Socket()) {
                raw.connect(new InetSocketAddress(ia.address(), (int) psp.connQual()), 5_000);
                Thread.sleep(50);
                psp.close();
                raw.setSoTimeout(5_000);
                int read;
                try {
                    read = raw.getInputStream().read();
                } catch (SocketException reset) {
                    read = -1;
                }
                // Left in the closed passive endpoint's EQ, it stayed open: the requester waited for its timeout.
                assertEquals(-1, read, "the connection to the freed PSP ends");
            }
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    @Test
    void aRequestDeliveredBeforeDatPspFreeIsAcceptedAfterItAndLaterOnesFindNobody() {
        DatIa ia = new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        try {
            DatPz pz = ia.createPz();
            DatEvd dto = ia.createEvd(64, null, DatEvdFlags.DTO);
            DatEvd activeConn = ia.createEvd(8, null, DatEvdFlags.CONNECTION);
            DatEvd passiveConn = ia.createEvd(8, null, DatEvdFlags.CONNECTION);
            DatEvd lateConn = ia.createEvd(8, null, DatEvdFlags.CONNECTION);
            DatEvd crs = ia.createEvd(8, null, DatEvdFlags.CR);
            DatEp active = ia.createEp(pz, dto, dto, activeConn, DatEpAttr.builder().build());
            DatEp passive = ia.createEp(pz, dto, dto, passiveConn, DatEpAttr.builder().build());
            DatEp late = ia.createEp(pz, dto, dto, lateConn, DatEpAttr.builder().build());
            DatPsp psp = ia.createPspAny(crs, DatPspFlags.CONSUMER);
            long qual = psp.connQual();
            active.connect(ia.address(), qual, TIMEOUT, new byte[] {4, 2}, DatQos.BEST_EFFORT, 0);
            DatEvent e = new DatEvent();
            assertEquals(DatReturn.DAT_SUCCESS, crs.await(TIMEOUT, 1, e));
            DatCr cr = e.cr();
            psp.close();
            // A request after the free finds nobody listening, while the delivered one is still unanswered.
            late.connect(ia.address(), qual, TIMEOUT, null, DatQos.BEST_EFFORT, 0);
            assertEquals(DatReturn.DAT_SUCCESS, lateConn.await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED, e.type());
            assertArrayEquals(new byte[] {4, 2}, cr.query().privateData());
            cr.accept(passive, null);
            assertEquals(DatReturn.DAT_SUCCESS, activeConn.await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, e.type());
            assertEquals(DatReturn.DAT_SUCCESS, passiveConn.await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, e.type());
            // The port is free again once the last delivered request is answered.
            ia.createPsp(qual, crs, DatPspFlags.CONSUMER).close();
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }
}
