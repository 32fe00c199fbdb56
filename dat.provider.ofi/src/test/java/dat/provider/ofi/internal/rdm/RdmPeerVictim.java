// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import dat.api.DatEventType;
import java.util.ArrayList;
import java.util.List;

/**
 * The passive side of {@link RdmPeerGoneTest} in a second JVM: {@code RdmPeerVictim QUALIFIER}. Listens over shm,
 * prints "listening", accepts the first request, prints "established" once READY came, then keeps its side alive
 * (answering pings) until it is killed.
 */
public final class RdmPeerVictim {

    private RdmPeerVictim() {
    }

    /**
     * Serves one association until killed.
     *
     * @param args the qualifier
     * @throws Exception when shm cannot be opened
     */
    public static void main(String[] args) throws Exception {
        long q = Long.parseLong(args[0]);
        RdmFixture shm = new RdmFixture();
        shm.open();
        List<RdmControl> requests = new ArrayList<>();
        List<DatEventType> events = new ArrayList<>();
        try (RdmControlPlane plane = new RdmControlPlane(shm.fi, shm.domain, shm.info, RdmPeerGoneTest.TIMEOUTS,
                RdmPeerGoneTest.LOOPBACK)) {
            plane.listen(q, requests::add);
            System.out.println("listening");
            System.out.flush();
            RdmAssociation a = plane.associate(9, RdmTags.epTarget(9), new byte[0], 4, (t, pd) -> events.add(t),
                    () -> { }, message -> { });
            boolean accepted = false;
            boolean told = false;
            while (true) {
                plane.progress(System.nanoTime());
                if (!accepted && !requests.isEmpty()) {
                    a.accept(requests.get(0), 99, q, new byte[] {42}, System.nanoTime());
                    accepted = true;
                }
                if (!told && events.contains(DatEventType.CONNECTION_EVENT_ESTABLISHED)) {
                    System.out.println("established");
                    System.out.flush();
                    told = true;
                }
                Thread.sleep(0, 200_000);
            }
        }
    }
}
