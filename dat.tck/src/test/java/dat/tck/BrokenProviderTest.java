// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.tck.BrokenProviders.Broken;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The TCK tests itself: each deliberately broken provider must be caught by the named rule, and that rule passes
 * on unbroken loopback (see {@link LoopbackTckTest}), so the failure is the fault's doing.
 */
class BrokenProviderTest {

    static List<Broken> brokenProviders() {
        return BrokenProviders.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenProviders")
    void caughtByItsRule(Broken broken) {
        assertTrue(RulesIndex.find(broken.catchingTest()).isPresent(), "no such rule: " + broken.catchingTest());
        boolean crossNode = broken.catchingTest().contains("_crossNode");
        // A fault that loses an event is caught when the rule's wait for it ends: short waits keep the self-test
        // fast. Loopback delivers on the posting thread, so an event that comes at all comes long before; waits on
        // the peer's thread keep more room.
        TckLauncher.Options options = TckLauncher.Options.verification(BrokenLoopbackVerification.class)
                .only(broken.catchingTest())
                .parameter(BrokenLoopbackVerification.FAULT, broken.name())
                .parameter(TckContext.EVENT_TIMEOUT_MS, crossNode ? "1500" : "750")
                // The campaign stops at its first violation; a fixed seed keeps the self-test repeatable.
                .parameter(TckContext.CAMPAIGN_SEED, "7")
                .parameter(TckContext.CAMPAIGN_SECONDS, "60")
                .parameter(TckContext.CAMPAIGN_CONCURRENT_SECONDS, "3")
                .parameter(TckContext.CAMPAIGN_SHRINK_SECONDS, "1");
        TckLauncher.Result result;
        if (crossNode) {
            try (PeerThread peer = PeerThread.start(7400 + BrokenProviders.all().indexOf(broken),
                    Duration.ofMinutes(1))) {
                result = TckLauncher.run(options.peer(peer.address().toString()), null);
                assertTrue(peer.await(Duration.ofSeconds(20)).byeReceived(), "the broken run still said bye");
            }
        } else {
            result = TckLauncher.run(options, null);
        }
        List<String> failed = result.failures().stream().map(TckLauncher.Failure::testName)
                .collect(Collectors.toList());
        assertEquals(List.of(broken.catchingTest()), failed,
                broken.name() + " must be caught by " + broken.catchingTest() + "; skips: " + result.skips());
    }

    @Test
    void atLeastFifteenBrokenProvidersEachCaughtByANamedRule() {
        assertTrue(BrokenProviders.all().size() >= 15, "the kit is tested against at least 15 broken providers");
        assertTrue(BrokenProviders.all().stream().filter(b -> b.catchingTest().contains("_crossNode")).count() >= 5,
                "at least 5 of them break what only a remote peer shows");
        assertEquals(BrokenProviders.all().size(),
                BrokenProviders.all().stream().map(Broken::name).distinct().count(), "distinct breakages");
    }
}
