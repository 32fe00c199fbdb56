// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.api.DatCr;
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
import dat.api.DatReturn;
import dat.api.Iov;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * The victim of {@link OfiFaultTest}, run in its own JVM: {@code OfiFaultVictim CONN_QUAL [IA]}. Accepts one
 * connection on {@code ofi-tcp-lo} (or the IA named), keeps receives posted, prints {@code ready <rmr_context>
 * <address>} of a region the peer may write, and goes on receiving until it is killed. A line {@code quiesce} on its
 * standard input makes it take its IA's lock and keep it, so that none of its threads is inside libfabric, and print
 * {@code quiet}: on shm the peer kills it only then (see {@link OfiFaultTest#peerKilledMidTransfer}).
 */
public final class OfiFaultVictim {

    static final int SIZE = 1 << 20;
    static final int RECV = 64 * 1024;
    static final int RECVS = 8;

    private OfiFaultVictim() {
    }

    /**
     * Runs the victim.
     *
     * @param args the connection qualifier, and optionally the IA ({@code ofi-tcp-lo} unless named)
     */
    public static void main(String[] args) {
        try (Arena arena = Arena.ofShared();
             DatIa ia = new OfiProvider().open(args.length > 1 ? args[1] : OfiTcpVerification.IA, "", 16)) {
            DatPz pz = ia.createPz();
            DatEvd evd = ia.createEvd(1024, null, DatEvdFlags.DTO | DatEvdFlags.CONNECTION | DatEvdFlags.CR);
            MemorySegment region = arena.allocate(SIZE, 4096);
            DatLmr lmr = ia.createLmr(pz, region, DatMemPriv.ALL);
            DatEp ep = ia.createEp(pz, evd, evd, evd, DatEpAttr.builder().maxRecvDtos(RECVS).build());
            ia.createPsp(Long.parseLong(args[0]), evd, DatPspFlags.CONSUMER);
            System.out.println("listening");
            System.out.flush();
            DatEvent e = new DatEvent();
            if (evd.await(60_000_000, 1, e) != DatReturn.DAT_SUCCESS
                    || e.type() != DatEventType.CONNECTION_REQUEST_EVENT) {
                throw new IllegalStateException("no request: " + e);
            }
            DatCr cr = e.cr();
            cr.accept(ep, null);
            Iov iov = Iov.allocate(arena, 1);
            for (int i = 0; i < RECVS; i++) {
                iov.set(0, lmr, (long) i * RECV, RECV);
                ep.postRecv(1, iov, i, 0);
            }
            Thread.ofPlatform().daemon().start(() -> quiesceOnRequest((OfiIa) ia));
            System.out.println("ready " + lmr.rmrContext() + " " + region.address());
            System.out.flush();
            while (true) {
                if (evd.await(60_000_000, 1, e) == DatReturn.DAT_SUCCESS && e.type() == DatEventType.DTO_COMPLETION) {
                    int slot = (int) e.userCookie();
                    iov.set(0, lmr, (long) slot * RECV, RECV);
                    ep.postRecv(1, iov, slot, 0);
                }
            }
        }
    }

    /**
     * Waits for {@code quiesce} on standard input, then holds the IA's lock till the process is killed: every call
     * into libfabric (the consumer's and the progress thread's) runs under it, so none is under way after
     * {@code quiet} is printed.
     */
    private static void quiesceOnRequest(OfiIa ia) {
        try {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals("quiesce")) {
                    ia.lock.lock();
                    System.out.println("quiet");
                    System.out.flush();
                    while (true) {
                        Thread.sleep(60_000);
                    }
                }
            }
        } catch (IOException | InterruptedException e) {
            System.out.println("quiesce failed: " + e);
            System.out.flush();
        }
    }
}
