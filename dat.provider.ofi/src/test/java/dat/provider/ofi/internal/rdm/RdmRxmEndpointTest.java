// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dat.provider.ofi.internal.ffm.FiInfo;
import dat.provider.ofi.internal.ffm.LibFabric;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The same bindings on the second RDM fabric, {@code tcp;ofi_rxm} on the loopback interface. */
class RdmRxmEndpointTest {

    private static final RdmFixture RXM = new RdmFixture("tcp;ofi_rxm", "lo");

    @BeforeAll
    static void openRxm() throws Exception {
        RXM.open();
        assertEquals(LibFabric.FI_SOCKADDR_IN, FiInfo.addrFormat(RXM.info), "the first lo entry is IPv4");
    }

    @AfterAll
    static void closeRxm() {
        RXM.close();
    }

    @Test
    void controlMessagesArriveInOrderBetweenTwoPickedAddresses() {
        try (RdmEndpoint a = new RdmEndpoint(RXM.fi, RXM.domain, RXM.info, null);
                RdmEndpoint b = new RdmEndpoint(RXM.fi, RXM.domain, RXM.info, null)) {
            assertEquals(16, a.name().length, "a sockaddr_in");
            long toA = b.insert(a.name());
            int n = 40;
            int sent = 0;
            List<byte[]> got = new ArrayList<>();
            long end = System.nanoTime() + 10_000_000_000L;
            while (got.size() < n && System.nanoTime() < end) {
                if (sent < n) {
                    byte[] m = new byte[1 + sent * 15];
                    m[0] = (byte) sent;
                    long rc = b.send(toA, RdmTags.CONTROL, m, sent);
                    if (rc == 0) {
                        sent++;
                    } else {
                        assertEquals(-LibFabric.FI_EAGAIN, rc);
                    }
                }
                RdmEndpoint.Completion s = b.poll();
                assertEquals(0, s == null ? 0 : s.error(), "sends complete without error");
                RdmEndpoint.Completion r = a.poll();
                if (r != null) {
                    assertEquals(0, r.error());
                    got.add(r.received());
                }
            }
            assertEquals(n, got.size(), "all arrived in 10 s");
            for (int i = 0; i < n; i++) {
                byte[] expected = new byte[1 + i * 15];
                expected[0] = (byte) i;
                assertArrayEquals(expected, got.get(i), "message " + i + " in the order sent");
            }
        }
    }

    @Test
    void closingOneEndpointLeavesSendsBetweenTheOthersAlone() {
        // Regression: the process's registry of live names keyed a binary address up to its first NUL, so every
        // sockaddr_in was one name, and closing any endpoint made sends to all the others -FI_ENOTCONN.
        try (RdmEndpoint a = new RdmEndpoint(RXM.fi, RXM.domain, RXM.info, null);
                RdmEndpoint b = new RdmEndpoint(RXM.fi, RXM.domain, RXM.info, null)) {
            long toA = b.insert(a.name());
            new RdmEndpoint(RXM.fi, RXM.domain, RXM.info, null).close();
            long end = System.nanoTime() + 10_000_000_000L;
            long rc = b.send(toA, RdmTags.CONTROL, new byte[] {3}, 1);
            while (rc == -LibFabric.FI_EAGAIN && System.nanoTime() < end) {
                b.poll();
                a.poll();
                rc = b.send(toA, RdmTags.CONTROL, new byte[] {3}, 1);
            }
            assertEquals(0, rc, "a live peer is still reachable");
            RdmEndpoint.Completion r = null;
            while (r == null && System.nanoTime() < end) {
                b.poll();
                r = a.poll();
            }
            assertArrayEquals(new byte[] {3}, r == null ? null : r.received());
        }
    }
}
