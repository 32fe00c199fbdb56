// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatReturn;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The kit checks its own index: conventions hold and every seed man page is covered. */
class RulesIndexTest {

    /** RETURN VALUES of each seed page in ../shared/spec. */
    private static final Map<String, Set<DatReturn>> SEED_RETURNS = new LinkedHashMap<>();

    static {
        SEED_RETURNS.put("dat_srq_post_recv", EnumSet.of(DatReturn.SUCCESS, DatReturn.INVALID_HANDLE,
                DatReturn.INSUFFICIENT_RESOURCES, DatReturn.INVALID_PARAMETER, DatReturn.PROTECTION_VIOLATION,
                DatReturn.PRIVILEGES_VIOLATION));
        SEED_RETURNS.put("dat_ep_post_send", EnumSet.of(DatReturn.SUCCESS, DatReturn.INSUFFICIENT_RESOURCES,
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_HANDLE, DatReturn.INVALID_STATE,
                DatReturn.PROTECTION_VIOLATION, DatReturn.PRIVILEGES_VIOLATION));
        SEED_RETURNS.put("dat_srq_resize", EnumSet.of(DatReturn.SUCCESS, DatReturn.INVALID_HANDLE,
                DatReturn.INVALID_PARAMETER, DatReturn.INSUFFICIENT_RESOURCES, DatReturn.INVALID_STATE));
        SEED_RETURNS.put("dat_srq_create", EnumSet.of(DatReturn.SUCCESS, DatReturn.INSUFFICIENT_RESOURCES,
                DatReturn.INVALID_HANDLE, DatReturn.INVALID_PARAMETER, DatReturn.MODEL_NOT_SUPPORTED));
        SEED_RETURNS.put("dat_ep_recv_query", EnumSet.of(DatReturn.SUCCESS, DatReturn.INVALID_PARAMETER,
                DatReturn.INVALID_HANDLE, DatReturn.MODEL_NOT_SUPPORTED));
        SEED_RETURNS.put("dat_ep_post_rdma_write", EnumSet.of(DatReturn.SUCCESS, DatReturn.INSUFFICIENT_RESOURCES,
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_HANDLE, DatReturn.INVALID_STATE,
                DatReturn.LENGTH_ERROR, DatReturn.PROTECTION_VIOLATION, DatReturn.PRIVILEGES_VIOLATION));
    }

    @Test
    void everyTestFollowsTheKitsConventions() {
        assertEquals(List.of(), RulesIndex.problems(DatProviderVerification.class));
    }

    @Test
    void everyReturnValueOfEverySeedPageIsProvokedByARequiredTest() {
        List<TckRule> rules = RulesIndex.rules();
        SEED_RETURNS.forEach((call, expected) -> {
            Set<DatReturn> covered = rules.stream()
                    .filter(r -> r.call().equals(call) && r.level() == RuleLevel.REQUIRED)
                    .flatMap(r -> r.returns().stream()).collect(Collectors.toCollection(() -> EnumSet.noneOf(
                            DatReturn.class)));
            Set<DatReturn> missing = EnumSet.copyOf(expected);
            missing.removeAll(covered);
            assertTrue(missing.isEmpty(), call + ": RETURN VALUES without a required test: " + missing);
        });
    }

    @Test
    void everySeedPageHasDescriptionAndUsageRules() {
        List<TckRule> rules = RulesIndex.rules();
        for (String call : SEED_RETURNS.keySet()) {
            Set<String> sections = rules.stream().filter(r -> r.call().equals(call)).map(TckRule::section)
                    .collect(Collectors.toSet());
            assertTrue(sections.contains("DESCRIPTION"), call + " has DESCRIPTION rules: " + sections);
            if (!call.equals("dat_srq_resize") && !call.equals("dat_srq_create")
                    && !call.equals("dat_ep_recv_query")) {
                assertTrue(sections.contains("USAGE"), call + " has USAGE rules: " + sections);
            }
        }
        assertTrue(rules.stream().anyMatch(r -> r.call().equals("dat_srq_resize") && r.section().equals("USAGE")));
        assertTrue(rules.stream().anyMatch(r -> r.call().equals("dat_srq_create") && r.section().equals("USAGE")));
        assertTrue(rules.stream().anyMatch(r -> r.call().equals("dat_ep_recv_query") && r.section().equals("USAGE")));
    }

    @Test
    void conventionCheckCatchesABadlyNamedTest() {
        List<String> problems = RulesIndex.problems(Misnamed.class);
        assertEquals(2, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("has no @DatRule") || problems.get(1).contains("has no @DatRule"));
    }

    @Test
    void listRulesPrintsOneLinePerRule() {
        StringWriter text = new StringWriter();
        TckLauncher.printRules(new PrintWriter(text, true));
        List<String> lines = text.toString().lines().toList();
        assertEquals(RulesIndex.rules().size() + 1, lines.size());
        assertFalse(lines.get(1).isBlank());
        assertTrue(text.toString().contains("required_srq_resize_invalidStateCountsCompletedUnreapedBuffers"));
    }

    /** A verification with one test lacking @DatRule and one whose name does not match its call. */
    static class Misnamed {
        @Nested
        class Rules {
            @Test
            void required_srq_resize_noAnnotation() {
            }

            @Test
            @DatRule(call = "dat_srq_create", section = "DESCRIPTION", rule = "x")
            void required_srq_resize_wrongCall() {
            }
        }
    }
}
