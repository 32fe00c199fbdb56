// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatReturn;
import dat.tck.Breaker.Call;
import dat.tck.Breaker.Fault;
import dat.tck.BrokenProviders.Broken;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Honest providers with zero limits: loopback whose {@code dat_ia_query} reports {@code max_eps 0} (or no EVD, no
 * LMR, no DTO per EP) and refuses what it denies with DAT_INSUFFICIENT_RESOURCES. The kit must not fail them: the
 * campaign and the rules skip (naming the attribute) or adapt, and the fixture never asks for what the limits deny.
 */
class LimitedProvidersTest {

    /** The rules that ask past a limit on purpose: a limit is honest only if the provider refuses beyond it. */
    private static final Set<String> PAST_THE_LIMIT = Set.of(
            "required_ia_query_attributesAreCoherent", "required_pz_create_objectLimitsHonoured");

    /** What the kit asked for despite a zero limit, by provider. */
    static final Map<String, String> ASKED = new ConcurrentHashMap<>();

    static List<Broken> all() {
        return List.of(
                new Broken("limited: max_eps 0", "", enforced("limited: max_eps 0", b -> b.maxEps(0),
                        "createEp", "createEpWithSrq")),
                new Broken("limited: max_lmrs 0", "", enforced("limited: max_lmrs 0", b -> b.maxLmrs(0),
                        "createLmr")),
                new Broken("limited: max_evds 0", "", enforced("limited: max_evds 0", b -> b.maxEvds(0),
                        "createEvd")),
                new Broken("limited: max_dto_per_ep 0", "", enforced("limited: max_dto_per_ep 0",
                        b -> b.maxDtoPerEp(0), "createEp", "createEpWithSrq")));
    }

    /**
     * The IA reports the limit {@code lie} sets and refuses each of {@code methods} (calls on the IA) with
     * DAT_INSUFFICIENT_RESOURCES, noting that the kit asked.
     */
    private static Fault enforced(String name, UnaryOperator<DatIaAttr.Builder> lie, String... methods) {
        return new Fault() {
            @Override
            public Object[] before(Call call) {
                for (String method : methods) {
                    if (call.is(DatIa.class, method)) {
                        if (StackWalker.getInstance().walk(frames -> frames.anyMatch(frame -> PAST_THE_LIMIT
                                .contains(frame.getMethodName())))) {
                            throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, method + ": the IA's limit is 0");
                        }
                        ASKED.merge(name, method, (a, b) -> a.contains(b) ? a : a + ", " + b);
                        throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, method + ": the IA's limit is 0");
                    }
                }
                return call.args();
            }

            @Override
            public Object after(Call call, Object result) {
                return call.is(DatIa.class, "query") ? lie.apply(((DatIaAttr) result).toBuilder()).build() : result;
            }
        };
    }

    static List<Broken> limitedProviders() {
        return all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("limitedProviders")
    void theKitSkipsWhatTheLimitsDenyAndAsksForNothingDenied(Broken limited) {
        TckLauncher.Options options = TckLauncher.Options.verification(BrokenLoopbackVerification.class)
                .parameter(BrokenLoopbackVerification.FAULT, limited.name())
                .parameter(TckContext.EVENT_TIMEOUT_MS, "2000")
                .parameter(TckContext.CAMPAIGN_SEED, "7")
                .parameter(TckContext.CAMPAIGN_SECONDS, "2")
                .parameter(TckContext.CAMPAIGN_CONCURRENT_SECONDS, "1")
                .parameter(TckContext.CAMPAIGN_SHRINK_SECONDS, "1");
        TckLauncher.Result result = TckLauncher.run(options, null);
        assertEquals(List.of(), result.failures(), limited.name() + ": no rule fails an honest limit");
        assertEquals(null, ASKED.get(limited.name()), limited.name() + ": the kit asked for what the limit denies");
        String attribute = limited.name().substring("limited: ".length(), limited.name().length() - 2);
        assertTrue(result.skips().containsKey(CampaignBrokenProviders.CAMPAIGN), "the campaign is skipped");
        assertTrue(result.skips().get(CampaignBrokenProviders.CAMPAIGN).contains(attribute),
                "the campaign's skip names " + attribute + ": " + result.skips().get(CampaignBrokenProviders.CAMPAIGN));
        result.skips().forEach((rule, why) -> assertTrue(rule.startsWith("untested_")
                || why.contains(attribute) || why.contains("not applicable") || why.contains("denies"),
                rule + " is skipped for a reason that names no attribute: " + why));
    }
}
