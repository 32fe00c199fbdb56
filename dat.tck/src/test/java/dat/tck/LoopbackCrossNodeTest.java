// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.tck.peer.TckPeer;
import dat.tck.rules.CrossNodeRules;
import dat.tck.rules.RuleSupport;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The cross-node rules pass between loopback and a {@link TckPeer} on another loopback IA, served on its own
 * thread; the run ends with "bye" and the peer with every session clean. Without a peer they are skipped with the
 * reason.
 */
class LoopbackCrossNodeTest {

    private static final int CROSS_NODE_RULES = 11;

    @Test
    void crossNodeRulesPassAgainstAPeerOnAnotherIa() {
        try (PeerThread peer = PeerThread.start(7471, Duration.ofMinutes(2))) {
            TckLauncher.Result result = TckLauncher.run(TckLauncher.Options.verification(LoopbackVerification.class)
                    .strict(true).only("*_crossNode*").peer(peer.address().toString()), null);
            TckPeer.Summary summary = peer.await(Duration.ofSeconds(30));
            System.out.printf("loopback cross-node TCK (strict, peer %s): rules passed=%d failed=%d skipped=%d;"
                    + " peer sessions=%d%n", peer.address(), result.passed(), result.failed(), result.skipped(),
                    summary.sessions().size());
            summary.sessions().forEach(s -> System.out.println("  " + s));
            assertEquals(List.of(), result.failures(), "failed rules");
            assertEquals(CROSS_NODE_RULES, result.passed(), "skips: " + result.skips());
            assertTrue(summary.byeReceived(), "the run ended by telling the peer bye");
            assertEquals(List.of(), summary.failures(), "peer sessions that did not end cleanly");
            assertTrue(summary.clean());
            assertTrue(summary.sessions().size() >= CROSS_NODE_RULES + 3, "sessions: " + summary.sessions());
        }
    }

    @Test
    void withoutAPeerEveryCrossNodeRuleIsSkippedWithTheReason() {
        TckLauncher.Result result = TckLauncher.run(TckLauncher.Options.verification(LoopbackVerification.class)
                .strict(true).only("*_crossNode*"), null);
        assertEquals(0, result.failed(), result.failures().toString());
        assertEquals(CROSS_NODE_RULES, result.skipped());
        result.skips().values().forEach(why -> assertTrue(why.endsWith(RuleSupport.NOT_APPLICABLE
                + CrossNodeRules.NO_PEER), why));
        assertTrue(result.skips().values().iterator().next()
                .endsWith("not applicable: no remote peer (set dat.tck.peer=HOST:CONN_QUAL)"),
                result.skips().toString());
    }

    @Test
    void aPeerNobodyRunsFailsTheRulesWithAHint() {
        TckLauncher.Result result = TckLauncher.run(TckLauncher.Options.verification(LoopbackVerification.class)
                .only("required_ep_connect_crossNodePrivateDataIntactBothWays").peer("127.0.1.1:7999"), null);
        assertEquals(1, result.failed(), result.skips().toString());
        assertTrue(result.failures().get(0).message().contains(
                "the peer at 127.0.1.1:7999 did not accept a ECHO request:"
                + " CONNECTION_EVENT_NON_PEER_REJECTED (is dat tck-peer running there, listening on conn_qual 7999?)"),
                result.failures().toString());
    }

    @Test
    void aMalformedPeerParameterFailsTheRulesWithTheReason() {
        TckLauncher.Result result = TckLauncher.run(TckLauncher.Options.verification(LoopbackVerification.class)
                .only("required_ep_connect_crossNodePrivateDataIntactBothWays")
                .parameter(TckContext.PEER, "127.0.0.1"), null);
        assertEquals(1, result.failed(), result.skips().toString());
        assertTrue(result.failures().get(0).message().contains("dat.tck.peer: peer '127.0.0.1' is not HOST:CONN_QUAL"),
                result.failures().toString());
    }
}
