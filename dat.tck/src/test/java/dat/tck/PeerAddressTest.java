// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.registry.peer.PeerAddress;
import dat.tck.rules.PeerProtocol;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code HOST:CONN_QUAL} as {@code dat.tck.peer} and {@code dat tck --peer} take it. */
class PeerAddressTest {

    @Test
    void ipv4AndBracketedIpv6RoundTrip() {
        PeerAddress a = PeerAddress.parse("192.0.2.1:7471");
        assertEquals("192.0.2.1", a.host().getHostAddress());
        assertEquals(7471, a.connQual());
        assertEquals("192.0.2.1:7471", a.toString());
        PeerAddress b = PeerAddress.parse("[::1]:9");
        assertEquals(9, b.connQual());
        assertEquals(b, PeerAddress.parse(b.toString()));
        assertTrue(b.toString().startsWith("[") && b.toString().endsWith("]:9"), b.toString());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "192.0.2.1        | peer '192.0.2.1' is not HOST:CONN_QUAL",
        "192.0.2.1:       | peer '192.0.2.1:' is not HOST:CONN_QUAL",
        ":7471            | peer ':7471' is not HOST:CONN_QUAL",
        "[]:7471          | peer '[]:7471' names no host",
        "192.0.2.1:port   | peer '192.0.2.1:port': conn_qual 'port' is not a number",
        "192.0.2.1:-4     | peer '192.0.2.1:-4': conn_qual -4 is negative",
        "fe80::1:7471     | peer 'fe80::1:7471': put an IPv6 address in brackets, [ADDRESS]:CONN_QUAL"})
    void malformedTextIsRefusedWithTheReason(String text, String reason) {
        assertEquals(reason, assertThrows(IllegalArgumentException.class, () -> PeerAddress.parse(text)).getMessage());
    }

    @Test
    void contextAndLauncherOptionsCarryThePeer() {
        Map<String, String> parameters = TckLauncher.Options.ia("x").peer("192.0.2.1:7471").parameters();
        assertEquals(Map.of(TckContext.PEER, "192.0.2.1:7471"), parameters);
        TckContext context = new TckContext(name -> Optional.ofNullable(parameters.get(name)));
        assertEquals(PeerAddress.parse("192.0.2.1:7471"), PeerProtocol.peer(context).orElseThrow());
        assertEquals(Optional.empty(), PeerProtocol.peer(new TckContext(name -> Optional.empty())));
        assertEquals(Map.of(), TckLauncher.Options.ia("x").peer("192.0.2.1:7471").peer(null).parameters());
        assertEquals("dat.tck.peer: peer 'nowhere' is not HOST:CONN_QUAL", assertThrows(IllegalArgumentException.class,
                () -> PeerProtocol.peer(new TckContext(name -> Optional.of("nowhere")))).getMessage());
        assertThrows(IllegalArgumentException.class, () -> TckLauncher.Options.ia("x").peer("nowhere"));
    }
}
