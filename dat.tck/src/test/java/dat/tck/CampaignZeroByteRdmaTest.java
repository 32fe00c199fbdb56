// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.tck.CampaignBrokenProviders.UncheckedZeroByteWrite;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 26: the campaign on the ofi provider over rxe (seed 0xda727046cdffc788, its episode 16 being episode 0 of
 * seed 0xda727046cdffc798) posted, at step 619, an RDMA write of zero bytes to a region without REMOTE_WRITE and
 * waited for its refusal. rxe checks no key for zero bytes (InfiniBand C9-88) and completed it: no break, no event,
 * a violation of a model that asked more than DAT does. The same episode on loopback answering as the HCA did must
 * pass, and the campaign must still try refused writes.
 */
class CampaignZeroByteRdmaTest {

    @Test
    void aZeroByteWriteTheTransportDoesNotCheckIsNoViolation() {
        TckLauncher.Options options = TckLauncher.Options.verification(BrokenLoopbackVerification.class)
                .only(CampaignBrokenProviders.CAMPAIGN)
                .parameter(BrokenLoopbackVerification.FAULT, UncheckedZeroByteWrite.NAME)
                .parameter(TckContext.EVENT_TIMEOUT_MS, "2000")
                .parameter(TckContext.CAMPAIGN_SEED, "0xda727046cdffc798")
                .parameter(TckContext.CAMPAIGN_STEPS, "620")
                .parameter(TckContext.CAMPAIGN_SECONDS, "120")
                .parameter(TckContext.CAMPAIGN_SHRINK_SECONDS, "1");
        int before = UncheckedZeroByteWrite.REFUSALS.get();
        TckLauncher.Result result = TckLauncher.run(options, null);
        assertEquals(List.of(), result.failures());
        assertTrue(UncheckedZeroByteWrite.REFUSALS.get() - before > 0,
                "the episode posted RDMA writes to a region without REMOTE_WRITE");
    }
}
