// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.api.DatIa;
import dat.tck.peer.TckPeer;
import java.time.Duration;

/**
 * The kit's cross-node peer on {@code ofi-tcp-lo}, as {@code dat tck-peer} serves it, for {@link OfiCrossNodeTest}
 * to start in a second JVM: {@code OfiPeerProcess CONN_QUAL SECONDS [IA]} (the IA {@code ofi-tcp-lo} unless named;
 * {@link OfiCrossNodeTest} names shm's too). Prints "listening" once it listens, one
 * line per session, and exits 0 when the run said bye and every session ended cleanly.
 */
public final class OfiPeerProcess {

    private OfiPeerProcess() {
    }

    /**
     * Serves the peer.
     *
     * @param args the connection qualifier, the timeout in seconds, and optionally the IA
     */
    public static void main(String[] args) {
        long qual = Long.parseLong(args[0]);
        Duration timeout = Duration.ofSeconds(Long.parseLong(args[1]));
        String iaName = args.length > 2 ? args[2] : OfiTcpVerification.IA;
        int status;
        try (DatIa ia = new OfiProvider().open(iaName, "", 16);
             TckPeer peer = TckPeer.open(ia, qual)) {
            System.out.println("listening on " + peer.address());
            System.out.flush();
            TckPeer.Summary summary = peer.serve(timeout, s -> System.out.println("session " + s));
            System.out.println("bye " + summary.byeReceived() + ", clean " + summary.clean());
            System.out.flush();
            status = summary.byeReceived() && summary.clean() ? 0 : 1;
        }
        // Exit only once the IA is closed, its progress thread out of libfabric. shm 1.17 guards each process's
        // region with a spinlock in the shared memory (struct smr_region): a process that ends while one of its
        // threads holds the other's lock leaves it held for good, and the other spins in libfabric for ever. It
        // exited from inside the try once, and the kit's JVM spun in pthread_spin_lock under fi_* (CI, 2026-11-27).
        System.exit(status);
    }
}
