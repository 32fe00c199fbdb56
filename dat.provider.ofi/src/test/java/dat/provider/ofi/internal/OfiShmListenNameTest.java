// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatPspFlags;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.provider.ofi.internal.rdm.ShmIntroductions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A qualifier another process listens at, on shm. */
class OfiShmListenNameTest {

    private static final int PORT = 7610;
    private static final long TIMEOUT = 10_000_000;

    /**
     * {@code dat_psp_create} at a qualifier another process listens at fails with CONN_QUAL_IN_USE and leaves the
     * listener reachable. shm 1.17 refuses the name itself and removes the holder's region file as it does
     * ({@code smr_retry_map}): the listener then answered no process that looked its name up afterwards.
     */
    @Test
    void aQualifierAnotherProcessListensAtIsInUseAndStaysThatProcesss() throws Exception {
        Process child = ChildJvm.start(OfiShmEarlyCloseTest.Child.class, Integer.toString(PORT));
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            assertEquals("listening", lines.readLine());
            Object region = ShmIntroductions.regionKey("jdat-" + PORT);
            DatIa ia = new OfiProvider().open(OfiRdmShmVerification.IA, "", 16);
            try {
                DatEvd crs = ia.createEvd(8, null, DatEvdFlags.CR);
                DatException e = assertThrows(DatException.class, () -> ia.createPsp(PORT, crs,
                        DatPspFlags.CONSUMER));
                assertTrue(e.is(DatReturn.CONN_QUAL_IN_USE), e.getMessage());
                assertTrue(e.getMessage().contains("process " + child.pid() + " listens there"), e.getMessage());
                assertEquals(region, ShmIntroductions.regionKey("jdat-" + PORT), "the listener's region file");
                DatEvd conn = ia.createEvd(8, null, DatEvdFlags.CONNECTION);
                DatEp ep = ia.createEp(ia.createPz(), null, null, conn, DatEpAttr.builder().build());
                ep.connect(InetAddress.getLoopbackAddress(), PORT, TIMEOUT, null, DatQos.BEST_EFFORT, 0);
                DatEvent ev = new DatEvent();
                assertEquals(DatReturn.DAT_SUCCESS, conn.await(TIMEOUT, 1, ev));
                assertEquals(DatEventType.CONNECTION_EVENT_PEER_REJECTED, ev.type(), "the listener answered");
            } finally {
                ia.close(DatCloseFlags.ABRUPT);
            }
        } finally {
            child.getOutputStream().close();
            String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), output);
            assertEquals(0, child.exitValue(), output);
        }
    }
}
