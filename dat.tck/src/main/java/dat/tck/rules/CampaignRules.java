package dat.tck.rules;

import static org.junit.jupiter.api.Assertions.fail;

import dat.tck.DatRule;
import dat.tck.TckContext;
import dat.tck.TckEnvironment;
import dat.tck.campaign.Campaign;
import java.security.SecureRandom;
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
        long seed = context.campaignSeed().orElseGet(() -> new SecureRandom().nextLong());
        f.close();
        f = null;
        Campaign.Result result = new Campaign(() -> new TckFixture(env.openIa(), context.eventTimeoutMillis()), seed,
                context.campaignSteps(), seconds, context.campaignShrinkSeconds(), context.eventTimeoutMillis()).run();
        reporter.publishEntry("campaign", result.summary() + System.lineSeparator() + result.table());
        if (!result.passed()) {
            fail(result.failure());
        }
    }
}
