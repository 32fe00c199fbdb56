// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static org.junit.jupiter.api.Assertions.fail;

import dat.tck.DatRule;
import dat.tck.TckContext;
import dat.tck.TckEnvironment;
import dat.tck.campaign.Campaign;
import dat.tck.campaign.ConcurrentCampaign;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.api.Timeout;

/**
 * The random campaign: instead of hand-picked examples, seeded random sequences of ordinary and malformed calls,
 * every step checked against a reference model of DAT semantics ({@code dat.tck.campaign.World}). Bounded by
 * {@value TckContext#CAMPAIGN_STEPS} and {@value TckContext#CAMPAIGN_SECONDS}; a failure reports the seed, the step
 * and the shortest reproduction found, and {@value TckContext#CAMPAIGN_SEED} replays it.
 */
public abstract class CampaignRules extends RuleSupport {

    /**
     * @param env the provider under test
     */
    protected CampaignRules(TckEnvironment env) {
        super(env);
    }

    /**
     * Every rule of the seed pages and of uDAPL's EP, SRQ, EVD and LMR life cycles that the model knows, under random
     * sequences: statuses, completions exactly once and in order, cookies, lengths and bytes, flushes on disconnect,
     * reset and reconnect, recv_query and srq_query counts, SRQ resize and watermark, and no byte of registered memory
     * touched that no post held. If this fails, the report's reproduction is the place to start: replay it with
     * {@code dat tck --only '*campaign*' --seed S --steps N}.
     *
     * @param context the run's settings
     * @param reporter where the campaign's figures go
     */
    @Test
    @Timeout(value = 24, unit = TimeUnit.HOURS)
    @DatRule(call = "campaign", section = "DESCRIPTION", rule = "random call sequences agree with the model")
    void required_campaign_randomSequencesAgreeWithTheModel(TckContext context, TestReporter reporter) {
        double seconds = context.campaignSeconds();
        applicableIf(seconds > 0, "the campaign's time budget (" + TckContext.CAMPAIGN_SECONDS + ") is 0");
        String unmet = Campaign.unmetNeed(f.limits);
        requiredFeature(unmet == null, unmet);
        long seed = context.campaignSeed().orElseGet(Campaign::newSeed);
        f.close();
        f = null;
        Campaign.Result result = new Campaign(() -> new TckFixture(openIa(), context.eventTimeoutMillis()), seed,
                context.campaignSteps(), seconds, context.campaignShrinkSeconds(), context.eventTimeoutMillis())
                .replayCommand(context.replayCommand().orElse(null)).run();
        reporter.publishEntry("campaign", result.summary() + System.lineSeparator() + result.table());
        if (!result.passed()) {
            fail(result.failure());
        }
    }

    /**
     * For a provider that claims {@code is_thread_safe} and SRQs: senders on three connections into one SRQ shared
     * by their passive EPs, two threads posting into the SRQ, two reaping one shared receive EVD, one querying and
     * resizing the SRQ, one freeing an LMR under RDMA writes. Every message arrives exactly once with its bytes, each
     * reaper sees
     * each connection in order, counts stay within bounds, and no byte moves into the freed LMR after its free
     * returned. Runs for {@value TckContext#CAMPAIGN_CONCURRENT_SECONDS} seconds (default 5).
     * If this fails, look for a race between the named threads' calls.
     *
     * @param context the run's settings
     * @param reporter where the figures go
     * @throws InterruptedException if the run is interrupted
     */
    @Test
    @Timeout(value = 24, unit = TimeUnit.HOURS)
    @DatRule(call = "campaign", section = "DESCRIPTION", rule = "concurrent calls keep the model's invariants")
    void optional_campaign_concurrentCallsKeepTheInvariants(TckContext context, TestReporter reporter)
            throws InterruptedException {
        optionalFeature(f.provider.isThreadSafe(), "is_thread_safe = false");
        optionalFeature(f.provider.srqSupported(), "srq_supported = false");
        optionalFeature(f.limits.maxSrqs() > 0, "max_srqs = 0");
        String unmet = Campaign.unmetNeed(f.limits);
        optionalFeature(unmet == null, unmet);
        double seconds = context.campaignConcurrentSeconds();
        applicableIf(seconds > 0, "the concurrent campaign's time (" + TckContext.CAMPAIGN_CONCURRENT_SECONDS
                + ") is 0");
        long seed = context.campaignSeed().orElseGet(Campaign::newSeed);
        ConcurrentCampaign campaign = new ConcurrentCampaign(f, seed, seconds);
        String violation = campaign.run();
        reporter.publishEntry("campaign", String.format("concurrent, seed 0x%x: %d messages in %.1f s, %s", seed,
                campaign.messages(), seconds, violation == null ? "no violation" : "VIOLATION"));
        if (violation != null) {
            fail(String.format("concurrent campaign, seed 0x%x: %s%n    replay: %s", seed, violation,
                    context.replayCommand().map(command -> String.format("%s --only '*concurrentCalls*' --seed 0x%x"
                            + " --concurrent-seconds %s", command, seed, seconds))
                            .orElse(String.format("run optional_campaign_concurrentCallsKeepTheInvariants alone with"
                                    + " the JUnit configuration parameters %s=0x%x and %s=%s",
                                    TckContext.CAMPAIGN_SEED, seed, TckContext.CAMPAIGN_CONCURRENT_SECONDS, seconds))));
        }
    }
}
