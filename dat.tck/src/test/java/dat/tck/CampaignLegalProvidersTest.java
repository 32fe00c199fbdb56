// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.tck.BrokenProviders.Broken;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The other half of the campaign's self-test: where DAT leaves the provider a choice (here, when a refused RDMA
 * write fails), loopback made to take the other choice must pass. A model that assumed loopback's choice would
 * reject correct providers.
 */
class CampaignLegalProvidersTest {

    static List<Broken> legalProviders() {
        return CampaignBrokenProviders.legal();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("legalProviders")
    void passesTheCampaign(Broken legal) {
        TckLauncher.Options options = TckLauncher.Options.verification(BrokenLoopbackVerification.class)
                .only(legal.catchingTest())
                .parameter(BrokenLoopbackVerification.FAULT, legal.name())
                .parameter(TckContext.EVENT_TIMEOUT_MS, "2000")
                .parameter(TckContext.CAMPAIGN_SEED, "7")
                .parameter(TckContext.CAMPAIGN_SECONDS, "20")
                .parameter(TckContext.CAMPAIGN_SHRINK_SECONDS, "1");
        int before = CampaignBrokenProviders.LateRefusal.LATE.get();
        TckLauncher.Result result = TckLauncher.run(options, null);
        assertEquals(List.of(), result.failures(), legal.name());
        assertTrue(CampaignBrokenProviders.LateRefusal.LATE.get() - before > 10,
                "the campaign met the variation: late refusals "
                        + (CampaignBrokenProviders.LateRefusal.LATE.get() - before));
    }
}
